"""Legal actions for the seat the game waits for: every action ``decide`` accepts
(complete), and only those (sound). Joker readings that differ in effect are
separate actions; readings that do not (which suit a group joker stands for)
are one. Bots, hints, turn timers and the auditor all use this."""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations, permutations
from typing import Final

from .cards import (
    JOKER,
    JOKER_MASK_BY_COUNT,
    RANK_4,
    RANK_8,
    REAL_CARDS,
    cards_of,
    joker_count,
    make_card,
    mask_of,
    rank_of,
    rank_suits,
    reading_card,
)
from .commands import Bomb, Discard, Give, Pass, Pick, Play, SeatCommand
from .judging import (
    field_refusal,
    is_sandstorm,
    must_pass_at_leisure,
    pickable,
)
from .melds import TOP_RANK, Kind, Meld
from .memo import PLAYS_BY_MASK, PLAYS_WITH_READING, RANK_GROUPS, SUIT_STAIRS, remember
from .state import MatchState
from .vocabulary import (
    EIGHT_CUT_RETURN,
    EXCHANGE,
    FOUR_STOP,
    IN_GAME,
    KING_PASTOR,
    PICKS,
    PLAY,
    QUEEN_BOMBER,
    SEVEN_PASS,
    TEN_DISCARD,
    LocalRule,
)

# every non-empty subset of a 4-bit suit set
_SUBSETS: Final = [[sub for sub in range(1, 16) if sub & suits == sub] for suits in range(16)]
# and those of each size: the answer windows ask for a pair of 4s or the cut's 8s
_SUBSETS_BY_SIZE: Final = [
    [[sub for sub in _SUBSETS[suits] if sub.bit_count() == size] for size in range(5)]
    for suits in range(16)
]
_D3: Final = 1


def legal_actions(state: MatchState) -> list[SeatCommand]:
    """Every action the seat to act may take now (empty when nobody may act)."""
    if state.phase is not IN_GAME or state.turn is None:
        return []
    seat = state.turn
    hand = state.hands[seat]
    waiting = state.waiting_for
    if waiting is PLAY:
        if state.leisure_seat is not None and must_pass_at_leisure(state):
            return [_PASSES[seat]]
        plays: list[SeatCommand] = [_play(seat, m) for m in legal_melds(state)]
        if state.field is not None or state.rules.leader_may_pass:
            plays.append(_PASSES[seat])
        return plays
    if waiting is FOUR_STOP or waiting is EIGHT_CUT_RETURN:
        answers: list[SeatCommand] = [Pass(seat)]
        fours = rank_suits(hand, RANK_4)
        eights = rank_suits(hand, RANK_8)
        size = state.field.size if state.field is not None else 0
        if waiting is FOUR_STOP:
            answers += [Play(seat, p << RANK_4 * 4) for p in _SUBSETS_BY_SIZE[fours][2]]
        if LocalRule.EIGHT_CUT_RETURN in state.in_force and size <= 4:
            # real 8s of the pending cut's size (docs/RULES.md §5 #34)
            answers += [Play(seat, e << RANK_8 * 4) for e in _SUBSETS_BY_SIZE[eights][size]]
        return answers
    if waiting in PICKS:
        return [Pick(seat, p) for p in _pick_choices(pickable(state), state.pending[0][1])]
    if waiting is KING_PASTOR:
        return [Give(seat, g) for g in _card_choices(hand, 1)]
    if waiting is EXCHANGE:
        _, _, count, strongest = state.exchange_steps[0]
        if strongest:
            return [Give(seat, g) for g in _strongest_choices(hand, count, state.reversed_order)]
        return [Give(seat, g) for g in _card_choices(hand, count)]
    count = state.pending[0][1]
    if waiting is SEVEN_PASS:
        return [Give(seat, g) for g in _card_choices(hand, count)]
    if waiting is TEN_DISCARD:
        return [Discard(seat, d) for d in _card_choices(hand, count)]
    if waiting is QUEEN_BOMBER:
        return [Bomb(seat, ranks) for ranks in combinations(range(13), count)]
    return []


