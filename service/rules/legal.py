"""Legal actions for the seat the game waits for: every action ``decide`` accepts
(complete), and only those (sound). Joker readings that differ in effect are
separate actions; readings that do not (which suit a group joker stands for)
are one. Bots, hints, turn timers and the auditor all use this."""

from __future__ import annotations

from itertools import combinations, permutations

from .cards import (
    JOKER,
    JOKER_MASK_BY_COUNT,
    REAL_CARDS,
    cards_of,
    joker_count,
    make_card,
    rank_suits,
)
from .commands import Bomb, Discard, Give, Pass, Play, SeatCommand
from .dealing import are_strongest
from .judging import RANK_4, field_refusal, is_sandstorm, rule_on
from .melds import TOP_RANK, Kind, Meld
from .state import (
    EXCHANGE,
    FOUR_STOP,
    IN_GAME,
    PLAY,
    QUEEN_BOMBER,
    SEVEN_PASS,
    TEN_DISCARD,
    MatchState,
)

# every non-empty subset of a 4-bit suit set
_SUBSETS = [[sub for sub in range(1, 16) if sub & suits == sub] for suits in range(16)]
_D3 = 1


def legal_actions(state: MatchState) -> list[SeatCommand]:
    """Every action the seat to act may take now (empty when nobody may act)."""
    if state.phase != IN_GAME or state.turn is None:
        return []
    seat = state.turn
    hand = state.hands[seat]
    waiting = state.waiting_for
    if waiting == PLAY:
        plays: list[SeatCommand] = [Play(seat, m.mask, m.jokers_as) for m in legal_melds(state)]
        if state.field is not None:
            plays.append(Pass(seat))
        return plays
    if waiting == FOUR_STOP:
        answers: list[SeatCommand] = [Pass(seat)]
        fours = rank_suits(hand, RANK_4)
        for pair in _SUBSETS[fours]:
            if pair.bit_count() == 2:
                answers.append(Play(seat, pair << RANK_4 * 4))
        return answers
    if waiting == EXCHANGE:
        _, _, count, strongest = state.exchange_steps[0]
        gives = _card_choices(hand, count)
        if strongest:
            gives = [g for g in gives if are_strongest(hand, g, state.reversed_order)]
        return [Give(seat, g) for g in gives]
    count = state.pending[0][1]
    if waiting == SEVEN_PASS:
        return [Give(seat, g) for g in _card_choices(hand, count)]
    if waiting == TEN_DISCARD:
        return [Discard(seat, d) for d in _card_choices(hand, count)]
    if waiting == QUEEN_BOMBER:
        return [Bomb(seat, ranks) for ranks in combinations(range(13), count)]
    return []


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
    emperor_on = rule_on(state, "emperor")
    if field is None:
        melds = _groups(hand, jokers, None)
        if state.rules.stairs:
            melds += _stairs(hand, jokers, None)
        if emperor_on:
            melds += _emperors(hand)
        return melds
    size = field.size
    if field.is_single_joker:
        melds = _groups(hand, jokers, 1)
    elif field.kind == Kind.STAIRS:
        melds = _stairs(hand, jokers, size) if state.rules.stairs else []
    else:
        melds = _groups(hand, jokers, size) if field.kind != Kind.EMPEROR else []
    if emperor_on:
        melds += _emperors(hand)
        if size != 4 or field.kind != Kind.GROUP:
            melds += [m for m in _groups(hand, 0, 4) if m.size == 4]
    if rule_on(state, "sandstorm") and (size != 3 or field.kind != Kind.GROUP):
        melds += [m for m in _groups(hand, 0, 3) if is_sandstorm(state, m)]
    return melds


_GROUP_CACHE: dict[int, Meld] = {}


def _group(mask: int, rank: int, suits: int, jokers: int) -> Meld:
    meld = _GROUP_CACHE.get(mask)
    if meld is None:
        size = suits.bit_count() + jokers
        kind = Kind.SINGLE if size == 1 else Kind.GROUP
        meld = Meld(kind, mask, size, rank, rank, suits, jokers)
        _GROUP_CACHE[mask] = meld
    return meld


def _groups(hand: int, jokers: int, size: int | None) -> list[Meld]:
    """Singles and groups of ``size`` cards (any size when None)."""
    melds = []
    for rank in range(13):
        suits = rank_suits(hand, rank)
        if not suits:
            continue
        for subset in _SUBSETS[suits]:
            real = subset.bit_count()
            for used in range(jokers + 1):
                if size is None or real + used == size:
                    mask = subset << rank * 4 | JOKER_MASK_BY_COUNT[used]
                    melds.append(_group(mask, rank, subset, used))
    for used in range(1, jokers + 1):
        if size is None or used == size:
            melds.append(_group(JOKER_MASK_BY_COUNT[used], TOP_RANK, 0, used))
    return melds


def _stairs(hand: int, jokers: int, size: int | None) -> list[Meld]:
    """Stairs of ``size`` (any size when None), every joker reading apart."""
    melds = []
    for suit in range(4):
        ranks = 0
        for rank in range(13):
            if hand >> (rank * 4 + suit) & 1:
                ranks |= 1 << rank
        longest = min(13, ranks.bit_count() + jokers)
        lengths = range(3, longest + 1) if size is None else (size,) if size <= longest else ()
        for length in lengths:
            for low in range(14 - length):
                held = ranks >> low & ((1 << length) - 1)
                missing = length - held.bit_count()
                if missing > jokers:
                    continue
                melds += _stairs_in_span(held, low, length, suit, jokers - missing)
    return melds


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
                make_card(rank, suit) for rank in range(low, low + length) if rank not in used
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
