"""Melds: what a set of played cards is (single, group, stairs, emperor) and how
melds compare (docs/RULES.md §1 Melds, Beating the field; §3 #20).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import Final

from .cards import (
    HIGH_RANK,
    JOKER,
    LOW_RANK,
    REAL_CARDS,
    is_past_ends,
    joker_count,
    rank_count,
    rank_of,
    reading_card,
    reading_rank,
    suit_of,
)
from .memo import CLASSIFIED, remember

TOP_RANK: Final = 13  # what an all-joker meld counts as: stronger than any rank
MAX_STAIRS: Final = 13


class Kind(IntEnum):
    SINGLE = 1
    GROUP = 2
    STAIRS = 3
    EMPEROR = 4


@dataclass(frozen=True, slots=True, init=False)
class Meld:
    """One legal play. ``low``/``high`` are the ranks it spans (jokers read as
    ``jokers_as`` for stairs); ``suits`` is the suit set of its real cards."""

    kind: Kind
    mask: int
    size: int
    low: int
    high: int
    suits: int
    jokers: int
    jokers_as: tuple[int, ...] = ()

    # written out, so that mypyc compiles it (README.md, Speed)
    def __init__(
        self,
        kind: Kind,
        mask: int,
        size: int,
        low: int,
        high: int,
        suits: int,
        jokers: int,
        jokers_as: tuple[int, ...] = (),
    ) -> None:
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "mask", mask)
        object.__setattr__(self, "size", size)
        object.__setattr__(self, "low", low)
        object.__setattr__(self, "high", high)
        object.__setattr__(self, "suits", suits)
        object.__setattr__(self, "jokers", jokers)
        object.__setattr__(self, "jokers_as", jokers_as)

    def strength(self, reversed_order: bool) -> int:
        """Bigger is stronger. Stairs count by their weakest card; all jokers top."""
        if self.low == TOP_RANK:
            return TOP_RANK
        return 12 - self.high if reversed_order else self.low

    @property
    def is_single_joker(self) -> bool:
        return self.size == 1 and self.jokers == 1

    def real_count(self, rank: int) -> int:
        """How many real cards of ``rank`` the meld holds (jokers never count)."""
        return rank_count(self.mask, rank)


def rank_strength(rank: int, reversed_order: bool) -> int:
    """A rank's strength in the order in force, as ``Meld.strength`` counts a single
    or group of it: bigger is stronger, a joker (TOP_RANK) the strongest either way."""
    if rank == TOP_RANK:
        return TOP_RANK
    return 12 - rank if reversed_order else rank


def ranks_in(mask: int) -> list[tuple[int, int]]:
    """``(rank, suit set)`` for every rank with a real card in ``mask``."""
    found = []
    real = mask & REAL_CARDS
    rank = 0
    while real:
        suits = real & 15
        if suits:
            found.append((rank, suits))
        real >>= 4
        rank += 1
    return found


def classify(
    mask: int,
    jokers_as: tuple[int, ...],
    *,
    reversed_order: bool,
    stairs_allowed: bool = False,
    emperor_allowed: bool = False,
    past_ends: bool = False,
    joker_suits: bool = False,
) -> Meld | None:
    """The meld ``mask`` forms, or None when it forms none (``invalid_meld``).

    ``jokers_as`` says what each joker stands for, in order; empty means the
    default reading. ``reversed_order`` is the order in force, which picks the
    default end a stairs joker extends. With ``past_ends`` a stairs joker may
    stand below the 3 or above the 2; with ``joker_suits`` a group joker's
    reading is a suit the group lacks (docs/RULES.md §6). Memoised: the answer
    depends on the arguments alone, and games meet the same plays again and again.
    """
    key = (mask, jokers_as, reversed_order, stairs_allowed, emperor_allowed, past_ends, joker_suits)
    try:
        return CLASSIFIED[key]
    except KeyError:
        return remember(CLASSIFIED, key, _classify(*key))


def _classify(
    mask: int,
    jokers_as: tuple[int, ...],
    reversed_order: bool,
    stairs_allowed: bool,
    emperor_allowed: bool,
    past_ends: bool,
    joker_suits: bool,
) -> Meld | None:
    jokers = joker_count(mask)
    size = (mask & REAL_CARDS).bit_count() + jokers
    if size == 0 or (jokers_as and len(jokers_as) != jokers):
        return None
    present = ranks_in(mask)
    if not present:
        if jokers_as:
            return None
        kind = Kind.SINGLE if size == 1 else Kind.GROUP
        return Meld(kind, mask, size, TOP_RANK, TOP_RANK, 0, jokers)
    if len(present) == 1:
        rank, suits = present[0]
        if any(card >= JOKER or rank_of(card) != rank for card in jokers_as):
            return None
        if joker_suits and jokers_as and suits != 15:
            read = 0
            for card in jokers_as:
                read |= 1 << suit_of(card)
            if read & suits or read.bit_count() != len(jokers_as):
                return None
        kind = Kind.SINGLE if size == 1 else Kind.GROUP
        return Meld(kind, mask, size, rank, rank, suits, jokers, jokers_as)
    if emperor_allowed and jokers == 0 and size == 4:
        emperor = _emperor(mask, present)
        if emperor is not None:
            return emperor
    if not stairs_allowed:
        return None
    return _stairs(mask, present, size, jokers, jokers_as, reversed_order, past_ends)


def _emperor(mask: int, present: list[tuple[int, int]]) -> Meld | None:
    ranks = [rank for rank, _ in present]
    suits = 0
    for _, suit_set in present:
        if suit_set & (suit_set - 1) or suits & suit_set:
            return None
        suits |= suit_set
    if suits != 15 or ranks[-1] - ranks[0] != 3:
        return None
    return Meld(Kind.EMPEROR, mask, 4, ranks[0], ranks[-1], suits, 0)


def _stairs(
    mask: int,
    present: list[tuple[int, int]],
    size: int,
    jokers: int,
    jokers_as: tuple[int, ...],
    reversed_order: bool,
    past_ends: bool,
) -> Meld | None:
    suit_set = present[0][1]
    if size < 3 or size > MAX_STAIRS or suit_set & (suit_set - 1):
        return None
    if any(suits != suit_set for _, suits in present):
        return None
    low, high = present[0][0], present[-1][0]
    if high - low + 1 > size:
        return None
    if jokers_as:
        suit = suit_set.bit_length() - 1
        ranks = {rank for rank, _ in present}
        for card in jokers_as:
            if card == JOKER or suit_of(card) != suit or reading_rank(card) in ranks:
                return None
            if is_past_ends(card) and not past_ends:
                return None
            ranks.add(reading_rank(card))
        low, high = min(ranks), max(ranks)
        if high - low + 1 != size:
            return None
        return Meld(Kind.STAIRS, mask, size, low, high, suit_set, jokers, jokers_as)
    low = default_stairs_low(low, high, size, reversed_order, past_ends)
    filled = _joker_cards(present, low, size, suit_set)
    return Meld(Kind.STAIRS, mask, size, low, low + size - 1, suit_set, jokers, filled)


def default_stairs_low(
    low: int, high: int, size: int, reversed_order: bool, past_ends: bool = False
) -> int:
    """Where default stairs start: gaps first, then the end that is strongest
    under the order in force (docs/RULES.md §1 Melds), past the 3 or the 2 where
    ``past_ends`` allows."""
    extra = size - (high - low + 1)
    bottom, top = (LOW_RANK, HIGH_RANK) if past_ends else (0, 12)
    if reversed_order:
        return max(bottom, low - extra)
    return low - max(0, extra - (top - high))


def _joker_cards(
    present: list[tuple[int, int]], low: int, size: int, suit_set: int
) -> tuple[int, ...]:
    suit = suit_set.bit_length() - 1
    held = {rank for rank, _ in present}
    return tuple(reading_card(rank, suit) for rank in range(low, low + size) if rank not in held)
