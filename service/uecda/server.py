"""The UECda listener: clients connect, send their profile, and fill a waiting table in
connect order; a full table starts its match (preset ``uecda``) and plays it out while
new clients fill the next. A gRPC client may take an open seat of a waiting table too
(it is an open-seat match, listed like any other)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass

from ..app.inputs import MIN_TURN_SECONDS
from ..app.service import GameService, MatchOptions, ServiceError
from ..match.events import BotKind
from .connection import Connection
from .table import SEATS, UecdaTable
from .wire import PROTOCOL_VERSION, cell, profile_name

log = logging.getLogger("daifugo.uecda")
PRESET = "uecda"
HANDSHAKE_SECONDS = 5.0  # the profile's time limit (the reference server waits 2.5 s)
NAME_LIMIT = 32


@dataclass(frozen=True, slots=True)
class UecdaSettings:
    games: int = 1000  # games_per_set of every table (the contest's GAME_NUMBER)
    bots: int = 0  # seats of each table our bot plays
    turn_seconds: float = 10.0  # the turn timer: a client that is gone or silent is played
    preset: str = PRESET
    options: tuple[tuple[str, object], ...] = ()  # rule options over the preset's
    # connections open at once (waiting for a profile, waiting for a table, playing):
    # past it a new one is closed at once, so no caller holds every file descriptor
    # the process has (gRPC and REST accept from the same ones)
    max_clients: int = 256
    bot_kind: BotKind = BotKind.STRONGER  # the bot our seats get (--uecda-bot-kind)


def clean_name(name: str) -> str:
    """A profile name as the service shows it: printable, at most 32 characters."""
    kept = "".join(char for char in name if char.isprintable()).strip()[:NAME_LIMIT]
    return kept or "uecda"


class UecdaServer:
    def __init__(self, service: GameService, settings: UecdaSettings) -> None:
        if not 0 <= settings.bots < SEATS:
            raise ValueError(f"--uecda-bots takes 0 to {SEATS - 1}")
        if 0 < settings.turn_seconds < MIN_TURN_SECONDS:  # else every table would be refused
            raise ValueError(f"--uecda-turn-seconds takes 0 or at least {MIN_TURN_SECONDS:g}")
        self.service = service
        self.settings = settings
        self._waiting: UecdaTable | None = None
        self.match_ids: list[str] = []  # every table's match, oldest first
        self._seating = asyncio.Lock()  # one client seated at a time: connect order
        self._tasks: set[asyncio.Task[None]] = set()
        self._server: asyncio.Server | None = None
        self.clients = 0  # connections open now

    async def start(self, host: str, port: int) -> int:
        self._server = await asyncio.start_server(self._connected, host, port)
        bound: int = self._server.sockets[0].getsockname()[1]
        return bound

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
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
            writer.close()
            return
        self.clients += 1
        client = Connection(reader, writer, self._closed)
        profile = await client.read_table(HANDSHAKE_SECONDS)
        if profile is None:
            return
        if profile[cell(0, 0)] != PROTOCOL_VERSION:
            client.close(f"protocol {profile[cell(0, 0)]}, not {PROTOCOL_VERSION}")
            return
        name = clean_name(profile_name(profile))
        try:
            await self._seat(client, name)
        except Exception:
            client.close("not seated")
            raise

    def _closed(self) -> None:
        self.clients -= 1

    async def _seat(self, client: Connection, name: str) -> None:
        async with self._seating:
            for _ in range(3):
                table = self._waiting or await self._new_table()
                try:
                    seated = await self.service.join(table.match_id, name)
                except ServiceError as error:
                    if error.code not in ("seats_full", "already_started"):
                        raise
                    self._waiting = None  # others filled it first (gRPC seats)
                    continue
                seat, token = seated.seat, seated.token
                assert token is not None
                table.seat_client(seat, token, client)
                client.send_int(seat)  # the player number
                log.info(
                    "uecda client %r at %s: table %s seat %d",
                    name,
                    client.peer,
                    table.match_id,
                    seat,
                )
                match = await self.service.load(table.match_id)
                if not match.seats_free:
                    self._waiting = None
                return
            client.close("no table would take it")

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
        )
        created = await self.service.create(options)
        table = UecdaTable(self.service, created, settings.turn_seconds, self._seating)
        self._waiting = table
        self.match_ids.append(created.match_id)
        self._spawn(table.run(), f"table {created.match_id}")
        return table
