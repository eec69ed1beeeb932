"""The UECda protocol's two message shapes (version 20070, UECDA.md §1): a 4-byte int and
an 8×15 table of 32-bit big-endian ints (480 bytes), and how cards sit in a table.

Rows 0–3 are ♠ ♥ ♦ ♣, columns 1–13 the ranks 3…2; columns 0 and 14, and row 4, only ever
hold the joker (value 2). Pure: no sockets, no service.
"""

from __future__ import annotations

import functools
import struct
from collections.abc import Sequence
from dataclasses import dataclass

from ..rules.cards import (
    JOKER,
    JOKER_BIT,
    LOW_RANK,
    REAL_CARDS,
    is_past_ends,
    make_card,
    rank_of,
    reading_rank,
    suit_of,
)

PROTOCOL_VERSION = 20070
ROWS, COLUMNS = 8, 15
CELLS = ROWS * COLUMNS
TABLE_BYTES = CELLS * 4
INT_BYTES = 4
NAME_CELLS = 15  # row 1 of the profile
ACCEPTED, REJECTED = 9, 8  # the reply to a play (a rejected play counts as a pass)
GAME_GOES_ON, GAME_OVER, ALL_GAMES_OVER = 0, 1, 2  # the end flag after every turn
START_TABLE_TURN = 6  # [5][3] of a game's start table (no player's number)

# a table row per suit of ours (D C H S = 0..3) and back: rows are ♠ ♥ ♦ ♣
ROW_OF_SUIT = (2, 3, 1, 0)
SUIT_OF_ROW = (3, 2, 0, 1)
JOKER_ROW = 4
BELOW_3, ABOVE_2 = 0, 14  # the joker's own columns in stairs

FIELD_CELLS = (JOKER_ROW + 1) * COLUMNS  # rows 0–4: the cards
STATE_CELLS = CELLS - FIELD_CELLS  # rows 5–7: the state

_TABLE = struct.Struct(f">{CELLS}I")
_CARD_ROWS = struct.Struct(f">{FIELD_CELLS}I")
_STATE_ROWS = struct.Struct(f">{STATE_CELLS}I")
_INT = struct.Struct(">I")
EMPTY_CARD_ROWS = bytes(FIELD_CELLS * 4)  # rows 0–4 of no card, packed

Table = list[int]  # 120 cells, row-major: cell (row, column) is ``row * 15 + column``


def empty_table() -> Table:
    return [0] * CELLS


def cell(row: int, column: int) -> int:
    return row * COLUMNS + column


def pack_table(table: Table) -> bytes:
    """The 480 bytes of a table; negative values go out as 0, as the reference server's
    (the tables built here never hold one: only a table from elsewhere needs the look)."""
    try:
        return _TABLE.pack(*table)
    except struct.error:
        return _TABLE.pack(*(value if value > 0 else 0 for value in table))


def pack_card_rows(cells: Sequence[int]) -> bytes:
    """Rows 0–4 packed (the half of a table that cards fill: a table is sent as the
    bytes of its two halves, each packed once)."""
    return _CARD_ROWS.pack(*cells)


def pack_state_rows(cells: Sequence[int]) -> bytes:
    """Rows 5–7 packed; negative values go out as 0, as in ``pack_table``."""
    try:
        return _STATE_ROWS.pack(*cells)
    except struct.error:
        return _STATE_ROWS.pack(*(value if value > 0 else 0 for value in cells))


def unpack_table(data: bytes) -> Table:
    return list(_TABLE.unpack(data))


def pack_int(value: int) -> bytes:
    return _INT.pack(value)


def unpack_int(data: bytes) -> int:
    value: int = _INT.unpack(data)[0]
    return value


def card_cell(card: int) -> int:
    return cell(ROW_OF_SUIT[suit_of(card)], rank_of(card) + 1)


CARD_CELLS = tuple(card_cell(card) for card in range(52))


def put_hand(table: Table, hand: int) -> None:
    """A hand into rows 0–4: each card 1, the joker as ``[4][1] = 2``."""
    table[:FIELD_CELLS] = hand_cells(hand)


