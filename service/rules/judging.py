"""What a play is and may do under the rules in force: whether it beats the
field, cuts, revolts, flushes, or finishes forbidden (docs/RULES.md §1–§3)."""

from __future__ import annotations

from typing import Final

from .cards import (
    JOKER_BITS,
    RANK_2,
    RANK_3,
    RANK_4,
    RANK_5,
    RANK_6,
    RANK_7,
    RANK_8,
    RANK_9,
    RANK_J,
    RANK_K,
    RANK_Q,
    RANK_T,
    rank_mask,
    remove_cards,
)
from .melds import TOP_RANK, Kind, Meld
from .readings import (
    FURTHER_FLUSHES,
    SPADE_3,
    cuts_eight,
    finishes_forbidden,
    further_flush,
    group_of,
    is_assassination,
    joker_return,
    lock_suits,
)
from .refusals import Refused
from .state import Position
from .vocabulary import (
    KINGS_MARCH,
    SALVAGE,
    ZOMBIE,
    FlushReason,
    LocalRule,
    RefusalCode,
    ReverseCause,
    RevolutionCause,
    SkipCause,
)

# rules that reverse turn order once per play holding a real card of the rank,
# in docs/RULES.md §5.5's order (two of them in one play flip twice and cancel)
REVERSES: Final[tuple[tuple[LocalRule, ReverseCause, int], ...]] = (
    (LocalRule.NINE_REVERSE, ReverseCause.NINE_REVERSE, RANK_9),
    (LocalRule.SIX_REVERSE, ReverseCause.SIX_REVERSE, RANK_6),
    (LocalRule.QUEEN_REVERSE, ReverseCause.QUEEN_REVERSE, RANK_Q),
    (LocalRule.KING_REVERSE, ReverseCause.KING_REVERSE, RANK_K),
)
# rules that skip one player per real card of the rank; one play's skips add up
SKIPS: Final[tuple[tuple[LocalRule, SkipCause, int], ...]] = (
    (LocalRule.FIVE_SKIP, SkipCause.FIVE_SKIP, RANK_5),
    (LocalRule.KING_SKIP, SkipCause.KING_SKIP, RANK_K),
    (LocalRule.TEN_SKIP, SkipCause.TEN_SKIP, RANK_T),
)
REVERSE_RULES: Final = frozenset(rule for rule, _, _ in REVERSES)
SKIP_RULES: Final = frozenset(rule for rule, _, _ in SKIPS)
# the ranks whose real cards ask for a pick (docs/RULES.md §5 #49–#51): a flushed play
# holding 3s salvages, Ks march, exactly three 3s raise a zombie
SALVAGE_RANK: Final = RANK_3
KINGS_MARCH_RANK: Final = RANK_K
ZOMBIE_RANK: Final = RANK_3
ZOMBIE_SIZE: Final = 3
# the ranks whose real cards ask for a step, one card each (docs/RULES.md §3)
SEVEN_PASS_RANK: Final = RANK_7
TEN_DISCARD_RANK: Final = RANK_T
# the answer that stops an eight-cut (docs/RULES.md §3 Four-stop): a pair of real 4s
FOUR_STOP_RANK: Final = RANK_4
FOUR_STOP_SIZE: Final = 2


def rule_on(state: Position, name: LocalRule) -> bool:
    """Whether local rule ``name`` is on and not switched off by an omen."""
    return name in state.in_force


def skips_of(in_force: frozenset[LocalRule], meld: Meld) -> tuple[int, tuple[SkipCause, ...]]:
    """How many players ``meld`` skips, and the rules that skip them."""
    count, causes = 0, list[SkipCause]()
    for rule, cause, rank in SKIPS:
        if rule in in_force:
            real = meld.real_count(rank)
            if real:
                count += real
                causes.append(cause)
    return count, tuple(causes)


def reverses_of(in_force: frozenset[LocalRule], meld: Meld) -> list[ReverseCause]:
    """The reverse rules ``meld`` triggers, each flipping turn order once."""
    return [cause for rule, cause, rank in REVERSES if rule in in_force and meld.real_count(rank)]


def seven_pass_count(in_force: frozenset[LocalRule], meld: Meld) -> int:
    """How many cards a play of ``meld`` passes on to the next player (seven-pass)."""
    return meld.real_count(SEVEN_PASS_RANK) if LocalRule.SEVEN_PASS in in_force else 0


def ten_discard_count(in_force: frozenset[LocalRule], meld: Meld) -> int:
    """How many cards a play of ``meld`` discards to the pile (ten-discard)."""
    return meld.real_count(TEN_DISCARD_RANK) if LocalRule.TEN_DISCARD in in_force else 0


