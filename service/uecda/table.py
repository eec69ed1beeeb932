"""One UECda table: a match of five seats, some of them UECda clients, played through
the game service like any other (decide → append, in the same store).

The table follows the match action by action, whoever acted (a client here, a bot, a
gRPC seat, the turn timer), and tells its clients what UECDA.md §1.5 says, in its order:
before each turn the hand tables to all, the accept int to the mover, then the field
table and the end flag; at each game's start the start tables, then the 大富豪's and the
富豪's exchange tables are read."""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections.abc import Sequence
from enum import StrEnum
from typing import Literal

from eventstore import AppendResult, EventStoreError, StoredEvent

from ..app.match import Match
from ..app.service import CreatedMatch, GameService, Sent, ServiceError
from ..match import AbandonReason
from ..rules import Refusal, decide, fold
from ..rules import events as ev
from ..rules.cards import HIGH_RANK, JOKER_BIT, LOW_RANK, contains, make_card, reading_card
from ..rules.commands import Give, Pass, Play, SeatCommand
from ..rules.dealing import strongest_cards
from ..rules.legal import timeout_action
from ..rules.state import MatchState
from ..rules.vocabulary import Phase, WaitingFor
from .connection import Connection
from .messages import (
    EMPTY_CARD_ROWS,
    field_table,
    hand_tables,
    play_cells,
    played_cells,
    start_table,
)
from .wire import (
    ABOVE_2,
    ACCEPTED,
    ALL_GAMES_OVER,
    BELOW_3,
    GAME_GOES_ON,
    GAME_OVER,
    JOKER_ROW,
    REJECTED,
    SUIT_OF_ROW,
    MalformedPlay,
    WirePlay,
    hand_of_cells,
    pack_int,
    read_play,
)

log = logging.getLogger("daifugo.uecda")
SEATS = 5
# refusals that mean the match moved on (a timer acted first), not that a play is illegal
MOVED_ON = frozenset({"not_your_turn", "wrong_action", "game_over", "match_over"})
ABANDON_RETRY = 0.5  # seconds between tries to abandon a stopped table's match
GRACE = 1.0  # seconds past the turn time before a silent client is dropped (the timer acts)
# a step is sent without waiting only this long before its turn's time runs out: the turn
# timer (on whichever replica) counts from the last event's time and must come after it
TIMER_MARGIN_MS = 1000
# a step with these is told once the game's every step is stored: a game's result, a deal
GAME_BOUNDARY = frozenset({"GameEnded", "GameDealt", "MatchEnded"})


class Durability(StrEnum):
    """When a table's step is stored before its clients hear of it (``--uecda-durability``)."""

    STEP = "step"  # each step is stored before the clients are told of it
    GAME = "game"  # steps are sent at once, a game's all stored before its result and the next deal


class TableStopped(Exception):
    """A step this table sent was not stored: the table stops and writes nothing more."""


