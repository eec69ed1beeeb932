"""Ratings: OpenSkill (Plackett-Luce) ratings of the games of rated matches, one per
player per pool, as a fold of the log.

Two steps, both from events:

1. ``RatingsRecorder`` (a background follower of the lease holder) reads each rated
   match's ``GameEnded`` and appends a ``GameRated`` to its pool's stream ``r:<pool>``
   (who sat where, their places), with the request id ``<match stream>:<seq>``: the
   store's idempotency makes a game recorded twice (a restart, two holders in a
   handover) a no-op. The order of a pool's stream is the order games are rated in:
   OpenSkill's updates depend on order, and the feed gives none between matches.
2. ``Ratings`` folds a pool's stream, from seq 0 or from where it stopped, into each
   player's rating. The fold is pure and the stream fixed, so rebuilding from the log
   gives the same numbers bit for bit (tests/ratings/test_fold.py).

A match is rated when it was created rated (``MatchCreated.rated``) and every seat is a
registered player (``SeatJoined.player``) or one of our bots (``bot:<kind>``): the
match decider refuses any other seat in a rated match, and the recorder checks again.
Games of a match with a spectator delay are recorded at its end, as the results are.

Pools: the preset (each is a rule family: the same ranking of skills within one, not
across) and a band of the player count, 2-3 or 4-5: at four and five every game has
both exchanges and the standard table, at two and three hands are long and play is
another game; two bands keep enough players in each pool for tables to form.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from openskill.models import PlackettLuce

from eventstore import (
    ConcurrencyConflict,
    EventStore,
    NewEvent,
    Storage,
    StoredEvent,
)
from eventstore.cache import BoundedCache

from ..rules import PRESETS
from .following import Resume, resume_of, retire_closed
from .match import match_id_of, stream_of
from .players import bot_player_name, player_id_of

log = logging.getLogger("daifugo.ratings")

RATINGS_STREAM = "r:"
SCHEMA = 1
BANDS = ("2-3", "4-5")
MATCHES_REMEMBERED = 4096
HISTORY_KEPT = 200  # rating changes kept per player for its page
MODEL = PlackettLuce()  # its defaults: mu 25, sigma 25/3, beta 25/6, tau 25/300


def band_of(players: int) -> str:
    return BANDS[0] if players <= 3 else BANDS[1]


def pool_of(preset: str, players: int) -> str:
    return f"{preset}.{band_of(players)}"


POOLS = tuple(f"{preset}.{band}" for preset in sorted(PRESETS) for band in BANDS)


def pool_stream(pool: str) -> str:
    return f"{RATINGS_STREAM}{pool}"


@dataclass(frozen=True, slots=True)
class Seat:
    player_id: str
    name: str


@dataclass(frozen=True, slots=True)
class Change:
    """One rated game's effect on one player."""

    seq: int  # the game's seq in the pool's stream
    match_id: str
    game: int  # the seq of its GameEnded in the match's stream
    place: int
    ordinal: float
    delta: float  # the ordinal's change
    at: int  # ms, when the game was rated


@dataclass(slots=True)
class PlayerRating:
    player_id: str
    name: str
    mu: float
    sigma: float
    games: int = 0
    last_change: float = 0.0
    history: list[Change] = field(default_factory=list)

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma


@dataclass(frozen=True, slots=True)
class RatedGame:
    """A ``GameRated`` event's data."""

    match_id: str
    game: int  # the seq of its GameEnded in the match's stream (a replay's link)
    seats: tuple[Seat, ...]
    places: tuple[int, ...]  # by seat, 1 = first

    def data(self) -> dict[str, Any]:
        return {
            "match_id": self.match_id,
            "game": self.game,
            "players": [[seat.player_id, seat.name] for seat in self.seats],
            "places": list(self.places),
        }

    @staticmethod
    def of(data: Mapping[str, Any]) -> RatedGame:
        seats = tuple(Seat(str(pair[0]), str(pair[1])) for pair in data["players"])
        return RatedGame(str(data["match_id"]), int(data["game"]), seats, tuple(data["places"]))


class PoolFold:
    """A pool's ratings: the fold of its stream's ``GameRated`` events, in order."""

    def __init__(self) -> None:
        self.players: dict[str, PlayerRating] = {}
        self.version = -1  # the seq of the last event folded

    def apply(self, seq: int, game: RatedGame, at: int = 0) -> None:
        assert seq == self.version + 1, f"event {seq} after {self.version}"
        self.version = seq
        # one player in two seats (a table of five with four of our bots, of three
        # kinds): its best-placed seat counts, the others are left out of the game
        counted: dict[str, tuple[int, Seat]] = {}
        for seat, place in sorted(zip(game.seats, game.places, strict=True), key=lambda p: p[1]):
            counted.setdefault(seat.player_id, (place, seat))
        if len(counted) < 2:
            return
        places = [place for place, _ in counted.values()]
        rated = [self._rating(seat) for _, seat in counted.values()]
        teams = [[MODEL.rating(mu=r.mu, sigma=r.sigma)] for r in rated]
        after = MODEL.rate(teams, ranks=[float(place) for place in places])
        for rating, (new,), place in zip(rated, after, places, strict=True):
            before = rating.ordinal
            rating.mu, rating.sigma = new.mu, new.sigma
            rating.games += 1
            rating.last_change = rating.ordinal - before
            rating.history.append(
                Change(seq, game.match_id, game.game, place, rating.ordinal, rating.last_change, at)
            )
            del rating.history[:-HISTORY_KEPT]

    def _rating(self, seat: Seat) -> PlayerRating:
        rating = self.players.get(seat.player_id)
        if rating is None:
            start = MODEL.rating()
            rating = PlayerRating(seat.player_id, seat.name, start.mu, start.sigma)
            self.players[seat.player_id] = rating
        return rating

    def standings(self) -> list[PlayerRating]:
        """Best first: by ordinal, then mu, then name."""
        return sorted(self.players.values(), key=lambda r: (-r.ordinal, -r.mu, r.name))


