"""What each UECda client is sent, built from the rules' state: a game's start table,
the hand tables every turn, and the field table after every action (UECDA.md §1.4–§1.5).
Pure: the table of a state, no sockets, no service."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..rules import events as ev
from ..rules.cards import JOKER_BIT, REAL_CARDS, cards_of, rank_of
from ..rules.state import MatchState
from .wire import (
    JOKER_ROW,
    START_TABLE_TURN,
    Table,
    WirePlay,
    card_cell_tuple,
    cell,
    empty_table,
    hand_cells,
    joker_cell_as,
    pack_table,
    put_hand,
    put_play,
)

# rows 5 and 6
EXCHANGING, EXCHANGE_COUNT, MY_TURN, TURN, ONSET, ELEVEN_BACK, REVOLUTION, LOCK = (
    cell(5, column) for column in range(8)
)
COUNTS, RANKS, SEATING = cell(6, 0), cell(6, 5), cell(6, 10)
FIELD_CELLS = cell(JOKER_ROW + 1, 0)  # rows 0–4: the cards


def seat_order(game: MatchState) -> tuple[int, ...]:
    """``[6][10+i]``: the player sitting in seat i; play goes around it."""
    return game.seating or tuple(range(game.players))


def _state_rows(table: Table, game: MatchState) -> None:
    table[REVOLUTION] = int(game.revolution)
    table[LOCK] = int(bool(game.suit_lock))
    previous = game.previous_places
    for player, hand in enumerate(game.hands):
        table[COUNTS + player] = hand.bit_count()
        table[RANKS + player] = previous[player] - 1 if previous else 0
    for seat, player in enumerate(seat_order(game)):
        table[SEATING + seat] = player


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


def hand_table(game: MatchState, player: int) -> Table:
    """The table every player gets before each turn: its hand and the state."""
    return list(hand_cells(game.hands[player])) + state_rows(game, player)


def hand_tables(game: MatchState, players: Iterable[int]) -> dict[int, bytes]:
    """``hand_table`` for each of ``players``, packed: rows 5–7 are built once."""
    rows = state_rows(game, -1)
    mover = rows[TURN - FIELD_CELLS]
    tables = {}
    for player in players:
        if player == mover:
            mine = list(rows)
            mine[MY_TURN - FIELD_CELLS] = 1
            tables[player] = pack_table([*hand_cells(game.hands[player]), *mine])
        else:
            tables[player] = pack_table([*hand_cells(game.hands[player]), *rows])
    return tables


def state_rows(game: MatchState, player: int) -> list[int]:
    """Rows 5–7 of a turn's hand table to ``player`` (-1: to none in particular)."""
    table = empty_table()
    mover = game.turn if game.turn is not None else 0
    table[MY_TURN] = int(mover == player)
    table[TURN] = mover
    table[ONSET] = int(game.field is None)
    _state_rows(table, game)
    return table[FIELD_CELLS:]


def field_table(game: MatchState, field: Table, actor: int) -> Table:
    """After an action, to every player: the last accepted play (``field``, rows 0–4)
    and ``[5][3]`` the player who just acted."""
    table = empty_table()
    table[:FIELD_CELLS] = field[:FIELD_CELLS]
    table[TURN] = actor
    table[ONSET] = int(not any(field[:FIELD_CELLS]))
    _state_rows(table, game)
    return table


def played_cells(play: ev.CardsPlayed, revolution: bool) -> Table:
    """A play as a field table's rows 0–4 (for plays that did not come as a table)."""
    table = empty_table()
    jokers_as: tuple[int, ...] = play.jokers_as
    joker: tuple[int, int] | None = None
    if play.cards & ~REAL_CARDS:
        real = cards_of(play.cards & REAL_CARDS)
        group_rank = rank_of(real[0]) if real and play.kind == 2 else None
        joker = joker_cell_as(jokers_as[0] if jokers_as else None, revolution, group_rank)
    put_play(table, play.cards & ~JOKER_BIT if joker else play.cards, joker)
    return table


def play_cells(play: WirePlay) -> Table:
    """A client's accepted play as it sent it (rows 0–4)."""
    table = empty_table()
    put_play(table, play.cards & ~JOKER_BIT, play.joker_cell)
    return table


__all__ = [
    "card_cell_tuple",
    "exchange_counts",
    "field_table",
    "hand_table",
    "hand_tables",
    "play_cells",
    "played_cells",
    "seat_order",
    "start_table",
]