def pick_triggers(state: Position) -> int:
    """The real cards whose play asks again for the pick ``state`` waits for: 3s for a
    salvage or a zombie, Ks for a king's march (docs/RULES.md §5 #49–#51); 0 when no
    pick is waited for. Taken back, they could be led and taken back round and round."""
    waiting = state.waiting_for
    if waiting is SALVAGE:
        return rank_mask(SALVAGE_RANK)
    if waiting is KINGS_MARCH:
        return rank_mask(KINGS_MARCH_RANK)
    if waiting is ZOMBIE:
        return rank_mask(ZOMBIE_RANK)
    return 0


def any_lock(state: Position) -> bool:
    """Whether a suit, number, colour or partial lock is in force."""
    return bool(state.suit_lock or state.number_lock or state.color_lock)


def must_pass_at_leisure(state: Position) -> bool:
    """The previous 大富豪's first turn, which they must pass (docs/RULES.md §5 #54);
    where a lead may not be passed, a first turn that is a lead lapses the rule."""
    return (
        state.leisure_seat is not None
        and state.leisure_seat == state.turn
        and (state.field is not None or state.rules.leader_may_pass)
    )


def kyo_ochi_falls(state: Position, first: int) -> int | None:
    """The previous 富豪 who falls when ``first``, the previous 大富豪, has just
    finished 1st (docs/RULES.md §5 #53), or None."""
    previous = state.previous_places
    if not state.rules.kyo_ochi or previous is None or state.players < 4:
        return None
    if previous.index(1) != first or len(state.finished) != 1:
        return None
    fugo = previous.index(2)
    return fugo if state.is_active(fugo) else None


def is_eight_cut(state: Position, meld: Meld) -> bool:
    return cuts_eight(state.rules, state.in_force, meld)


def is_spade3_return(state: Position, meld: Meld) -> bool:
    field = state.field
    return (
        field is not None
        and field.is_single_joker
        and meld.size == 1
        and meld.mask == 1 << SPADE_3
        and rule_on(state, LocalRule.SPADE3_RETURN)
    )


def joker_returners(state: Position) -> int:
    """The cards that, played alone, beat a single joker by the spade-3 return
    (docs/RULES.md §3): the ♠3 while the rule is in force."""
    return 1 << SPADE_3 if LocalRule.SPADE3_RETURN in state.in_force else 0


def is_emperor(state: Position, meld: Meld) -> bool:
    return LocalRule.EMPEROR in state.in_force and (
        meld.kind == Kind.EMPEROR
        or (meld.kind == Kind.GROUP and meld.size == 4 and not meld.jokers)
    )


def is_sandstorm(state: Position, meld: Meld) -> bool:
    return LocalRule.SANDSTORM in state.in_force and group_of(meld, 3, RANK_3)


def is_great_revolution(state: Position, meld: Meld) -> bool:
    return rule_on(state, LocalRule.GREAT_REVOLUTION) and group_of(meld, 4, RANK_2)


def is_omen(state: Position, meld: Meld) -> bool:
    return rule_on(state, LocalRule.OMEN) and group_of(meld, 3, RANK_6)


def is_lucky_seven(state: Position, meld: Meld) -> bool:
    return rule_on(state, LocalRule.LUCKY_SEVEN) and group_of(meld, 3, RANK_7)


def revolution_cause(state: Position, meld: Meld) -> RevolutionCause | None:
    """Why this play revolts, or None. One play revolts at most once."""
    if state.omen:
        return None
    if meld.size < 3:
        # both jokers together, whatever they stand for (docs/RULES.md §5 #37)
        if meld.jokers == 2 == meld.size and rule_on(state, LocalRule.JOKER_REVOLUTION):
            return RevolutionCause.JOKER_REVOLUTION
        return None
    rules = state.rules
    if is_omen(state, meld):
        return RevolutionCause.OMEN
    if is_great_revolution(state, meld):
        return RevolutionCause.GREAT_REVOLUTION
    if is_emperor(state, meld):
        return RevolutionCause.EMPEROR
    if rule_on(state, LocalRule.COUP) and group_of(meld, 3, RANK_9):
        return RevolutionCause.COUP
    if rules.revolution:
        if meld.kind == Kind.GROUP and meld.size >= 4:
            return RevolutionCause.REVOLUTION
        revolts = rules.stairs_revolt and meld.size >= rules.stairs_revolt_from
        if meld.kind == Kind.STAIRS and revolts:
            return RevolutionCause.STAIRS_REVOLUTION
    if rule_on(state, LocalRule.NANASAN_REVOLUTION) and group_of(meld, 3, RANK_7):
        return RevolutionCause.NANASAN_REVOLUTION  # exactly three real 7s (§5 #36)
    return None


