"""Cards as small integers, hands as bitmasks, and the card notation of docs/RULES.md §1.

A card is ``rank * 4 + suit``: rank 0..12 is 3 4 5 6 7 8 9 T J Q K A 2 (normal
strength), suit 0..3 is D C H S, so the smallest integer is also the weakest card
with ties broken ♢ ♣ ♡ ♠ (the first-lead rule). The two jokers are identical: as a
card both are ``JOKER`` (52); in a mask they take bits 52 and 53, always filled
from 52 up, so equal hands have equal masks.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

RANKS: Final = "3456789TJQKA2"
SUITS: Final = "DCHS"
JOKER: Final = 52
JOKER_CODE: Final = "JK"
JOKER_BIT: Final = 1 << 52
JOKER_BITS: Final = 3 << 52
REAL_CARDS: Final = (1 << 52) - 1
DECK: Final[tuple[int, ...]] = (*range(52), JOKER, JOKER)

# What a joker in stairs may stand for past the ends (the ``uecda`` preset):
# ``LOW_READING + suit`` is the card below that suit's 3 (``L`` + suit),
# ``HIGH_READING + suit`` the one above its 2 (``H`` + suit). They are joker
# readings only, never cards in a hand.
LOW_READING: Final = 56
HIGH_READING: Final = 60
LOW_RANK: Final = -1
HIGH_RANK: Final = 13

SUIT_S: Final = 3
RANK_3: Final = 0
RANK_4: Final = 1
RANK_5: Final = 2
RANK_6: Final = 3
RANK_7: Final = 4
RANK_8: Final = 5
RANK_9: Final = 6
RANK_T: Final = 7
RANK_J: Final = 8
RANK_Q: Final = 9
RANK_K: Final = 10
RANK_A: Final = 11
RANK_2: Final = 12


class CardCodeError(ValueError):
    """A card or rank code that the notation does not know."""


def rank_of(card: int) -> int:
    return card >> 2


def suit_of(card: int) -> int:
    return card & 3


def make_card(rank: int, suit: int) -> int:
    return rank * 4 + suit


def reading_card(rank: int, suit: int) -> int:
    """What a joker stands for at ``rank`` (-1 below the 3, 13 above the 2)."""
    if rank == LOW_RANK:
        return LOW_READING + suit
    if rank == HIGH_RANK:
        return HIGH_READING + suit
    return rank * 4 + suit


def reading_rank(card: int) -> int:
    """The rank a joker reading stands for (-1 below the 3, 13 above the 2)."""
    if card >= HIGH_READING:
        return HIGH_RANK
    if card >= LOW_READING:
        return LOW_RANK
    return card >> 2


def is_past_ends(card: int) -> bool:
    return LOW_READING <= card < HIGH_READING + 4


def rank_mask(rank: int) -> int:
    """The four bits of one rank in a hand mask."""
    return 15 << (rank * 4)


def rank_suits(mask: int, rank: int) -> int:
    """The 4-bit suit set of ``rank`` held in ``mask``."""
    return (mask >> (rank * 4)) & 15


# the cards in each 4-bit suit set: compiled, a tuple index is a C array read, and
# int.bit_count() a Python method call
SUIT_COUNTS: Final[tuple[int, ...]] = tuple(suits.bit_count() for suits in range(16))


def rank_count(mask: int, rank: int) -> int:
    """How many real cards of ``rank`` ``mask`` holds."""
    return SUIT_COUNTS[(mask >> (rank * 4)) & 15]


def joker_count(mask: int) -> int:
    return (mask >> 52).bit_count()


def add_card(mask: int, card: int) -> int:
    if card == JOKER:
        return mask | (JOKER_BIT << 1 if mask & JOKER_BIT else JOKER_BIT)
    return mask | (1 << card)


def mask_of(cards: Iterable[int]) -> int:
    """The mask of ``cards``; raises ValueError on a card given twice."""
    mask = 0
    for card in cards:
        if card == JOKER:
            if mask & JOKER_BITS == JOKER_BITS:
                raise ValueError("more than two jokers")
        elif mask >> card & 1:
            raise ValueError(f"{format_card(card)} given twice")
        mask = add_card(mask, card)
    return mask


def cards_of(mask: int) -> tuple[int, ...]:
    """The cards of ``mask``, weakest first, jokers last."""
    real = mask & REAL_CARDS
    cards = []
    while real:
        low = real & -real
        cards.append(low.bit_length() - 1)
        real ^= low
    return (*cards, *(JOKER,) * joker_count(mask))


def remove_cards(hand: int, played: int) -> int:
    """``hand`` without ``played``; jokers are removed by count, top bit first."""
    if played < JOKER_BIT:
        return hand & ~played
    hand &= ~(played & REAL_CARDS)
    jokers = joker_count(hand) - joker_count(played)
    return (hand & REAL_CARDS) | JOKER_MASK_BY_COUNT[max(jokers, 0)]


def add_cards(hand: int, added: int) -> int:
    if added < JOKER_BIT:
        return hand | added
    jokers = joker_count(hand) + joker_count(added)
    return ((hand | added) & REAL_CARDS) | JOKER_MASK_BY_COUNT[jokers]


def is_canonical(mask: int) -> bool:
    """A mask of cards as this module writes them: no bits past the jokers', and
    a lone joker on bit 52 (so equal sets of cards have equal masks)."""
    return mask >= 0 and not mask >> 54 and mask & JOKER_BITS != 1 << 53


def contains(hand: int, cards: int) -> bool:
    if cards < JOKER_BIT:
        return cards & ~hand == 0
    return (cards & REAL_CARDS) & ~hand == 0 and joker_count(cards) <= joker_count(hand)


JOKER_MASK_BY_COUNT: Final[tuple[int, ...]] = (0, JOKER_BIT, JOKER_BITS)


def parse_card(code: str) -> int:
    """Parse ``TS``, ``10s``, ``3D``, ``JK``… into a card; raises CardCodeError."""
    card = CARD_OF_CODE.get(code)  # as written here: every view and answer holds them
    if card is not None:
        return card
    text = code.strip().upper()
    if text in (JOKER_CODE, "JOKER"):
        return JOKER
    if len(text) == 3 and text.startswith("10"):
        text = "T" + text[2]
    if len(text) != 2 or text[0] not in RANKS or text[1] not in "SHDC":
        raise CardCodeError(f"unknown card code {code!r}")
    return make_card(RANKS.index(text[0]), SUITS.index(text[1]))


def parse_reading(code: str) -> int:
    """Parse what a joker stands for: a card code, or ``L``/``H`` and a suit for
    the card below the 3 or above the 2 (``LH``: the ♡ below ♡3)."""
    text = code.strip().upper()
    if len(text) == 2 and text[0] in "LH" and text[1] in SUITS:
        return (LOW_READING if text[0] == "L" else HIGH_READING) + SUITS.index(text[1])
    return parse_card(code)


def format_card(card: int) -> str:
    if card == JOKER:
        return JOKER_CODE
    if is_past_ends(card):
        return ("L" if card < HIGH_READING else "H") + SUITS[card & 3]
    if not 0 <= card < 52:
        raise CardCodeError(f"no card has the number {card}")
    return RANKS[rank_of(card)] + SUITS[suit_of(card)]


CARD_OF_CODE: Final[dict[str, int]] = {format_card(card): card for card in (*range(52), JOKER)}


def parse_cards(codes: Iterable[str]) -> tuple[int, ...]:
    return tuple(parse_card(code) for code in codes)


def format_cards(cards: Iterable[int]) -> list[str]:
    return [format_card(card) for card in cards]


def format_mask(mask: int) -> list[str]:
    return list(mask_codes(mask))


def _byte_codes(byte: int) -> tuple[tuple[str, ...], ...]:
    """For each value of a mask's byte ``byte``, the codes of its bits, lowest first:
    bit ``8 * byte + i`` is the card of that number, or a joker from bit 52 up."""
    return tuple(
        tuple(
            JOKER_CODE if bit >= JOKER else format_card(bit)
            for bit in range(8 * byte, 8 * byte + 8)
            if value >> (bit - 8 * byte) & 1
        )
        for value in range(256)
    )


# A mask's codes are seven lookups: bits run weakest first, the jokers' last, so the
# bytes' codes in order are the order ``cards_of`` gives (a hand took ~20 format_card calls)
BYTE_CODES: Final[tuple[tuple[tuple[str, ...], ...], ...]] = tuple(_byte_codes(b) for b in range(7))
BYTE_CODES_END: Final = 1 << 56  # past the seven bytes (no hand reaches it)


def mask_codes(mask: int) -> tuple[str, ...]:
    """The codes of ``mask``'s cards, weakest first, jokers last."""
    if not 0 <= mask < BYTE_CODES_END:
        return tuple(format_cards(cards_of(mask)))
    codes = BYTE_CODES
    return (
        codes[0][mask & 255]
        + codes[1][mask >> 8 & 255]
        + codes[2][mask >> 16 & 255]
        + codes[3][mask >> 24 & 255]
        + codes[4][mask >> 32 & 255]
        + codes[5][mask >> 40 & 255]
        + codes[6][mask >> 48]
    )


def parse_rank(code: str) -> int:
    """Parse a rank for the queen bomber: ``5``, ``T``, ``10``, ``a``…"""
    text = code.strip().upper()
    if text == "10":
        text = "T"
    if len(text) != 1 or text not in RANKS:
        raise CardCodeError(f"unknown rank code {code!r}")
    return RANKS.index(text)


def format_rank(rank: int) -> str:
    return RANKS[rank]


def suit_letters(suits: int) -> list[str]:
    """A 4-bit suit set as letters in the notation's order S H D C."""
    return [letter for letter in "SHDC" if suits >> SUITS.index(letter) & 1]


def parse_suits(letters: Iterable[str]) -> int:
    suits = 0
    for letter in letters:
        if letter.upper() not in SUITS:
            raise CardCodeError(f"unknown suit {letter!r}")
        suits |= 1 << SUITS.index(letter.upper())
    return suits
