"""The table codec on its own: cells, names, plays as the protocol writes them."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.rules.cards import JOKER_BIT, parse_card, parse_reading
from service.uecda.server import clean_name
from service.uecda.table import jokers_as
from service.uecda.wire import (
    MalformedPlay,
    card_cell_tuple,
    cell,
    empty_table,
    hand_of_cells,
    joker_cell_as,
    pack_table,
    profile_name,
    put_hand,
    read_play,
    unpack_table,
)


def mask(*codes: str) -> int:
    result = 0
    for code in codes:
        result |= JOKER_BIT if code == "JK" else 1 << parse_card(code)
    return result


def test_cards_sit_where_the_protocol_puts_them() -> None:
    table = empty_table()
    put_hand(table, mask("3S", "8H", "2D", "AC", "JK"))
    assert table[cell(0, 1)] == 1  # ♠3: row 0, column 1
    assert table[cell(1, 6)] == 1  # ♥8: column 6
    assert table[cell(2, 13)] == 1  # ♦2
    assert table[cell(3, 12)] == 1  # ♣A
    assert table[cell(4, 1)] == 2  # the joker in a hand
    assert sum(table) == 6


def test_a_table_is_480_big_endian_bytes_and_negative_goes_out_as_0() -> None:
    table = empty_table()
    table[0], table[1], table[119] = 20070, -1, 7
    data = pack_table(table)
    assert len(data) == 480
    assert data[:8] == bytes([0, 0, 0x4E, 0x66, 0, 0, 0, 0])
    assert data[-4:] == bytes([0, 0, 0, 7])


@given(st.lists(st.integers(0, 2**32 - 1), min_size=120, max_size=120))
def test_any_table_reads_as_cards_or_is_malformed(cells: list[int]) -> None:
    table = unpack_table(pack_table(cells))
    assert table == cells
    try:
        play = read_play(table)
    except MalformedPlay:
        return
    assert play.cards >= 0


def test_plays_read_as_sent() -> None:
    table = empty_table()
    table[cell(1, 0)], table[cell(1, 1)], table[cell(1, 2)] = 2, 1, 1  # joker below ♥3, ♥4
    play = read_play(table)
    assert play.cards == mask("3H", "4H", "JK") and play.joker_cell == (1, 0)
    assert read_play(empty_table()).is_pass
    for bad in ((cell(0, 0), 1), (cell(4, 3), 1), (cell(2, 2), 3)):
        broken = empty_table()
        broken[bad[0]] = bad[1]
        with pytest.raises(MalformedPlay):
            read_play(broken)
    two_jokers = empty_table()
    two_jokers[cell(0, 14)] = two_jokers[cell(0, 0)] = 2
    with pytest.raises(MalformedPlay):
        read_play(two_jokers)
    rows_5_to_7 = empty_table()
    rows_5_to_7[cell(6, 3)] = 99
    assert read_play(rows_5_to_7).is_pass


def test_the_name_ends_at_the_first_nul_and_is_cleaned() -> None:
    table = empty_table()
    for column, char in enumerate(b"cli0\x00lt"):
        table[cell(1, column)] = char
    assert profile_name(table) == "cli0"
    table[cell(1, 1)] = 7
    assert profile_name(table) == "c?i0"
    assert clean_name(" \u200bx" + "y" * 40) == "x" + "y" * 31
    assert clean_name("\t\n") == "uecda"


def test_a_hand_reads_back_as_the_cards_it_shows() -> None:
    assert hand_of_cells(pack_and_back(mask("3D", "JK"))) == mask("3D", "JK")


def test_a_joker_stands_for_the_card_of_its_cell_or_past_the_ends() -> None:
    def joker_at(row: int, column: int, *codes: str) -> tuple[int, ...]:
        table = empty_table()
        for code in codes:
            table[cell(*card_cell_tuple(parse_card(code)))] = 1
        table[cell(row, column)] = 2
        return jokers_as(read_play(table))

    assert joker_at(1, 0, "3H", "4H") == (parse_reading("LH"),)
    assert joker_at(0, 14, "AS", "2S") == (parse_reading("HS"),)
    assert joker_at(2, 6, "7D", "9D") == (parse_card("8D"),)
    assert joker_at(4, 3, "5S", "5H", "5D", "5C") == ()  # a group's fifth card
    assert joker_at(0, 14) == ()  # alone
    for reading, where in (("LH", (1, 0)), ("HS", (0, 14)), ("8D", (2, 6))):
        assert joker_cell_as(parse_reading(reading), False, None) == where
    assert joker_cell_as(None, True, None) == (0, 0)


def pack_and_back(hand: int) -> list[int]:
    table = empty_table()
    put_hand(table, hand)
    return unpack_table(pack_table(table))