def flush_reason(
    state: Position, meld: Meld, in_force: frozenset[LocalRule] | None = None
) -> FlushReason | None:
    """Which flush effect this play has, in docs/RULES.md §5.5's order, or None;
    ``in_force``: the rules that apply to it (less an omen play's own)."""
    if is_eight_cut(state, meld):
        return FlushReason.EIGHT_CUT
    applying = state.in_force if in_force is None else in_force
    if not applying.isdisjoint(FURTHER_FLUSHES):
        further = further_flush(
            state.rules, applying, state.revolution, state.reversed_order, meld, state.field
        )
        if further is not None:
            return further
    size = meld.size
    if size == 1:
        return FlushReason.SPADE3_RETURN if is_spade3_return(state, meld) else None
    if size == 2:
        if group_of(meld, 2, RANK_9) and rule_on(state, LocalRule.AMBULANCE):
            return FlushReason.AMBULANCE
        if group_of(meld, 2, RANK_6) and rule_on(state, LocalRule.ROKUROKUBI):
            return FlushReason.ROKUROKUBI
    if size == 3 and is_sandstorm(state, meld):
        return FlushReason.SANDSTORM
    if size == 4 and is_emperor(state, meld):
        return FlushReason.EMPEROR
    return None


def starts_eleven_back(state: Position, meld: Meld) -> bool:
    """Whether a play of ``meld`` on ``state`` starts an eleven-back: a jack while
    none is in force (docs/RULES.md §3)."""
    return (
        rule_on(state, LocalRule.ELEVEN_BACK)
        and not state.eleven_back
        and meld.real_count(RANK_J) > 0
    )


def ends_eleven_back(state: Position, meld: Meld) -> bool:
    """Whether a play of ``meld`` on ``state`` ends the eleven-back in force: a six
    under six-return (docs/RULES.md §5 #42); a jack beside it starts none."""
    return (
        bool(state.eleven_back)
        and rule_on(state, LocalRule.SIX_RETURN)
        and meld.real_count(RANK_6) > 0
    )


def starts_two_back(state: Position, meld: Meld) -> bool:
    """Whether a play of ``meld`` on ``state`` starts a two-back: a real 2 while none
    is in force (docs/RULES.md §5 #43)."""
    return rule_on(state, LocalRule.TWO_BACK) and not state.two_back and meld.real_count(RANK_2) > 0


def starts_suit_lock(after: Position) -> bool:
    """Whether the play just made (``after``: the state with its run counted) starts
    a suit lock on the suits of its run (docs/RULES.md §1 Suit lock)."""
    rules = after.rules
    return bool(rules.suit_lock) and not after.suit_lock and after.suit_run >= rules.suit_lock_after


def starts_number_lock(after: Position) -> bool:
    """Whether the play just made (``after``: the state with its run counted) starts
    a number lock."""
    rules = after.rules
    return (
        bool(rules.number_lock)
        and not after.number_lock
        and after.number_run >= rules.number_lock_after
    )


def four_stop_applies(state: Position, meld: Meld) -> bool:
    return (
        rule_on(state, LocalRule.FOUR_STOP)
        and meld.kind == Kind.SINGLE
        and meld.real_count(RANK_8) == 1
        and is_eight_cut(state, meld)
    )


def is_four_stop_answer(meld: Meld) -> bool:
    return group_of(meld, FOUR_STOP_SIZE, FOUR_STOP_RANK)


def is_eight_cut_answer(meld: Meld, field: Meld | None) -> bool:
    """A single or group of real 8s only, of the pending cut's size (§5 #34)."""
    return (
        field is not None
        and meld.kind in (Kind.SINGLE, Kind.GROUP)
        and meld.size == field.size
        and meld.real_count(RANK_8) == meld.size
    )


def pickable(state: Position) -> int:
    """The cards a pick may take: the discard pile, less the cards a pick took
    before this game (marked, docs/RULES.md §5.6 #21) and the cards of the play
    that triggered it once they are in it (§5.1 Pick). The two jokers are one
    card to the masks, so they are counted: the pile's jokers less the marked
    and the triggering play's, never a marked joker again."""
    pile = remove_cards(state.pile, state.marked) if state.marked else state.pile
    last = state.last_play
    if state.field is None and last is not None:
        return remove_cards(pile, last.mask)
    return pile


def marked_in_pile(state: Position) -> int:
    """The discard pile's marked cards (docs/RULES.md §5.6 #21), as every view shows
    them: the pile less what a pick could take were no play triggering it (for
    jokers, as many of the pile's as were picked this game)."""
    return remove_cards(state.pile, remove_cards(state.pile, state.marked))


