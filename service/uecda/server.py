"""The UECda listener: clients connect, send their profile, and fill a waiting table in
connect order; a full table starts its match (preset ``uecda``) and plays it out while
new clients fill the next. A gRPC client may take an open seat of a waiting table too
(it is an open-seat match, listed like any other).

A seat is taken only by a client still connected when its table can start: clients
with a profile wait in a lobby (told nothing yet: the official client just waits for
its number), and once the lobby holds enough of them for the waiting table's free
seats, those still connected are seated in connect order, told their numbers, and
the table starts. One that closes while it waits holds nothing. Connections are
bounded (``max_clients``); past the bound a new one takes the place of the oldest
that has not sent its profile yet: silent and slow handshakes lose their place first."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import socket
import time
from dataclasses import dataclass

from eventstore.deadlines import Deadlines

from ..app.inputs import MIN_TURN_SECONDS
from ..app.lapsed_tables import LAPSE_MS, RENEW_MS
from ..app.service import CreatedMatch, GameService, MatchOptions, ServiceError
from ..match.events import BotKind
from .connection import Connection
from .table import SEATS, Durability, UecdaTable
from .wire import PROTOCOL_VERSION, cell, profile_name

log = logging.getLogger("daifugo.uecda")
PRESET = "uecda"
HANDSHAKE_SECONDS = 5.0  # the profile's time limit (the reference server waits 2.5 s)
NAME_LIMIT = 32


@dataclass(frozen=True, slots=True)
class _Waiting:
    name: str
    watch: asyncio.Task[None]  # ends when the client leaves the lobby by itself


@dataclass(frozen=True, slots=True)
class UecdaSettings:
    games: int = 1000  # games_per_set of every table (the contest's GAME_NUMBER)
    bots: int = 0  # seats of each table our bot plays
    turn_seconds: float = 10.0  # the turn timer: a client that is gone or silent is played
    preset: str = PRESET
    options: tuple[tuple[str, object], ...] = ()  # rule options over the preset's
    # connections open at once (waiting for a profile, waiting for a table, playing):
    # past it a new one takes the place of the oldest still without a profile, else
    # is closed at once, so no caller holds every file descriptor the process has
    # (gRPC and REST accept from the same ones) nor keeps real clients out
    max_clients: int = 256
    durability: Durability = Durability.GAME  # when a table's steps are stored (table.py)
    # rated tables (--uecda-arena): each client is the unverified player uecda:<name>, and
    # our bots take the seats no client took within arena_bots_after seconds
    arena: bool = False
    arena_bots_after: float = 10.0
    bot_kind: BotKind = BotKind.STRONGER  # the bot our seats get (--uecda-bot-kind)


def clean_name(name: str) -> str:
    """A profile name as the service shows it: printable, at most 32 characters."""
    kept = "".join(char for char in name if char.isprintable()).strip()[:NAME_LIMIT]
    return kept or "uecda"


class UecdaServer:
    def __init__(
        self,
        service: GameService,
        settings: UecdaSettings,
        deadlines: Deadlines | None = None,
    ) -> None:
        """``deadlines``: where this process's live tables' deadlines are pushed back
        (the lease holder abandons a match whose table died with its process, see
        service/app/lapsed_tables.py); None: nowhere."""
        if not 0 <= settings.bots < SEATS:
            raise ValueError(f"--uecda-bots takes 0 to {SEATS - 1}")
        if 0 < settings.turn_seconds < MIN_TURN_SECONDS:  # else every table would be refused
            raise ValueError(f"--uecda-turn-seconds takes 0 or at least {MIN_TURN_SECONDS:g}")
        self.service = service
        self.settings = settings
        self._waiting: UecdaTable | None = None
        self.match_ids: list[str] = []  # every table's match, oldest first
        self._seating = asyncio.Lock()  # one table filled at a time: connect order
        self._tasks: set[asyncio.Task[None]] = set()
        self._server: asyncio.Server | None = None
        self.clients = 0  # connections open now
        self.deadlines = deadlines
        self.live: set[str] = set()  # the matches of this process's tables that play on
        self._handshaking: dict[Connection, None] = {}  # no profile yet, oldest first
        self._lobby: dict[Connection, _Waiting] = {}  # a profile sent, no seat yet
        self._lobby_changed = asyncio.Event()

    async def start(self, host: str, port: int, backlog: int = 100) -> int:
        """Listen; ``backlog`` also bounds the connections accepted in one go."""
        self._server = await asyncio.start_server(self._connected, host, port, backlog=backlog)
        bound: int = self._server.sockets[0].getsockname()[1]
        if self.deadlines is not None:
            self._spawn(self._renew_deadlines(self.deadlines), "deadlines")
        self._spawn(self._fill_tables(), "seating")
        return bound

    @property
    def sockets(self) -> tuple[socket.socket, ...]:
        """The listening sockets (none before ``start``)."""
        return self._server.sockets if self._server is not None else ()

    async def _renew_deadlines(self, deadlines: Deadlines) -> None:
        """Push the live tables' deadlines back every RENEW_MS, while this process lives."""
        while True:
            if self.live:
                try:
                    await deadlines.renew(sorted(self.live), _now_ms() + LAPSE_MS)
                except Exception as error:  # Redis away: the next round tries again
                    log.warning("uecda tables' deadlines not renewed: %s", error)
            await asyncio.sleep(RENEW_MS / 1000)

    async def _play(self, table: UecdaTable) -> None:
        """Play the table's match out, its deadline pushed back meanwhile."""
        match_id = table.match_id
        self.live.add(match_id)
        try:
            if self.deadlines is not None:
                await self.deadlines.renew([match_id], _now_ms() + LAPSE_MS)
            await table.run()
        finally:
            self.live.discard(match_id)
        if self.deadlines is not None:
            await self.deadlines.forget(match_id)

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
        for client, waiting in list(self._lobby.items()):
            waiting.watch.cancel()
            client.close("the service stops")
        self._lobby.clear()
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=5.0)
        if self._server is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 2.0)

    def _spawn(self, coroutine: object, what: str) -> None:
        async def guarded() -> None:
            try:
                await coroutine  # type: ignore[misc]
            except asyncio.CancelledError:
                raise
            except Exception:  # one table's failure ends that table, never the server
                log.exception("uecda %s failed", what)

        task = asyncio.create_task(guarded())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _connected(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.clients >= self.settings.max_clients:
            oldest = next(iter(self._handshaking), None)
            if oldest is None:
                writer.close()
                return
            oldest.close("no profile yet, and its place was wanted")
        self.clients += 1
        client = Connection(reader, writer, self._closed)
        self._handshaking[client] = None
        try:
            profile = await client.read_table(HANDSHAKE_SECONDS)
        finally:
            self._handshaking.pop(client, None)
        if profile is None:
            return
        if profile[cell(0, 0)] != PROTOCOL_VERSION:
            client.close(f"protocol {profile[cell(0, 0)]}, not {PROTOCOL_VERSION}")
            return
        name = clean_name(profile_name(profile))
        watch = asyncio.create_task(self._watch_waiting(client))
        self._lobby[client] = _Waiting(name, watch)
        self._lobby_changed.set()

    def _closed(self) -> None:
        self.clients -= 1

    async def _watch_waiting(self, client: Connection) -> None:
        """Until it is seated: a client that closes (or sends anything: nothing is due
        from it before its table starts) leaves the lobby, holding no seat."""
        try:
            sent = await client.reader.read(1)
        except OSError:
            sent = b""
        client.close("sent data before its table started" if sent else "left before its table")
        self._lobby.pop(client, None)
        self._lobby_changed.set()

    async def _fill_tables(self) -> None:
        """Seat waiting clients whenever the lobby or the waiting table changes (a gRPC
        seat taken there may leave just enough free seats for those waiting)."""
        while True:
            self._lobby_changed.clear()
            try:
                table = await self._fill()
            except Exception:  # that table's trouble: those waiting go to the next one
                log.exception("uecda seating failed")
                self._waiting = None
                await asyncio.sleep(1.0)
                continue
            waits: list[asyncio.Task[object]] = [asyncio.create_task(self._lobby_changed.wait())]
            if table is not None:
                waits.append(asyncio.create_task(self._table_changes(table)))
            try:
                await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for wait in waits:
                    wait.cancel()

    async def _table_changes(self, table: UecdaTable) -> None:
        match = await self.service.load(table.match_id)
        await self.service.waits.until(table.match_id, match.version + 1, lambda _: True)

    async def _fill(self) -> UecdaTable | None:
        """Seat the lobby's clients at the waiting table once they fill it; returns the
        table still waiting (None: nobody waits)."""
        async with self._seating:
            for _ in range(3):
                if not self._lobby:
                    return self._waiting
                table = self._waiting or await self._new_table()
                match = await self.service.load(table.match_id)
                free = len(match.seats_free)
                if match.started or not free:
                    self._waiting = None  # others filled it first (gRPC seats)
                    continue
                # an arena table seats whoever waits: our bots take the seats left
                count = min(free, len(self._lobby)) if self.settings.arena else free
                if len(self._lobby) < count:
                    return table
                if await self._seat_lobby(table, count) and count == free:
                    self._waiting = None
            return self._waiting

    async def _seat_lobby(self, table: UecdaTable, free: int) -> bool:
        """Seat the ``free`` oldest clients of the lobby; whether all were seated."""
        for client in list(self._lobby)[:free]:
            waiting = self._lobby.pop(client)
            waiting.watch.cancel()
            if not client.connected or client.reader.at_eof():
                client.close("left before its table")
                return False
            try:
                seated = await self.service.join_program(table.match_id, waiting.name)
            except ServiceError as error:
                if error.code not in ("seats_full", "already_started"):
                    client.close("not seated")
                    raise
                # a gRPC seat came first: back to the front of the lobby
                self._lobby = {client: _Waiting(waiting.name, self._rewatch(client))} | (
                    self._lobby
                )
                return False
            seat, token = seated.seat, seated.token
            assert token is not None
            table.seat_client(seat, token, client)
            client.send_int(seat)  # the player number
            log.info(
                "uecda client %r at %s: table %s seat %d",
                waiting.name,
                client.peer,
                table.match_id,
                seat,
            )
        return True

    def _rewatch(self, client: Connection) -> asyncio.Task[None]:
        return asyncio.create_task(self._watch_waiting(client))

    async def _fill_with_bots(self, created: CreatedMatch) -> None:
        """The arena's bots take the seats no client took in time."""
        await asyncio.sleep(self.settings.arena_bots_after)
        async with self._seating:
            if self._waiting is not None and self._waiting.match_id == created.match_id:
                self._waiting = None  # the next client opens a new table
            kinds = itertools.cycle((BotKind.STRONGER, BotKind.GREEDY, BotKind.RANDOM))
            for kind in kinds:
                if not (await self.service.load(created.match_id)).seats_free:
                    return
                try:
                    await self.service.seat_bot(created.match_id, created.host_token, kind)
                except ServiceError as error:
                    if error.code in ("seats_full", "already_started"):
                        return
                    raise

    async def _new_table(self) -> UecdaTable:
        settings = self.settings
        options = MatchOptions(
            preset=settings.preset,
            players=SEATS,
            options=dict(settings.options),
            games_per_set=settings.games,
            turn_seconds=settings.turn_seconds,
            open_seats=True,
            bots={seat: settings.bot_kind for seat in range(settings.bots)},
            rated=settings.arena,
        )
        created = await self.service.create(options)
        if settings.arena:
            self._spawn(self._fill_with_bots(created), f"bots for {created.match_id}")
        table = UecdaTable(
            self.service, created, settings.turn_seconds, self._seating, settings.durability
        )
        self._waiting = table
        self.match_ids.append(created.match_id)
        self._spawn(self._play(table), f"table {created.match_id}")
        return table


def _now_ms() -> int:
    return time.time_ns() // 1_000_000