_PASSES: Final = tuple(Pass(seat) for seat in range(5))
# Play commands are values: each is built once (memo.PLAYS_BY_MASK, PLAYS_WITH_READING).


def _play(seat: int, meld: Meld) -> Play:
    if not meld.jokers_as:
        plays = PLAYS_BY_MASK[seat]
        play = plays.get(meld.mask)
        if play is None:
            play = remember(plays, meld.mask, Play(seat, meld.mask))
        return play
    key = (seat, meld.mask, meld.jokers_as)
    play = PLAYS_WITH_READING.get(key)
    if play is None:
        play = remember(PLAYS_WITH_READING, key, Play(seat, meld.mask, meld.jokers_as))
    return play


def _pick_choices(pile: int, count: int) -> list[int]:
    """Every distinct set of up to ``count`` cards of ``pile``, none included."""
    choices = {0}
    for take in range(1, count + 1):
        choices.update(_card_choices(pile, take))
    return sorted(choices)


def _card_choices(hand: int, count: int) -> list[int]:
    """Every distinct set of ``min(count, hand size)`` cards of ``hand``."""
    cards = cards_of(hand)
    take = min(count, len(cards))
    choices = set()
    for chosen in combinations(cards, take):
        mask = 0
        for card in chosen:
            mask |= 1 << card if card != JOKER else 0
        choices.add(mask | JOKER_MASK_BY_COUNT[chosen.count(JOKER)])
    return sorted(choices)


def _strongest_choices(hand: int, count: int, reversed_order: bool) -> list[int]:
    """Every distinct way to pick the ``count`` strongest cards (ties are free)."""

    def strength(card: int) -> int:
        if card == JOKER:
            return TOP_RANK
        return 12 - rank_of(card) if reversed_order else rank_of(card)

    cards = sorted(cards_of(hand), key=strength, reverse=True)
    take = min(count, len(cards))
    if take == 0:
        return [0]
    threshold = strength(cards[take - 1])
    above = [card for card in cards if strength(card) > threshold]
    tied = [card for card in cards if strength(card) == threshold]
    choices = {mask_of((*above, *chosen)) for chosen in combinations(tied, take - len(above))}
    return sorted(choices)


def legal_melds(state: MatchState) -> list[Meld]:
    """Every meld the seat to act may play now."""
    seat = state.turn
    if seat is None:
        return []
    hand = state.hands[seat]
    field = state.field
    candidates = _candidates(state, hand, field)
    if field is None:
        if state.first_play_d3 and hand & _D3:
            return [m for m in candidates if m.mask & _D3]
        return candidates
    return [m for m in candidates if field_refusal(state, m) is None]


def _candidates(state: MatchState, hand: int, field: Meld | None) -> list[Meld]:
    """Melds worth checking against the field: its shape, plus those that may be
    played on any field (sandstorm, emperor, the spade-3 return)."""
    jokers = joker_count(hand)
    emperor_on = LocalRule.EMPEROR in state.in_force
    rules = state.rules
    suited, past_ends = rules.joker_suits, rules.stairs_past_ends
    if field is None:
        melds = _groups(hand, jokers, None, suited=suited)
        if rules.stairs:
            melds += _stairs(hand, jokers, None, past_ends)
        if emperor_on:
            melds += _emperors(hand)
        return melds
    size = field.size
    # melds that may be played on any field, whatever ranks the shape let through
    anywhere: list[Meld] = []
    if field.is_single_joker:
        melds = _groups(hand, jokers, 1)
        if LocalRule.TRIPLE_THREE_RETURN in state.in_force:
            anywhere += [m for m in _groups(hand, 0, 3, range(1)) if m.real_count(0) == 3]
    elif field.kind == Kind.STAIRS:
        melds = _stairs(hand, jokers, size, past_ends) if rules.stairs else []
    else:
        melds = _groups(hand, jokers, size, _ranks_that_may_follow(state, field), suited)
        if size == 1 and LocalRule.ASSASSINATION in state.in_force:
            weakest = 12 if state.reversed_order else 0  # the 2 reversed, else the 3
            anywhere += _groups(hand, 0, 1, range(weakest, weakest + 1))
    if emperor_on:
        anywhere += _emperors(hand) + _groups(hand, 0, 4)
    if LocalRule.SANDSTORM in state.in_force:
        anywhere += [m for m in _groups(hand, 0, 3) if is_sandstorm(state, m)]
    if anywhere:
        listed = {m.mask for m in melds}
        for meld in anywhere:
            if meld.mask not in listed:
                listed.add(meld.mask)
                melds.append(meld)
    return melds


