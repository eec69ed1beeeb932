"""The exact bytes of a short game: five scripted clients play one game, and every byte
the server sent each of them is checked against UECDA.md §1.3–§1.5, message by message,
with the tables' contents rebuilt from the match's stored events."""

from __future__ import annotations

import asyncio

import pytest

from service.app.codec import decode
from service.app.match import fold_match, stream_of
from service.rules import events as ev
from service.rules import fold, initial_state
from service.rules.cards import JOKER, cards_of, rank_of, suit_of
from service.uecda.messages import seat_order
from service.uecda.server import UecdaSettings
from tests.service_support import isolated_service

from .support import RawClient

pytestmark = pytest.mark.asyncio
ROW = {3: 0, 2: 1, 0: 2, 1: 3}  # our suits (D C H S = 0..3) to the table's rows ♠ ♥ ♦ ♣


def be(*values: int) -> bytes:
    return b"".join(value.to_bytes(4, "big") for value in values)


class Scripted(RawClient):
    """Leads its weakest card, passes otherwise; its first answer on a full field is a
    card it does not hold. Keeps every byte it received and every table it sent."""

    received: bytearray
    sent: list[list[int]]

    async def play(self) -> None:
        self.received, self.sent = bytearray(), []
        tried_illegal = False
        start = await self._table()
        assert start[75] == 1 and start[76] == 0  # [5][0] = 1, no exchange in game 1
        while True:
            hand = await self._table()
            if hand[77] == 1:  # [5][2]: my turn
                play = [0] * 120
                if hand[79] == 1:  # onset: lead the weakest card (the joker if no other)
                    held = [i for i in range(60) if hand[i] == 1]
                    play[min(held, key=lambda i: (i % 15, i)) if held else 14] = 1 if held else 2
                elif not tried_illegal:
                    tried_illegal = True
                    play[next(i for i in range(1, 14) if hand[i] == 0)] = 1  # not its card
                self.send(play)
                self.sent.append(play)
                self.received += be(await self._int())
            await self._table()
            end = await self._int()
            self.received += be(end)
            if end != 0:
                return

    async def _table(self) -> list[int]:
        data = await self.reader.readexactly(480)
        self.received += data
        return [int.from_bytes(data[i : i + 4], "big") for i in range(0, 480, 4)]

    async def _int(self) -> int:
        return int.from_bytes(await self.reader.readexactly(4), "big")


def hand_cells(hand: int) -> list[int]:
    cells = [0] * 75
    for card in cards_of(hand):
        if card == JOKER:
            cells[61] = 2  # [4][1]
        else:
            cells[ROW[suit_of(card)] * 15 + rank_of(card) + 1] = 1
    return cells


def state_rows(game: object, ranks: list[int]) -> list[int]:
    rows = [0] * 30
    rows[6] = int(game.revolution)  # type: ignore[attr-defined]
    rows[7] = int(bool(game.suit_lock))  # type: ignore[attr-defined]
    for player, hand in enumerate(game.hands):  # type: ignore[attr-defined]
        rows[15 + player] = hand.bit_count()
        rows[20 + player] = ranks[player]
    for seat, player in enumerate(seat_order(game)):  # type: ignore[arg-type]
        rows[25 + seat] = player
    return rows


def expected_stream(
    player: int, events: list[ev.Event], sent: list[list[list[int]]], rules: object
) -> bytes:
    """What UECDA.md says the server sends ``player`` in a one-game match."""
    actions = [i for i, e in enumerate(events) if isinstance(e, ev.CardsPlayed | ev.Passed)]
    game = fold(initial_state(rules, 5), events[: actions[0]])  # type: ignore[arg-type]
    out = bytearray(be(player))
    start = hand_cells(game.hands[player]) + state_rows(game, [0] * 5) + [0] * 15
    start[75], start[78] = 1, 6  # [5][0] = 1, [5][3] = 6
    out += be(*start)
    tables = [iter(by_player) for by_player in sent]  # what each player sent, in order
    field = [0] * 75
    for number, first in enumerate(actions):
        action = events[first]
        mover = game.turn
        assert mover is not None
        if game.field is None:
            field = [0] * 75
        table = hand_cells(game.hands[player]) + state_rows(game, [0] * 5) + [0] * 15
        table[77], table[78], table[79] = int(mover == player), mover, int(game.field is None)
        out += be(*table)
        sent_table = next(tables[mover])
        if isinstance(action, ev.CardsPlayed):
            field = sent_table[:75]
        if mover == player:
            accepted = isinstance(action, ev.CardsPlayed) or (
                not any(sent_table) and game.field is None
            )
            out += be(9 if accepted else 8)
        last = actions[number + 1] if number + 1 < len(actions) else len(events)
        batch = events[first:last]
        game = fold(game, batch)
        after = field + state_rows(game, [0] * 5) + [0] * 15
        after[78], after[79] = mover, int(not any(field))
        out += be(*after)
        out += be(2 if any(isinstance(e, ev.MatchEnded) for e in batch) else 0)
    return bytes(out)


async def test_the_bytes_of_one_game() -> None:
    settings = UecdaSettings(games=1, turn_seconds=30.0)
    async with isolated_service(None, grpc_port=0, uecda_port=0, uecda=settings) as running:
        assert running.uecda is not None and running.uecda_port is not None
        clients: list[Scripted] = []
        for number in range(5):  # each is told its number once the five are there
            clients.append(await Scripted.open(running.uecda_port, f"p{number}"))
        for client in clients:
            client.player = await client.read_int()
        assert sorted(client.player for client in clients) == [0, 1, 2, 3, 4]
        await asyncio.wait_for(asyncio.gather(*(client.play() for client in clients)), 300)
        for client in clients:
            assert await client.reader.read(1) == b""  # closed after the last end flag
        [match_id] = running.uecda.match_ids
        stored = await running.service.store.read(stream_of(match_id), 0)
        match = fold_match(None, stored)
        assert match.over
        events = [e for e in map(decode, stored) if type(e).__name__ in ev.EVENT_TYPES]
        for client in clients:
            sent = [other.sent for other in clients]
            expected = expected_stream(client.player, events, sent, match.rules)
            assert bytes(be(client.player) + client.received) == expected
            assert expected[:4] == bytes([0, 0, 0, client.player])
            assert expected[4 + 75 * 4 : 4 + 76 * 4] == b"\x00\x00\x00\x01"  # [5][0] = 1
