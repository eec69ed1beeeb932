"""What each UECda client is sent, built from the rules' state: a game's start table,
the hand tables every turn, and the field table after every action (UECDA.md §1.4–§1.5).
Pure: the table of a state, no sockets, no service.

The tables of every turn are built as bytes from their two halves: rows 0–4 (a hand,
packed once per hand; the field, packed once per play) and rows 5–7 (the state, packed
once per turn for all five players, and once more for the mover's ``[5][2] = 1``)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..rules import events as ev
from ..rules.cards import JOKER_BIT, REAL_CARDS, cards_of, rank_of
from ..rules.state import MatchState
from .wire import (
    EMPTY_CARD_ROWS,
    FIELD_CELLS,
    START_TABLE_TURN,
    STATE_CELLS,
    Table,
    WirePlay,
    card_cell_tuple,
    cell,
    empty_table,
    hand_rows,
    joker_cell_as,
    pack_card_rows,
    pack_state_rows,
    put_hand,
    put_play,
)

# rows 5 and 6
EXCHANGING, EXCHANGE_COUNT, MY_TURN, TURN, ONSET, ELEVEN_BACK, REVOLUTION, LOCK = (
    cell(5, column) for column in range(8)
)
COUNTS, RANKS, SEATING = cell(6, 0), cell(6, 5), cell(6, 10)


def seat_order(game: MatchState) -> tuple[int, ...]:
    """``[6][10+i]``: the player sitting in seat i; play goes around it."""
    return game.seating or tuple(range(game.players))


def _state_rows(cells: list[int], game: MatchState, base: int = 0) -> None:
    """The state every table shares into ``cells``, which start at cell ``base`` (0: a
    whole table; FIELD_CELLS: rows 5–7 alone)."""
    cells[REVOLUTION - base] = int(game.revolution)
    cells[LOCK - base] = int(bool(game.suit_lock))
    previous = game.previous_places
    counts, ranks = COUNTS - base, RANKS - base
    for player, hand in enumerate(game.hands):
        cells[counts + player] = hand.bit_count()
        cells[ranks + player] = previous[player] - 1 if previous else 0
    seating = SEATING - base
    for seat, player in enumerate(seat_order(game)):
        cells[seating + seat] = player


def exchange_counts(game: MatchState) -> dict[int, int]:
    """The cards each player is to choose and give back (大富豪 2, 富豪 1): the steps
    the rules still wait for that are not the automatic strongest ones."""
    return {giver: count for giver, _, count, strongest in game.exchange_steps if not strongest}


def start_table(game: MatchState, dealt: Sequence[int], player: int) -> Table:
    """A game's first table to ``player``: ``[5][0] = 1``. The 大富豪 and 富豪 see what
    they were given; the players whose cards were taken see their hand as dealt."""
    table = empty_table()
    put_hand(table, game.hands[player] | dealt[player])
    table[EXCHANGING] = 1
    table[EXCHANGE_COUNT] = exchange_counts(game).get(player, 0)
    table[TURN] = START_TABLE_TURN
    _state_rows(table, game)
    return table


def hand_tables(game: MatchState, players: Iterable[int]) -> dict[int, bytes]:
    """The table each of ``players`` gets before each turn, packed: its hand and the
    state, ``[5][2] = 1`` in the mover's."""
    rows = [0] * STATE_CELLS
    mover = game.turn if game.turn is not None else 0
    rows[TURN - FIELD_CELLS] = mover
    rows[ONSET - FIELD_CELLS] = int(game.field is None)
    _state_rows(rows, game, FIELD_CELLS)
    others = pack_state_rows(rows)
    rows[MY_TURN - FIELD_CELLS] = 1
    mine = pack_state_rows(rows)
    hands = game.hands
    return {
        player: hand_rows(hands[player]) + (mine if player == mover else others)
        for player in players
    }


def field_table(game: MatchState, field: bytes, actor: int) -> bytes:
    """After an action, to every player, packed: the last accepted play (``field``,
    rows 0–4 packed) and ``[5][3]`` the player who just acted."""
    rows = [0] * STATE_CELLS
    rows[TURN - FIELD_CELLS] = actor
    rows[ONSET - FIELD_CELLS] = int(field == EMPTY_CARD_ROWS)
    _state_rows(rows, game, FIELD_CELLS)
    return field + pack_state_rows(rows)


def played_cells(play: ev.CardsPlayed, revolution: bool) -> bytes:
    """A play as a field table's rows 0–4, packed (for plays that did not come as a
    table)."""
    table = empty_table()
    jokers_as: tuple[int, ...] = play.jokers_as
    joker: tuple[int, int] | None = None
    if play.cards & ~REAL_CARDS:
        real = cards_of(play.cards & REAL_CARDS)
        group_rank = rank_of(real[0]) if real and play.kind == 2 else None
        joker = joker_cell_as(jokers_as[0] if jokers_as else None, revolution, group_rank)
    put_play(table, play.cards & ~JOKER_BIT if joker else play.cards, joker)
    return pack_card_rows(table[:FIELD_CELLS])


def play_cells(play: WirePlay) -> bytes:
    """A client's accepted play as it sent it (rows 0–4, packed)."""
    table = empty_table()
    put_play(table, play.cards & ~JOKER_BIT, play.joker_cell)
    return pack_card_rows(table[:FIELD_CELLS])


__all__ = [
    "EMPTY_CARD_ROWS",
    "card_cell_tuple",
    "exchange_counts",
    "field_table",
    "hand_tables",
    "play_cells",
    "played_cells",
    "seat_order",
    "start_table",
]