def _ranks_that_may_follow(state: MatchState, field: Meld) -> range:
    """Ranks a single or group on ``field`` could have: stronger, or one weaker
    for the down number. A cheap first cut; ``field_refusal`` still judges."""
    reversed_order = state.reversed_order
    to_beat = field.strength(reversed_order)
    reach = (
        2 if LocalRule.DOWN_NUMBER in state.in_force else 0
    )  # one weaker is two below one stronger
    if reversed_order:  # strength 12 - rank
        return range(0, min(13, max(0, 12 - to_beat + reach)))
    return range(max(0, to_beat + 1 - reach), 13)


def _groups(
    hand: int, jokers: int, size: int | None, ranks: range = range(13), suited: bool = False
) -> list[Meld]:
    """Singles and groups of ``size`` cards (any size when None) of ``ranks``;
    ``suited``: also each suit a group's jokers may stand for (docs/RULES.md §6)."""
    melds: list[Meld] = []
    wanted = size or 0
    for rank in ranks:
        suits = hand >> rank * 4 & 15
        if suits:
            melds += _rank_groups(rank, suits, jokers, wanted, suited)
    for used in range(1, jokers + 1):
        if wanted in (0, used):
            melds.append(_all_jokers(used))
    return melds


def _memoised(
    memo: dict[tuple[int, ...], list[Meld]], key: tuple[int, ...], make: Callable[[], list[Meld]]
) -> list[Meld]:
    """Melds depend on a rank's (or a suit's) cards alone, and those patterns
    repeat across hands: compute each once. Bounded, as keys may grow."""
    melds = memo.get(key)
    if melds is None:
        melds = remember(memo, key, make())
    return melds


def _rank_groups(rank: int, suits: int, jokers: int, size: int, suited: bool) -> list[Meld]:
    """Groups of one rank from ``suits`` and up to ``jokers`` jokers (size 0: any).
    ``suited``: with the jokers unread too, each set of suits they may stand for
    apart (those suits show to a lock)."""

    def make() -> list[Meld]:
        melds = []
        for subset in _SUBSETS[suits]:
            real = subset.bit_count()
            for used in range(jokers + 1):
                total = real + used
                if size in (0, total):
                    kind = Kind.SINGLE if total == 1 else Kind.GROUP
                    mask = subset << rank * 4 | JOKER_MASK_BY_COUNT[used]
                    melds.append(Meld(kind, mask, total, rank, rank, subset, used))
                    if suited and used and subset != 15:
                        missing = [suit for suit in range(4) if not subset >> suit & 1]
                        for read in combinations(missing, used):
                            readings = tuple(make_card(rank, suit) for suit in read)
                            melds.append(
                                Meld(kind, mask, total, rank, rank, subset, used, readings)
                            )
        return melds

    return _memoised(RANK_GROUPS, (rank, suits, jokers, size, suited), make)


_JOKER_MELDS: Final = {
    used: Meld(Kind.SINGLE if used == 1 else Kind.GROUP, JOKER_MASK_BY_COUNT[used], used,
               TOP_RANK, TOP_RANK, 0, used)
    for used in (1, 2)
}  # fmt: skip


def _all_jokers(used: int) -> Meld:
    return _JOKER_MELDS[used]


_EVERY_FOURTH_BIT: Final = int("1" * 13, 16)


def suit_ranks(hand: int, suit: int) -> int:
    """The ranks of ``suit`` held, as 13 bits. The suit's bits sit every fourth
    bit of the hand; read as hex they are the digits 0/1, which read as binary
    are the ranks packed together."""
    return int(format(hand >> suit & _EVERY_FOURTH_BIT, "x"), 2)


