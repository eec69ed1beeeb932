"""The arena: a queue per ratings pool, tables formed by rating proximity, our bots
filling a table for whoever has waited long enough, rated matches started at once.

Whoever queues (a registered player, by its key) is seated at a rated match with open
seats and auto start: the arena joins each queued player with its key, as the player
itself would, and hands back the seat's token. A player that stays queued is queued
again as soon as its match is over, so a program plays match after match unattended.

How tables form, every ``tick`` seconds, per pool: the queue is taken oldest first; for
each player not seated yet, the others within its window (the ordinals' distance
``window + widen * seconds waited``, the wider of the two players' windows) are its
candidates; with enough of them the nearest fill its table. Once a player has waited
``bots_after`` seconds our bots fill the seats the queue could not (a lone program
always gets games). Bots are taken strongest first from ``BOT_KINDS``, in turn.

The queues live in this process: players queued on two replicas do not meet (a shared
queue would be a port under eventstore/, as the rate limits are).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import random
import time
from collections.abc import AsyncGenerator
from dataclasses import dataclass, field

from ..match import BotKind
from .errors import RefusalCode, ServiceCode, ServiceError
from .players import Player
from .ratings import POOLS, Ratings
from .service import GameService, MatchOptions

log = logging.getLogger("daifugo.arena")

BOT_KINDS = (BotKind.STRONGER, BotKind.GREEDY, BotKind.RANDOM)
MAX_QUEUED = 10_000  # players queued in all pools at once
TABLE_OF_BAND = {"2-3": 3, "4-5": 4}


@dataclass(frozen=True, slots=True)
class ArenaSettings:
    tick: float = 0.25  # seconds between looks at the queues
    window: float = 5.0  # ordinal distance that seats players together at once
    widen: float = 1.0  # ... widened by this much per second waited
    bots_after: float = 10.0  # seconds before our bots fill a waiting player's table
    turn_seconds: float = 30.0  # a seat's time per turn in arena matches
    games_per_set: int = 0  # 0: the preset's


@dataclass(frozen=True, slots=True)
class Seating:
    pool: str
    match_id: str
    seat: int
    token: str


@dataclass(eq=False)
class _Entry:
    player: Player
    key: str
    pool: str
    since: float
    ordinal: float = 0.0
    seated: asyncio.Future[Seating] = field(default_factory=asyncio.Future)


class Arena:
    def __init__(
        self, service: GameService, ratings: Ratings, settings: ArenaSettings | None = None
    ) -> None:
        self.service = service
        self.ratings = ratings
        self.settings = settings or ArenaSettings()
        self._queues: dict[str, list[_Entry]] = {pool: [] for pool in POOLS}
        self._queued: dict[str, _Entry] = {}  # by player id
        self._bots = itertools.cycle(BOT_KINDS)
        self._task: asyncio.Task[None] | None = None
        self.seated_count = 0  # players seated since start (the bench reads it)

    @property
    def queued_count(self) -> int:
        """Players queued now, in all pools."""
        return len(self._queued)

    # -- queueing ----------------------------------------------------------------

    async def queue(self, key: str | None, pool: str) -> AsyncGenerator[Seating, None]:
        """Seatings for the key's player in ``pool``, one per match, until the caller
        stops reading; each after the one before is over."""
        if pool not in POOLS:
            raise ServiceError(
                RefusalCode.BAD_REQUEST, f"no pool {pool!r}; pools: {', '.join(POOLS)}"
            )
        player = await self.service.players.authenticate(key)
        assert key is not None
        if player.player_id in self._queued:
            raise ServiceError(ServiceCode.ALREADY_QUEUED, "that player is queued already")
        if len(self._queued) >= MAX_QUEUED:
            raise ServiceError(ServiceCode.BUSY, "the arena's queues are full; try again later")
        self._ensure_running()
        while True:
            entry = _Entry(player, key, pool, time.monotonic())
            entry.ordinal = await self._ordinal(pool, player.player_id)
            self._queued[player.player_id] = entry
            self._queues[pool].append(entry)
            try:
                seating = await entry.seated
            finally:
                self._leave(entry)
            yield seating
            await self._until_over(seating.match_id)

    def _leave(self, entry: _Entry) -> None:
        if self._queued.get(entry.player.player_id) is entry:
            del self._queued[entry.player.player_id]
        with contextlib.suppress(ValueError):
            self._queues[entry.pool].remove(entry)

    async def _ordinal(self, pool: str, player_id: str) -> float:
        rating = (await self.ratings.pool(pool)).players.get(player_id)
        return rating.ordinal if rating is not None else 0.0

    async def _until_over(self, match_id: str) -> None:
        while not (await self.service.load(match_id)).over:
            await asyncio.sleep(max(self.settings.tick, 0.2))

    # -- forming tables ------------------------------------------------------------

    def _ensure_running(self) -> None:
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run())

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.settings.tick)
            try:
                await self.form_tables(time.monotonic())
            except Exception:  # a store away, a bug: the queues stay, tried next tick
                log.exception("the arena could not form tables; trying again")

    async def form_tables(self, now: float) -> int:
        """Seat whom the queues can seat now; how many tables were started."""
        started = 0
        for pool, queue in self._queues.items():
            waiting = [entry for entry in queue if not entry.seated.done()]
            size = TABLE_OF_BAND[pool.split(".")[1]]
            while waiting:
                table = self._table_for(waiting, size, now)
                if table is None:
                    break
                for entry in table:
                    waiting.remove(entry)
                await self._start(pool, size, table)
                started += 1
        return started

    def _table_for(self, waiting: list[_Entry], size: int, now: float) -> list[_Entry] | None:
        settings = self.settings
        for anchor in sorted(waiting, key=lambda entry: entry.since):
            reach = settings.window + settings.widen * (now - anchor.since)

            def near(other: _Entry, anchor: _Entry = anchor, reach: float = reach) -> bool:
                theirs = settings.window + settings.widen * (now - other.since)
                return abs(other.ordinal - anchor.ordinal) <= max(reach, theirs)

            others = sorted(
                (e for e in waiting if e is not anchor and near(e)),
                key=lambda e: abs(e.ordinal - anchor.ordinal),
            )
            if len(others) >= size - 1:
                return [anchor, *others[: size - 1]]
            if now - anchor.since >= settings.bots_after:
                return [anchor, *others]  # bots fill the rest
        return None

    async def _start(self, pool: str, size: int, table: list[_Entry]) -> None:
        preset = pool.split(".")[0]
        bots = {seat: next(self._bots) for seat in range(len(table), size)}
        options = MatchOptions(
            preset,
            size,
            {},
            games_per_set=self.settings.games_per_set,
            turn_seconds=self.settings.turn_seconds,
            open_seats=True,
            bots=bots,
            auto_start=True,
            rated=True,
        )
        created = await self.service.create(options)
        random.shuffle(table)  # who sits first: not who queued first
        for entry in table:
            try:
                seated = await self.service.join(
                    created.match_id, entry.player.name, player_key=entry.key
                )
            except ServiceError as error:  # its key rotated meanwhile: a bot instead
                entry.seated.set_exception(error)
                await self.service.seat_bot(created.match_id, created.host_token, next(self._bots))
                continue
            assert seated.token is not None
            self.seated_count += 1
            entry.seated.set_result(Seating(pool, created.match_id, seated.seat, seated.token))