class UecdaTable:
    def __init__(
        self,
        service: GameService,
        created: CreatedMatch,
        turn_seconds: float,
        seating: asyncio.Lock | None = None,
        durability: Durability = Durability.GAME,
    ) -> None:
        """``seating``: held while a client is seated (joined, then told its number);
        the match starts only once the client that filled the table has been told."""
        self.service = service
        self.durability = durability
        self.seating = seating or asyncio.Lock()
        self.match_id = created.match_id
        self.host_token = created.host_token
        self.turn_seconds = turn_seconds
        self.clients: dict[int, Connection] = {}
        self.tokens: dict[int, str] = {}
        self.game: MatchState | None = None
        self.version = -1
        self.field = EMPTY_CARD_ROWS  # the last accepted play, rows 0–4 packed
        self._unread: list[StoredEvent] = []  # read from the stream, not yet taken
        self.last_at = 0  # ms: the time of the last event taken (its turn's timer counts from it)
        self.ahead: Match | None = None  # the match after this table's last step sent
        self.unstored: list[asyncio.Future[AppendResult]] = []  # steps sent, not yet stored
        self.failure: BaseException | None = None  # why a step sent was not stored

    def seat_client(self, seat: int, token: str, client: Connection) -> None:
        self.clients[seat] = client
        self.tokens[seat] = token

    # -- the match -------------------------------------------------------------

    async def run(self) -> None:
        """Wait for five seats, start the match, play it out, close every client."""
        try:
            match = await self._until_seated()
            async with self.seating:
                pass
            for client in self.clients.values():
                client.flush()
                client.held = True  # from now on the table says when (``_turn``)
            self.game, self.version = match.game, match.version
            try:
                outcome = await self.service.start(self.match_id, self.host_token, "uecda:start")
                self._take(outcome.stored)
            except ServiceError as error:
                if error.code != "already_started":
                    raise
            while self._game.phase != Phase.MATCH_OVER:
                await self._turn()
            await self._all_stored()
        except TableStopped:
            log.error("uecda table %s stopped: %s", self.match_id, self.failure)
            for client in self.clients.values():
                client.close("the table stopped")
            await self._abandon()
        finally:
            for client in self.clients.values():
                client.close()

    async def _abandon(self) -> None:
        """End the match as abandoned where its stream stopped, once Redis answers."""
        while True:
            try:
                await self.service.abandon(
                    self.match_id, AbandonReason.TABLE_FAILED, "a step of its table was not stored"
                )
                return
            except ServiceError as error:  # gone: nothing to abandon
                log.warning("uecda table %s not abandoned: %s", self.match_id, error)
                return
            except EventStoreError as error:
                log.warning("uecda table %s: abandoning waits for Redis (%s)", self.match_id, error)
                await asyncio.sleep(ABANDON_RETRY)

    @property
    def _game(self) -> MatchState:
        assert self.game is not None
        return self.game

    async def _until_seated(self) -> Match:
        match = await self.service.load(self.match_id)
        while match.seats_free:
            match = await self.service.waits.until(
                self.match_id, match.version + 1, lambda now: not now.seats_free
            )
        return match

    async def _turn(self) -> None:
        if self.failure is not None:
            raise TableStopped
        game = self._game
        seat = game.turn
        client = self.clients.get(seat) if seat is not None else None
        if client is not None and not client.connected:
            client = None
        waiting = game.waiting_for
        if waiting == WaitingFor.PLAY:
            if game.field is None:
                self.field = EMPTY_CARD_ROWS
            tables = hand_tables(game, self.clients)
            for player, other in self.clients.items():
                other.send_bytes(tables[player])
        if waiting == WaitingFor.PLAY and client is not None:
            client.flush()
            await self._client_plays(client, game, seat)  # type: ignore[arg-type]
        elif waiting == WaitingFor.EXCHANGE and client is not None:
            client.flush()
            await self._client_gives(client, game, seat)  # type: ignore[arg-type]
        else:
            self._flush()
            await self._next_action()

    def _flush(self) -> None:
        """Write what the table told its clients. Only the client to act now is written
        to at each step (a write costs a system call and a wake-up of its process): the
        others, who only read, get their steps together when they are to act, when a
        game ends, or when the table waits on others."""
        for client in self.clients.values():
            client.flush()

    async def _client_plays(self, client: Connection, game: MatchState, seat: int) -> None:
        table = await client.read_table(self.turn_seconds + GRACE)
        if table is None:
            await self._next_action()  # gone: the timer plays its seat
            return
        try:
            wire: WirePlay | None = read_play(table)
        except MalformedPlay:
            wire = None
        if wire is not None and not wire.is_pass:
            # the service decides it; a refusal by the rules makes it a pass (rare: no
            # decision of its own here first, that would cost every play a second one)
            play = Play(seat, wire.cards, jokers_as(wire))
            if await self._act(seat, play, client, ACCEPTED, play_cells(wire), refusable=True):
                return
        command, reply = self._pass_for(game, seat, wire)
        await self._act(seat, command, client, reply)

    def _pass_for(
        self, game: MatchState, seat: int, wire: WirePlay | None
    ) -> tuple[SeatCommand, int]:
        """A table the rules do not take as a play is a pass: 8, or 9 for an all-zero
        table on an empty field (as the reference server answers)."""
        reply = ACCEPTED if wire is not None and wire.is_pass and game.field is None else REJECTED
        command: SeatCommand = Pass(seat, "" if reply == ACCEPTED else "refused")
        if game.field is None and isinstance(decide(game, command), Refusal):
            command = timeout_action(game) or command  # rules where the leader must play
        return command, reply

    async def _client_gives(self, client: Connection, game: MatchState, seat: int) -> None:
        _, _, count, automatic = game.exchange_steps[0]
        hand = game.hands[seat]
        cards = 0
        if not automatic:
            table = await client.read_table(self.turn_seconds + GRACE)
            if table is None:
                await self._next_action()
                return
            cards = hand_of_cells(table)
        if cards.bit_count() != count or not contains(hand, cards):
            cards = strongest_cards(hand, count, game.reversed_order)  # the server's penalty
        command: SeatCommand = Give(seat, cards)
        if isinstance(decide(game, command), Refusal):
            command = timeout_action(game) or command
        await self._act(seat, command)

    async def _act(
        self,
        seat: int,
        command: SeatCommand,
        client: Connection | None = None,
        reply: int | None = None,
        cells: bytes | None = None,
        refusable: bool = False,
    ) -> bool:
        """Carry ``command`` out for the seat and tell the clients; False (nothing
        done) when ``refusable`` and the rules refuse it while the seat is to act."""
        if self._in_time():
            sent = await self._send(seat, command, refusable)
            if sent is False:
                return False
            if isinstance(sent, Sent):
                if any(item.type in GAME_BOUNDARY for item in sent.events):
                    await self._all_stored()
                self.ahead = sent.match
                self._take(sent.events, client, reply, cells, sent.match.game)
                return True
        await self._all_stored()
        try:
            outcome = await self.service.act(
                self.match_id,
                self.tokens[seat],
                lambda _: command,
                f"uecda:{self.version}",
                answered=False,  # the clients are told from the stored events
            )
        except ServiceError as error:
            moved_on = error.code in MOVED_ON or self._moved_on()
            if refusable and not moved_on:
                return False
            # the turn was taken meanwhile (the timer): this table was not used
            log.info("uecda table %s seat %d: %s", self.match_id, seat, error)
            await self._next_action(client, REJECTED if client is not None else None)
            return True
        fresh = outcome.stored and outcome.version == outcome.stored[-1].seq
        self._take(outcome.stored, client, reply, cells, outcome.match.game if fresh else None)
        return True

    def _in_time(self) -> bool:
        """Whether this step may be sent without waiting: the table groups a game's
        steps, and the turn timer cannot act on the turn before the step lands."""
        if self.durability is Durability.STEP:
            return False
        if not self.turn_seconds:
            return True
        now_ms = time.time_ns() // 1_000_000
        return now_ms < self.last_at + self.turn_seconds * 1000 - TIMER_MARGIN_MS

    async def _send(
        self, seat: int, command: SeatCommand, refusable: bool
    ) -> Sent | Literal[False] | None:
        """The step sent to the store without waiting for it; False when ``refusable``
        and the rules refuse it; None when it is carried out the usual way instead (the
        store cannot send it so, or the table's match moved on elsewhere)."""
        base = await self._base()
        if base is None:
            return None
        try:
            sent = self.service.send_act(base, self.tokens[seat], command)
        except ServiceError as error:
            if refusable and error.code not in MOVED_ON:
                return False
            return None
        if sent is None:
            return None
        self.unstored.append(sent.stored)
        sent.stored.add_done_callback(self._stored)
        return sent

    async def _base(self) -> Match | None:
        """The match as this table has it: after its last step sent, or as stored."""
        if self.ahead is not None and self.ahead.version == self.version:
            return self.ahead
        match = self.service.cached(self.match_id)
        if match is None or match.version != self.version:
            match = await self.service.load(self.match_id)
        return match if match.version == self.version else None

    def _stored(self, stored: asyncio.Future[AppendResult]) -> None:
        """A step sent has its answer: if it was not stored, the table stops at once
        (nothing after it was stored either), its clients closed."""
        error = None if stored.cancelled() else stored.exception()
        if stored.cancelled() or error is not None:
            if self.failure is None:
                self.failure = error or asyncio.CancelledError()
                for client in self.clients.values():
                    client.close("the table stopped: a step was not stored")

    async def _all_stored(self) -> None:
        """Wait until every step sent is stored; TableStopped if one was not."""
        unstored, self.unstored = self.unstored, []
        if unstored:
            await asyncio.wait(unstored)
        if self.failure is not None:
            raise TableStopped

    def _moved_on(self) -> bool:
        """Whether the match has events this table has not taken (the service's cache
        has them once a refusal has looked)."""
        latest = self.service.cached(self.match_id)
        return latest is not None and latest.version > self.version

    async def _next_action(
        self, client: Connection | None = None, reply: int | None = None
    ) -> None:
        """Wait for the next action from elsewhere (a bot, a gRPC seat, the timer)."""
        await self._all_stored()  # the others act on what is stored
        while True:
            fresh = [item for item in self._unread if item.seq > self.version]
            if fresh:
                break
            try:
                fresh = await self.service.stored_events(self.match_id, self.version + 1)
                if fresh:
                    break
                await self.service.waits.until(
                    self.match_id, self.version + 1, functools.partial(_after, self.version)
                )
            except EventStoreError as error:
                log.warning("uecda table %s lost its match (%s); retrying", self.match_id, error)
                await asyncio.sleep(1.0)
        request = fresh[0].request_id
        count = next(
            (index for index, item in enumerate(fresh) if item.request_id != request), len(fresh)
        )
        self._unread = fresh[count:]
        self._take(fresh[:count], client, reply, None)

    # -- what the clients are told ---------------------------------------------------

    def _take(
        self,
        stored: Sequence[StoredEvent],
        client: Connection | None = None,
        reply: int | None = None,
        cells: bytes | None = None,
        folded: MatchState | None = None,
    ) -> None:
        """Fold one append's events (``folded``: the state after them, when known) and
        send what they mean: after a play or pass, the accept int, the field table and
        the end flag; after a deal, the start tables."""
        if not stored or stored[-1].seq <= self.version:
            return
        stored = [item for item in stored if item.seq > self.version]
        before = self._game
        rules: list[ev.Event] = []
        for item in stored:
            event = self.service.decoded.decode(item)  # the service's own: decoded once
            if type(event).__name__ in ev.EVENT_TYPES:
                rules.append(event)  # type: ignore[arg-type]
        split = next(
            (index for index, event in enumerate(rules) if isinstance(event, ev.GameDealt)),
            len(rules),
        )
        if split == len(rules) and folded is not None:
            acted = after = folded
        else:
            acted = fold(before, rules[:split]) if split else before
            after = fold(acted, rules[split:]) if split < len(rules) else acted
        self.version = stored[-1].seq
        self.last_at = stored[-1].at
        self.game = after
        if before.waiting_for == WaitingFor.PLAY and before.turn is not None:
            self._tell_action(before, acted, rules[:split], client, reply, cells)
        if split < len(rules):
            dealt = rules[split]
            assert isinstance(dealt, ev.GameDealt)
            self.field = EMPTY_CARD_ROWS
            for player, other in self.clients.items():
                other.send_table(start_table(after, dealt.hands, player))
        if split < len(rules) or acted.phase != before.phase:
            self._flush()  # a game's end, a deal: every client hears of it at once
        if after.phase == Phase.MATCH_OVER:
            for other in self.clients.values():
                other.close()

    def _tell_action(
        self,
        before: MatchState,
        acted: MatchState,
        events: Sequence[ev.Event],
        client: Connection | None,
        reply: int | None,
        cells: bytes | None,
    ) -> None:
        mover = before.turn
        assert mover is not None
        if client is not None and reply is not None:
            client.send_int(reply)
        for event in events:
            if isinstance(event, ev.CardsPlayed) and event.seat == mover:
                self.field = cells if cells is not None else played_cells(event, before.revolution)
                break
        end = GAME_GOES_ON
        if any(isinstance(e, ev.MatchEnded) for e in events):
            end = ALL_GAMES_OVER
        elif any(isinstance(e, ev.GameEnded) for e in events):
            end = GAME_OVER
        told = field_table(acted, self.field, mover) + pack_int(end)
        for other in self.clients.values():
            other.send_bytes(told)


def _after(version: int, match: Match) -> bool:
    return match.version > version


def jokers_as(wire: WirePlay) -> tuple[int, ...]:
    """What the joker stands for, from its cell: the card of that cell, or in columns
    0 and 14 the one below the 3 or above the 2; in row 4 (a group's fifth card) or
    alone, the rules' default reading."""
    if wire.joker_cell is None or wire.cards == JOKER_BIT:
        return ()
    row, column = wire.joker_cell
    if row == JOKER_ROW:
        return ()
    suit = SUIT_OF_ROW[row]
    if column == BELOW_3:
        return (reading_card(LOW_RANK, suit),)
    if column == ABOVE_2:
        return (reading_card(HIGH_RANK, suit),)
    return (make_card(column - 1, suit),)