def fold_events(events: Sequence[StoredEvent], into: PoolFold | None = None) -> PoolFold:
    fold = into or PoolFold()
    for event in events:
        if event.type == "GameRated":
            fold.apply(event.seq, RatedGame.of(event.data), event.at)
        else:  # a later event type this version does not rate by
            fold.version = event.seq
    return fold


class Ratings:
    """Every pool's ratings as of its stream now: each read folds what was appended
    since the last (the whole stream the first time, after a restart)."""

    def __init__(self, store: EventStore) -> None:
        self.store = store
        self._folds: dict[str, PoolFold] = {}
        self._locks: dict[str, asyncio.Lock] = {}

    async def pool(self, pool: str) -> PoolFold:
        if pool not in POOLS:
            raise ValueError(f"no pool {pool!r}")
        lock = self._locks.setdefault(pool, asyncio.Lock())
        async with lock:
            fold = self._folds.setdefault(pool, PoolFold())
            async for page in self.store.read_pages(pool_stream(pool), fold.version + 1):
                fold_events(page, fold)
            return fold


@dataclass(frozen=True, slots=True)
class _Table:
    pool: str
    rated: bool
    delayed: bool
    seats: dict[int, Seat]


NAME = "ratings"


class RatingsRecorder:
    """Follows the feed; appends each rated game to its pool's stream (see the module)."""

    name = NAME
    pace = 0.25

    def __init__(self, storage: Storage) -> None:
        self.store = storage.events
        # where it is: each event passed after its work (at-least-once: the appends are
        # idempotent), committed every few seconds, every stream's (a player's, a
        # pool's too: else a restart would read them all again)
        self.checkpoints = storage.projection(self.name)
        self._tables = BoundedCache[str, _Table](MATCHES_REMEMBERED)

    async def start(self) -> Resume:
        return await resume_of(self.store, self, self.checkpoints)

    async def retire(self) -> int:
        return await retire_closed(self.store, self.checkpoints)

    async def forget(self, streams: Sequence[str]) -> None:
        await self.checkpoints.forget(streams)

    async def commit_passed(self) -> None:
        await self.checkpoints.commit_passed()

    async def take(self, event: StoredEvent) -> None:
        match_id = match_id_of(event.stream)
        if match_id is not None and event.type == "GameEnded":
            table = await self._table(match_id)
            if table.rated and not table.delayed:
                await self._record(table, match_id, event)
        elif match_id is not None and event.type == "MatchEnded":
            table = await self._table(match_id)
            if table.rated and table.delayed:
                for ended in await self.store.read(event.stream, 0, event.seq):
                    if ended.type == "GameEnded":
                        await self._record(table, match_id, ended)
        await self.checkpoints.apply_or_defer(event, ())

    async def _table(self, match_id: str) -> _Table:
        table = self._tables.get(match_id)
        if table is None:
            table = self._tables.put(match_id, await self._read_table(match_id))
        return table

    async def _read_table(self, match_id: str) -> _Table:
        """Its pool, and who sits where: all in the events before its start."""
        created: dict[str, Any] = {}
        seats: dict[int, Seat] = {}
        async for page in self.store.read_pages(stream_of(match_id), 0, 64):
            for event in page:
                if event.type == "MatchCreated":
                    created = event.data
                elif event.type == "SeatJoined":
                    seats[int(event.data["seat"])] = _seat_of(event.data)
                elif event.type == "MatchStarted":
                    break
            else:
                continue
            break
        players = int(created.get("players", 0))
        everyone = len(seats) == players and all(seat.player_id for seat in seats.values())
        return _Table(
            pool_of(str(created.get("preset", "")), players),
            bool(created.get("rated")) and everyone and created.get("preset") in PRESETS,
            bool(created.get("spectator_delay_ms")),
            seats,
        )

    async def _record(self, table: _Table, match_id: str, ended: StoredEvent) -> None:
        places = tuple(int(place) for place in ended.data["places"])
        game = RatedGame(
            match_id,
            ended.seq,
            tuple(table.seats[seat] for seat in range(len(places))),
            places,
        )
        stream = pool_stream(table.pool)
        request_id = f"game:{ended.stream}:{ended.seq}"
        record = NewEvent("GameRated", game.data(), SCHEMA)
        for _ in range(20):
            version = await self.store.version(stream)
            try:
                await self.store.append(stream, [record], version, request_id)
                return
            except ConcurrencyConflict:
                continue  # another writer meanwhile: its game first, then this one
        log.warning("%s: %s not recorded yet (busy); tried again later", stream, request_id)
        raise ConcurrencyConflict(stream, version, await self.store.version(stream))


def _seat_of(data: Mapping[str, Any]) -> Seat:
    bot = str(data.get("bot") or "")
    if bot:
        name = bot_player_name(bot)
        return Seat(player_id_of(name), name)
    return Seat(str(data.get("player") or ""), str(data["name"]))
