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
from collections.abc import Sequence

from eventstore import EventStoreError, StoredEvent

from ..app.match import Match
from ..app.service import CreatedMatch, GameService, ServiceError
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
GRACE = 1.0  # seconds past the turn time before a silent client is dropped (the timer acts)


class UecdaTable:
    def __init__(
        self,
        service: GameService,
        created: CreatedMatch,
        turn_seconds: float,
        seating: asyncio.Lock | None = None,
    ) -> None:
        """``seating``: held while a client is seated (joined, then told its number);
        the match starts only once the client that filled the table has been told."""
        self.service = service
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
            self.game, self.version = match.game, match.version
            try:
                outcome = await self.service.start(self.match_id, self.host_token, "uecda:start")
                self._take(outcome.stored)
            except ServiceError as error:
                if error.code != "already_started":
                    raise
            while self._game.phase != Phase.MATCH_OVER:
                await self._turn()
        finally:
            for client in self.clients.values():
                client.close()

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
        self._flush()
        if waiting == WaitingFor.PLAY and client is not None:
            await self._client_plays(client, game, seat)  # type: ignore[arg-type]
        elif waiting == WaitingFor.EXCHANGE and client is not None:
            await self._client_gives(client, game, seat)  # type: ignore[arg-type]
        else:
            await self._next_action()

    def _flush(self) -> None:
        """Write what this step told the clients now, before anything else the append
        woke (the projections, the timers) runs: the next move waits on it."""
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

    def _moved_on(self) -> bool:
        """Whether the match has events this table has not taken (the service's cache
        has them once a refusal has looked)."""
        latest = self.service.cached(self.match_id)
        return latest is not None and latest.version > self.version

    async def _next_action(
        self, client: Connection | None = None, reply: int | None = None
    ) -> None:
        """Wait for the next action from elsewhere (a bot, a gRPC seat, the timer)."""
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
        self.game = after
        if before.waiting_for == WaitingFor.PLAY and before.turn is not None:
            self._tell_action(before, acted, rules[:split], client, reply, cells)
        if split < len(rules):
            dealt = rules[split]
            assert isinstance(dealt, ev.GameDealt)
            self.field = EMPTY_CARD_ROWS
            for player, other in self.clients.items():
                other.send_table(start_table(after, dealt.hands, player))
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
