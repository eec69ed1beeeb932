"""Dealing a game from a deck order, who leads, and the card exchange plan
(docs/RULES.md §1 Seats and dealing, Who leads, Card exchange; §3 tenpenchi)."""

from __future__ import annotations

from collections import Counter
from typing import Final

from .cards import (
    DECK,
    JOKER,
    JOKER_BITS,
    RANK_J,
    REAL_CARDS,
    add_card,
    cards_of,
    rank_mask,
    rank_of,
)
from .melds import TOP_RANK
from .rulesets import RuleSet


def deck_for(rules: RuleSet) -> tuple[int, ...]:
    """The cards a game of ``rules`` is dealt from, in a fixed order."""
    return DECK[: 52 + rules.jokers]


def is_deck_order(rules: RuleSet, deck: tuple[int, ...]) -> bool:
    return len(deck) == 52 + rules.jokers and Counter(deck) == Counter(deck_for(rules))


def deal(
    rules: RuleSet,
    players: int,
    deck: tuple[int, ...],
    blind: int,
    round_order: tuple[int, ...] = (),
) -> tuple[tuple[int, ...], int, int]:
    """``(hands, blind, unused)`` dealt from ``deck``, one card at a time to the
    seats of ``round_order`` (seat order 0, 1… when empty).

    Federation with four players takes the blind cards off the top of the first
    deck of a set; later games leave the same cards out. Two players get 20 each.
    """
    cards = list(deck)
    if players == 4 and rules.blind_cards_with_four and not blind:
        for card in cards[: rules.blind_cards_with_four]:
            blind = add_card(blind, card)
        cards = cards[rules.blind_cards_with_four :]
    elif blind:
        cards = _without(cards, blind)
    unused = 0
    if players == 2 and rules.unused_with_two:
        for card in cards[len(cards) - rules.unused_with_two :]:
            unused = add_card(unused, card)
        cards = cards[: len(cards) - rules.unused_with_two]
    hands = [0] * players
    order = round_order or tuple(range(players))
    for index, card in enumerate(cards):
        seat = order[index % players]
        hands[seat] = add_card(hands[seat], card)
    return tuple(hands), blind, unused


def round_from(seating: tuple[int, ...], players: int, first: int) -> tuple[int, ...]:
    """The seats in turn order (``seating``, or 0, 1… when empty) from ``first``."""
    order = seating or tuple(range(players))
    start = order.index(first)
    return order[start:] + order[:start]


def is_seat_order(order: tuple[int, ...], players: int) -> bool:
    return sorted(order) == list(range(players)) if isinstance(order, tuple) else False


def _without(cards: list[int], removed: int) -> list[int]:
    jokers_left = (removed >> 52).bit_count()
    kept = []
    for card in cards:
        if card == JOKER and jokers_left:
            jokers_left -= 1
        elif card != JOKER and removed >> card & 1:
            continue
        else:
            kept.append(card)
    return kept


def first_leader(hands: tuple[int, ...]) -> int:
    """The holder of ♢3, else of the weakest dealt card (ties ♢ ♣ ♡ ♠)."""
    lowest_bits = [
        (hand & REAL_CARDS & -(hand & REAL_CARDS), seat) for seat, hand in enumerate(hands)
    ]
    held = [pair for pair in lowest_bits if pair[0]]
    return min(held)[1] if held else 0


def seat_at(places: tuple[int, ...], place: int) -> int | None:
    for seat, seat_place in enumerate(places):
        if seat_place == place:
            return seat
    return None


def exchange_pairs(places: tuple[int, ...]) -> list[tuple[int, int, int]]:
    """``(lower seat, upper seat, count)``: 大貧民↔大富豪 2, 貧民↔富豪 1 (4–5 players)."""
    players = len(places)
    pairs = []
    lowest, highest = seat_at(places, players), seat_at(places, 1)
    if lowest is not None and highest is not None:
        pairs.append((lowest, highest, 2))
    if players >= 4:
        low, high = seat_at(places, players - 1), seat_at(places, 2)
        if low is not None and high is not None:
            pairs.append((low, high, 1))
    return pairs


def exchange_steps(
    places: tuple[int, ...], hands: tuple[int, ...]
) -> tuple[tuple[int, int, int, bool], ...]:
    """The gives in order: 大貧民, 大富豪, 貧民, 富豪; True = must be strongest.

    A lower player short of the count gives all they hold, and the upper one
    gives back as many as they received, so no hand empties (docs/RULES.md §1). The
    pairs share no seat, so each lower hand is still as dealt when it gives."""
    steps: list[tuple[int, int, int, bool]] = []
    for lower, upper, count in exchange_pairs(places):
        given = min(count, hands[lower].bit_count())
        if given:
            steps += [(lower, upper, given, True), (upper, lower, given, False)]
    return tuple(steps)


# J Q K A 2 and jokers: a hand holding none of them swaps under tenpenchi
_TENPENCHI_HIGH: Final = JOKER_BITS | sum(rank_mask(rank) for rank in range(RANK_J, 13))


def tenpenchi_swaps(hands: tuple[int, ...], places: tuple[int, ...]) -> list[tuple[int, int]]:
    """Pairs ``(lower, upper)`` whose lower hand holds only ranks 3–T."""
    return [
        (lower, upper)
        for lower, upper, _ in exchange_pairs(places)
        if hands[lower] and not hands[lower] & _TENPENCHI_HIGH
    ]


# the automatic exchange's ties (docs/RULES.md §6): ♠ > ♡ > ♢ > ♣, by suit index D C H S
_TAKE_SUIT_ORDER: Final[tuple[int, ...]] = (1, 0, 2, 3)


def strongest_cards(hand: int, count: int, reversed_order: bool) -> int:
    """The ``count`` strongest cards of ``hand`` as the automatic exchange takes
    them: a joker first, ties ♠ > ♡ > ♢ > ♣."""

    def key(card: int) -> tuple[int, int]:
        if card == JOKER:
            return (TOP_RANK, 4)
        rank = rank_of(card)
        return (12 - rank if reversed_order else rank, _TAKE_SUIT_ORDER[card & 3])

    taken = sorted(cards_of(hand), key=key, reverse=True)[:count]
    mask = 0
    for card in taken:
        mask = add_card(mask, card)
    return mask


def are_strongest(hand: int, given: int, reversed_order: bool) -> bool:
    """Whether ``given`` are the strongest cards of ``hand``; a joker is the
    strongest, and which of equally strong cards is free (docs/RULES.md §1)."""

    def strengths(mask: int) -> list[int]:
        return sorted(
            TOP_RANK if card == JOKER else 12 - rank_of(card) if reversed_order else rank_of(card)
            for card in cards_of(mask)
        )

    held = strengths(hand)
    return strengths(given) == held[len(held) - given.bit_count() :]