@functools.lru_cache(maxsize=4096)
def hand_rows(hand: int) -> bytes:
    """Rows 0–4 of a hand, packed (a table is sent to every player every turn, and a
    hand changes only when its player plays)."""
    return pack_card_rows(hand_cells(hand))


def hand_cells(hand: int) -> list[int]:
    """Rows 0–4 of a hand: each card 1, the joker as ``[4][1] = 2``."""
    cells = [0] * FIELD_CELLS
    real = hand & REAL_CARDS
    while real:
        low = real & -real
        cells[CARD_CELLS[low.bit_length() - 1]] = 1
        real ^= low
    if hand & ~REAL_CARDS:
        cells[cell(JOKER_ROW, 1)] = 2
    return cells


def hand_of_cells(table: Table) -> int:
    """The cards a table's rows 0–3 hold (value 1), plus the joker if any cell holds 2;
    for the exchange, which names cards, not what a joker stands for."""
    hand = 0
    for row in range(4):
        for column in range(1, 14):
            if table[cell(row, column)] == 1:
                hand |= 1 << make_card(column - 1, SUIT_OF_ROW[row])
    if any(table[index] == 2 for index in range(FIELD_CELLS)):
        hand |= JOKER_BIT
    return hand


@dataclass(frozen=True, slots=True)
class WirePlay:
    """A play table read as cards: ``cards`` the mask, and the joker's cell (row, column)
    when it is played; a pass when no card is."""

    cards: int
    joker_cell: tuple[int, int] | None

    @property
    def is_pass(self) -> bool:
        return self.cards == 0


class MalformedPlay(ValueError):
    """A play table no card set can be: a value other than 0, 1, 2, a card in a
    joker-only cell, or more than one joker."""


def read_play(table: Table) -> WirePlay:
    """Rows 0–4 of a client's play (rows 5–7 are ignored, as the reference server does)."""
    cards = 0
    joker: tuple[int, int] | None = None
    for index, value in enumerate(table[:FIELD_CELLS]):
        if value:
            row, column = divmod(index, COLUMNS)
            if value == 2:
                if joker is not None:
                    raise MalformedPlay("more than one joker")
                joker = (row, column)
            elif value == 1 and row < JOKER_ROW and 0 < column < 14:
                cards |= 1 << make_card(column - 1, SUIT_OF_ROW[row])
            else:
                raise MalformedPlay(f"value {value} at [{row}][{column}]")
    if joker is not None:
        cards |= JOKER_BIT
    return WirePlay(cards, joker)


def put_play(table: Table, cards: int, joker_cell: tuple[int, int] | None) -> None:
    """A play into rows 0–4: real cards 1, the joker 2 in the cell it stands for."""
    real = cards & REAL_CARDS
    while real:
        low = real & -real
        table[card_cell(low.bit_length() - 1)] = 1
        real ^= low
    if joker_cell is not None:
        table[cell(*joker_cell)] = 2


def joker_cell_as(card: int | None, revolution: bool, group_rank: int | None) -> tuple[int, int]:
    """Where a played joker goes in a field table: the cell of the card it stands for
    (``card``, columns 0 and 14 below the 3 and above the 2); a fifth card of a group
    in row 4; alone, ``[0][14]`` (``[0][0]`` under revolution), as the official
    client puts it."""
    if card is not None and card != JOKER:
        if is_past_ends(card):
            return (ROW_OF_SUIT[card & 3], BELOW_3 if reading_rank(card) == LOW_RANK else ABOVE_2)
        return card_cell_tuple(card)
    if group_rank is not None:
        return (JOKER_ROW, group_rank + 1)
    return (0, BELOW_3) if revolution else (0, ABOVE_2)


def card_cell_tuple(card: int) -> tuple[int, int]:
    return (ROW_OF_SUIT[suit_of(card)], rank_of(card) + 1)


def profile_name(table: Table) -> str:
    """The client's name: row 1 up to the first 0 (the bytes after it may be garbage)."""
    name = []
    for column in range(NAME_CELLS):
        value = table[cell(1, column)]
        if value == 0:
            break
        name.append(chr(value) if 32 <= value < 127 else "?")
    return "".join(name)