def is_forbidden_finish(state: Position, meld: Meld) -> bool:
    """Whether ``meld``, as a player's last cards, is a forbidden finish; judged
    under the state before the play (docs/RULES.md §2)."""
    return finishes_forbidden(
        state.rules,
        state.in_force,
        meld,
        revolution=state.revolution,
        spade3_return=is_spade3_return(state, meld),
    )


def holds_only_forbidden(state: Position, hand: int) -> bool:
    """Federation's forced forbidden finish: a leader holding nothing else."""
    top = RANK_3 if state.revolution else RANK_2
    forbidden = JOKER_BITS | rank_mask(top) | 1 << SPADE_3
    if rule_on(state, LocalRule.EIGHT_CUT):
        forbidden |= rank_mask(RANK_8)
    return hand != 0 and hand & ~forbidden == 0


def check_beats_field(state: Position, meld: Meld) -> None:
    """Refuse ``meld`` unless it may be played on the field now."""
    refusal = field_refusal(state, meld)
    if refusal is not None:
        raise Refused(*refusal)


def field_refusal(state: Position, meld: Meld) -> tuple[RefusalCode, str] | None:
    """Why ``meld`` may not be played on the field now, or None if it may."""
    field = state.field
    if field is None or is_sandstorm(state, meld) or is_emperor(state, meld):
        return None
    if field.is_single_joker:
        if is_spade3_return(state, meld):
            return None
        if joker_return(state.in_force, state.reversed_order, meld, field) is not None:
            return None
        return (RefusalCode.NOT_STRONGER, "only the spade-3 return may be played on a single joker")
    if meld.kind != field.kind or meld.size != field.size:
        return (RefusalCode.SHAPE_MISMATCH, f"the field needs {_shape(field)}")
    reversed_order = state.reversed_order
    if LocalRule.ASSASSINATION in state.in_force and is_assassination(
        state.in_force, reversed_order, meld, field
    ):
        return None  # under any lock (docs/RULES.md §5 #33)
    if state.suit_lock:
        if state.partial_lock:
            # each joker may stand for one missing locked suit (docs/RULES.md §5.6 #18)
            if (state.suit_lock & ~meld.suits).bit_count() > meld.jokers:
                return (
                    RefusalCode.SUIT_LOCKED,
                    "each play must hold every suit of the partial lock",
                )
        else:
            suits = lock_suits(meld) if state.rules.joker_suits else meld.suits
            if not suit_lock_admits(state.suit_lock, suits):
                return (RefusalCode.SUIT_LOCKED, "the field is locked to other suits")
    if state.color_lock and meld.suits & ~state.color_lock:
        return (RefusalCode.SUIT_LOCKED, "the field is locked to the other colour")
    if meld.kind == Kind.STAIRS and not state.rules.stairs_overlap:
        # above the field's whole span (below it in reversed order)
        if meld.high < field.low if reversed_order else meld.low > field.high:
            return None
        return (RefusalCode.NOT_STRONGER, "stairs must lie wholly above the field's")
    strength, to_beat = meld.strength(reversed_order), field.strength(reversed_order)
    if state.number_lock and meld.kind != Kind.STAIRS and not meld.is_single_joker:
        if not number_lock_admits(strength, to_beat):
            return (RefusalCode.NUMBER_LOCKED, "the field is locked to the next rank")
    if strength > to_beat or (
        LocalRule.DOWN_NUMBER in state.in_force and _is_down_number(meld, field, strength, to_beat)
    ):
        return None
    return (RefusalCode.NOT_STRONGER, "the play does not beat the field")


def suit_lock_admits(lock: int, suits: int) -> bool:
    """Whether a play whose real cards are of ``suits`` may follow a (whole) suit
    lock on ``lock`` (docs/RULES.md §2 suit lock): none of its suits lies outside."""
    return not suits & ~lock


def number_lock_admits(strength: int, to_beat: int) -> bool:
    """Whether a single or group of ``strength`` may follow one of ``to_beat`` under a
    number lock (docs/RULES.md §2 number lock): only the next rank up."""
    return strength == to_beat + 1


def _is_down_number(meld: Meld, field: Meld, strength: int, to_beat: int) -> bool:
    """A real single one weaker than the field's, of its suit (docs/RULES.md §3 #24)."""
    return (
        meld.kind == Kind.SINGLE == field.kind
        and not meld.jokers
        and not field.jokers
        and meld.suits == field.suits
        and meld.low != TOP_RANK
        and strength == to_beat - 1
    )


def _shape(field: Meld) -> str:
    names = {Kind.SINGLE: "a single", Kind.GROUP: f"a group of {field.size}",
             Kind.STAIRS: f"stairs of {field.size}", Kind.EMPEROR: "an emperor"}  # fmt: skip
    return names[field.kind]