def _stairs(hand: int, jokers: int, size: int | None, past_ends: bool = False) -> list[Meld]:
    """Stairs of ``size`` (any size when None), every joker reading apart;
    ``past_ends``: a joker may also stand below the 3 or above the 2."""
    melds: list[Meld] = []
    shortest = size or 3
    for suit in range(4):
        ranks = suit_ranks(hand, suit)
        if ranks.bit_count() >= 2 and ranks.bit_count() + jokers >= shortest:
            melds += _suit_stairs(suit, ranks, jokers, size or 0, past_ends)
    return melds


def _suit_stairs(suit: int, ranks: int, jokers: int, size: int, past_ends: bool) -> list[Meld]:
    lowest, top = (-1, 13) if past_ends else (0, 12)

    def make() -> list[Meld]:
        melds = []
        shifted = ranks << 1  # bit r + 1 is rank r, so a span may start at -1
        longest = min(13, ranks.bit_count() + jokers)
        for length in range(3, longest + 1) if size == 0 else (size,):
            for low in range(lowest, top - length + 2):
                held = shifted >> (low + 1) & ((1 << length) - 1)
                missing = length - held.bit_count()
                if missing <= jokers:
                    melds += _stairs_in_span(held, low, length, suit, jokers - missing)
        return melds

    return _memoised(SUIT_STAIRS, (suit, ranks, jokers, size, past_ends), make)


def _stairs_in_span(held: int, low: int, length: int, suit: int, spare: int) -> list[Meld]:
    """Stairs over ranks low..low+length-1 from the ``held`` ranks, leaving out up
    to ``spare`` held cards for jokers to stand for instead."""
    held_ranks = [low + offset for offset in range(length) if held >> offset & 1]
    melds = []
    for leave_out in range(min(spare, len(held_ranks)) + 1):
        for left in combinations(held_ranks, leave_out):
            used = [rank for rank in held_ranks if rank not in left]
            if len(used) < 2:
                continue
            jokers = length - len(used)
            mask = JOKER_MASK_BY_COUNT[jokers]
            for rank in used:
                mask |= 1 << make_card(rank, suit)
            readings = tuple(
                reading_card(rank, suit) for rank in range(low, low + length) if rank not in used
            )
            melds.append(Meld(Kind.STAIRS, mask, length, low, low + length - 1,
                              1 << suit, jokers, readings))  # fmt: skip
    return melds


def _emperors(hand: int) -> list[Meld]:
    """Four consecutive ranks in four different suits (jokers never count)."""
    melds = []
    for low in range(10):
        if any(not rank_suits(hand, rank) for rank in range(low, low + 4)):
            continue
        for suits in permutations(range(4)):
            cards = [make_card(low + offset, suit) for offset, suit in enumerate(suits)]
            if all(hand >> card & 1 for card in cards):
                mask = sum(1 << card for card in cards)
                melds.append(Meld(Kind.EMPEROR, mask & REAL_CARDS, 4, low, low + 3, 15, 0))
    return melds


def timeout_action(state: MatchState) -> SeatCommand | None:
    """What the service does for a seat whose time ran out: pass where a pass
    is legal, else the weakest legal single (a leader), else the first legal
    action in the engine's order, which gives and discards the weakest cards."""
    actions = legal_actions(state)
    if not actions:
        return None
    for action in actions:
        if isinstance(action, Pass):
            return action
    reversed_order = state.reversed_order
    singles = [
        action
        for action in actions
        if isinstance(action, Play) and action.cards.bit_count() == 1 and not action.jokers_as
    ]
    if singles:
        return min(singles, key=lambda play: _single_strength(play.cards, reversed_order))
    return actions[0]


def _single_strength(mask: int, reversed_order: bool) -> int:
    if mask & REAL_CARDS == 0:
        return TOP_RANK
    rank = rank_of(mask.bit_length() - 1)
    return 12 - rank if reversed_order else rank
