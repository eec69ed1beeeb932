"""How each preset reads the rules it shares, judged from the rules and the
meld alone (no match state): the engine's judging and the bots, which see only
a view, use the same readings (docs/RULES.md §2)."""

from __future__ import annotations

from typing import Final

from .cards import (
    RANK_2,
    RANK_3,
    RANK_5,
    RANK_6,
    RANK_7,
    RANK_8,
    RANK_J,
    SUIT_S,
    make_card,
)
from .melds import Kind, Meld
from .rulesets import RuleSet
from .vocabulary import Color, FlushReason, LocalRule

SPADE_3: Final = make_card(RANK_3, SUIT_S)
SPADE_2: Final = make_card(RANK_2, SUIT_S)
# the cuts in revolution (docs/RULES.md §5 #27 to #29): the eight-cut's reading, another rank
X_CUTS: Final[tuple[tuple[LocalRule, int], ...]] = (
    (LocalRule.FIVE_CUT, RANK_5),
    (LocalRule.SIX_CUT, RANK_6),
    (LocalRule.SEVEN_CUT, RANK_7),
)
FURTHER_FLUSHES: Final = frozenset(
    (LocalRule.FIVE_CUT, LocalRule.SIX_CUT, LocalRule.SEVEN_CUT, LocalRule.SPADE2_RETURN,
     LocalRule.TRIPLE_THREE_RETURN, LocalRule.ASSASSINATION)
)  # fmt: skip


def group_of(meld: Meld, size: int, rank: int) -> bool:
    """A group of exactly ``size`` real cards of ``rank`` (jokers never count)."""
    return meld.kind == Kind.GROUP and meld.size == size and meld.real_count(rank) == size


def leisure_seat(rules: RuleSet, previous_places: tuple[int, ...] | None) -> int | None:
    """The previous 大富豪, who must pass on their first turn (docs/RULES.md §5 #54)."""
    if not rules.daifugo_leisure or previous_places is None:
        return None
    return previous_places.index(1) if 1 in previous_places else None


RED: Final = 0b0101  # ♢♡ and ♣♠ as suit bits (D C H S)
BLACK: Final = 0b1010
COLORS: Final = {RED: Color.RED, BLACK: Color.BLACK}


def color_of(suits: int) -> int:
    """The colour (its suits) of a joker-free play's suit set, 0 when mixed."""
    if suits and not suits & ~RED:
        return RED
    if suits and not suits & ~BLACK:
        return BLACK
    return 0


def lock_starting(recent: tuple[int, ...], count: int) -> tuple[int, int]:
    """The colour lock and partial lock the last ``count`` plays of the trick
    start (docs/RULES.md §5 #38, #39): (colour suits or 0, shared suits or 0). A
    play holding a joker (-1) starts neither; sets all alike start the suit
    lock, not a partial one."""
    if len(recent) < count:
        return 0, 0
    window = recent[-count:]
    if -1 in window:
        return 0, 0
    colors = {color_of(suits) for suits in window}
    color = colors.pop() if len(colors) == 1 else 0
    shared = -1
    for suits in window:
        shared &= suits
    partial = shared if shared and len(set(window)) > 1 else 0
    return color, partial


def lock_suits(meld: Meld) -> int:
    """The suits a play shows to a lock where a joker counts as the suit it
    stands for (docs/RULES.md §6): its real cards' and its joker readings'."""
    suits = meld.suits
    for card in meld.jokers_as:
        suits |= 1 << (card & 3)
    return suits


def cuts_eight(rules: RuleSet, in_force: frozenset[LocalRule], meld: Meld) -> bool:
    """The eight-cut in each preset's reading (docs/RULES.md §2), from the rules
    alone: bots, which see a view and not the state, judge with it too."""
    if LocalRule.EIGHT_CUT not in in_force:
        return False
    return cuts_as(rules, meld, RANK_8)


def cuts_as(rules: RuleSet, meld: Meld, rank: int) -> bool:
    """Whether ``meld`` cuts by the preset's eight-cut reading with ``rank`` in
    place of 8 (docs/RULES.md §2; §5 #27 to #29 read the other ranks the same way)."""
    real = meld.real_count(rank)
    reading = rules.eight_cut_reading
    if reading == "uecda":
        # a real card, or stairs whose span (a joker included) holds the rank
        return bool(real) or (meld.kind == Kind.STAIRS and meld.low <= rank <= meld.high)
    if not real:
        return False
    if reading == "federation":
        return meld.kind in (Kind.SINGLE, Kind.GROUP) and real + meld.jokers == meld.size
    if reading == "torasobi":
        return meld.kind != Kind.STAIRS
    return True


def joker_return(
    in_force: frozenset[LocalRule], reversed_order: bool, meld: Meld, field: Meld | None
) -> LocalRule | None:
    """Which of §5's plays onto a single joker ``meld`` is (#30 to #32), or None."""
    if field is None or not field.is_single_joker:
        return None
    if LocalRule.SPADE2_RETURN in in_force and reversed_order and meld.mask == 1 << SPADE_2:
        return LocalRule.SPADE2_RETURN
    if LocalRule.TRIPLE_THREE_RETURN in in_force and group_of(meld, 3, RANK_3):
        return LocalRule.TRIPLE_THREE_RETURN
    if LocalRule.JOKER_RETURN in in_force and meld.is_single_joker:
        return LocalRule.JOKER_RETURN
    return None


def is_assassination(
    in_force: frozenset[LocalRule], reversed_order: bool, meld: Meld, field: Meld | None
) -> bool:
    """A real single of the weakest rank on a real single of the strongest, in
    the order in force (docs/RULES.md §5 #33)."""
    if LocalRule.ASSASSINATION not in in_force or field is None:
        return False
    if meld.kind != Kind.SINGLE or field.kind != Kind.SINGLE or meld.jokers or field.jokers:
        return False
    weakest, strongest = (RANK_2, RANK_3) if reversed_order else (RANK_3, RANK_2)
    return meld.low == weakest and field.low == strongest


def further_flush(
    rules: RuleSet,
    in_force: frozenset[LocalRule],
    revolution: bool,
    reversed_order: bool,
    meld: Meld,
    field: Meld | None,
) -> FlushReason | None:
    """The flush effect of §5 a play has (#27 to #31, #33), in §5.5's order,
    judged under the state before it, or None."""
    if in_force.isdisjoint(FURTHER_FLUSHES):
        return None
    if revolution:
        for rule, rank in X_CUTS:
            if rule in in_force and cuts_as(rules, meld, rank):
                return FlushReason(rule)
    returned = joker_return(in_force, reversed_order, meld, field)
    if returned is not None and returned is not LocalRule.JOKER_RETURN:
        return FlushReason(returned)
    if is_assassination(in_force, reversed_order, meld, field):
        return FlushReason.ASSASSINATION
    return None


def finishes_forbidden(
    rules: RuleSet,
    in_force: frozenset[LocalRule],
    meld: Meld,
    *,
    revolution: bool,
    spade3_return: bool,
) -> bool:
    """The forbidden finish in each preset's reading, from the facts it needs."""
    if not rules.forbidden_finish:
        return False
    top = RANK_3 if revolution else RANK_2
    if rules.forbidden_reading == "federation":
        return bool(
            meld.real_count(top)
            or meld.jokers
            or cuts_eight(rules, in_force, meld)
            or meld.mask == 1 << SPADE_3
        )
    if rules.forbidden_reading == "classic":
        return bool(meld.real_count(top) or meld.real_count(RANK_8) or meld.jokers or spade3_return)
    if meld.size != 1:
        return False
    if meld.jokers:
        return True
    rank = meld.low
    return rank in (RANK_8, top) or (rank == RANK_J and bool(rules.eleven_back))
