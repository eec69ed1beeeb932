"""Projections rebuilt from events: each match's places and points per game,
and a global ranking of players across matches.

A projection follows the global feed and applies each event with its
checkpoint at once (``ProjectionStore.apply``), so a restarted or
doubled projection never skips an event nor counts one twice. ``rebuild``
throws the projection away and folds every stream again from seq 0, the archived
matches' too.

Points for a game: players - place (大富豪 of four gets 3, 大貧民 0), plus the
rule set's ``points_for_last`` (1 in ``uecda``: 5/4/3/2/1 for five players). A
player is known by the name it joined a seat with (a UECda program by its profile's
name), and counted by points, games, firsts and games in each place.

The games of a match with a spectator delay are counted when it ends: the ranking moving
at a game's end would tell its spectators who won before their delay lets them see it.

An abandoned match (MatchAbandoned) keeps the games that ended before it: each counts
as any game does (a delayed match's, at the abandonment). The game it stopped in
counts for nobody: no place was given in it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from eventstore import Archive, Op, Storage, StoredEvent
from eventstore.cache import BoundedCache

from .following import FeedProjection
from .match import match_id_of, stream_of

NAME = "results"
MAX_PLACES = 5
MATCHES_REMEMBERED = 4096  # matches whose names and bonus are kept between events


@dataclass(frozen=True, slots=True)
class Standing:
    name: str
    points: int
    games: int
    firsts: int
    places: tuple[int, ...] = ()  # games finished in each place, 1st first


class ResultsProjection(FeedProjection):
    name = NAME

    def __init__(self, storage: Storage) -> None:
        super().__init__(storage)
        # what a game's end needs of its match (else read back: both are stored too)
        self._names = BoundedCache[str, dict[int, str]](MATCHES_REMEMBERED)
        self._bonus = BoundedCache[str, int](MATCHES_REMEMBERED)  # points_for_last
        self._delayed = BoundedCache[str, bool](MATCHES_REMEMBERED)  # a spectator delay

    @property
    def ranking_key(self) -> str:
        return self._key("ranking")

    # -- applying ----------------------------------------------------------------

    async def _ops(self, event: StoredEvent) -> list[Op]:
        match_id = match_id_of(event.stream)
        if match_id is None:
            return []
        if event.type == "MatchCreated":
            self._delayed.put(match_id, bool(event.data.get("spectator_delay_ms")))
            options = event.data.get("options")
            bonus = options.get("points_for_last", 0) if isinstance(options, dict) else 0
            bonus = self._bonus.put(
                match_id, bonus if isinstance(bonus, int) and 0 < bonus <= 1 else 0
            )
            self._names.put(match_id, {})
            if bonus:
                return [("SET", self._key(f"bonus:{match_id}"), bonus)]
        elif event.type == "SeatJoined":
            seat, name = int(event.data["seat"]), str(event.data["name"])
            names = self._names.get(match_id)
            if names is not None:  # else read back whole at the game's end
                names[seat] = name
            return [("HSET", self._key(f"names:{match_id}"), seat, name)]
        elif event.type == "GameEnded":
            if await self._is_delayed(match_id):
                return []  # counted at the match's end
            return await self._game_ops(match_id, [int(place) for place in event.data["places"]])
        elif event.type in ("MatchEnded", "MatchAbandoned") and await self._is_delayed(match_id):
            before = await self.store.read(event.stream, 0, event.seq)
            ended = [game.data["places"] for game in before if game.type == "GameEnded"]
            # past any counted as they ended (by a version that did so)
            ops: list[Op] = []
            counted = await self.state.length(self._key(f"games:{match_id}"))
            for places in ended[counted:]:
                ops += await self._game_ops(match_id, [int(place) for place in places])
            return ops
        return []

    async def _game_ops(self, match_id: str, places: list[int]) -> list[Op]:
        names = await self._names_of(match_id)
        players = len(places) + await self._bonus_of(match_id)
        ops: list[Op] = [("RPUSH", self._key(f"games:{match_id}"), json.dumps(places))]
        for seat, place in enumerate(places):
            name = names.get(seat, f"seat {seat}")
            points = players - place
            ops += [
                ("HINCRBY", self._key(f"points:{match_id}"), seat, points),
                ("ZINCRBY", self.ranking_key, points, name),
                ("HINCRBY", self._key("games"), name, 1),
                ("HINCRBY", self._key(f"places:{place}"), name, 1),
            ]
            if place == 1:
                ops.append(("HINCRBY", self._key("firsts"), name, 1))
        return ops

    async def _is_delayed(self, match_id: str) -> bool:
        delayed = self._delayed.get(match_id)
        if delayed is None:  # read back from the match's first event
            created = await self.store.read(stream_of(match_id), 0, 1)
            delay = created[0].data.get("spectator_delay_ms") if created else 0
            delayed = self._delayed.put(match_id, bool(delay))
        return delayed

    async def _bonus_of(self, match_id: str) -> int:
        bonus = self._bonus.get(match_id)
        if bonus is None:
            raw = await self.state.get(self._key(f"bonus:{match_id}"))
            bonus = self._bonus.put(match_id, int(raw or 0))
        return bonus

    async def _names_of(self, match_id: str) -> dict[int, str]:
        names = self._names.get(match_id)
        if names is None:
            stored = await self.state.hash(self._key(f"names:{match_id}"))
            names = self._names.put(match_id, {int(seat): name for seat, name in stored.items()})
        return names

    def kept_for(self, stream: str) -> list[str]:
        """A match's own places, points, names and bonus: what its rankings' counts
        were made with. Once it left the store it is over (sealed), and its games are in
        the ranking and in its archived events."""
        match_id = match_id_of(stream)
        if match_id is None:
            return []
        return [self._key(f"{kind}:{match_id}") for kind in ("games", "points", "names", "bonus")]

    # -- reading -----------------------------------------------------------------

    # Readers raise the store's errors (StoreUnavailable, EventStoreError), never Redis's:
    # what reads them (REST) knows the store's port alone.

    async def games(self, match_id: str) -> list[list[int]]:
        """Each finished game's places, by seat (none once the sealed match is retired)."""
        return [json.loads(item) for item in await self.state.items(self._key(f"games:{match_id}"))]

    async def points(self, match_id: str) -> dict[int, int]:
        stored = await self.state.hash(self._key(f"points:{match_id}"))
        return {int(seat): int(points) for seat, points in stored.items()}

    async def ranking(self, offset: int = 0, limit: int = 50) -> list[Standing]:
        """Players by points, best first."""
        standings = []
        for name, score in await self.state.top_by_score(self.ranking_key, offset, limit):
            games, firsts = await self._counts("games", name), await self._counts("firsts", name)
            places = [
                await self._counts(f"places:{place}", name) for place in range(1, MAX_PLACES + 1)
            ]
            while places and not places[-1]:
                places.pop()
            standings.append(Standing(name, int(score), games, firsts, tuple(places)))
        return standings

    async def _counts(self, what: str, name: str) -> int:
        return int((await self.state.hash_values(self._key(what), [name]))[0] or 0)

    async def rebuild(self, archive: Archive | None = None) -> None:
        """Throw the projection away and fold every stream again: the store's, then the
        matches moved to ``archive``, read through the store (``use_archive``)."""
        await self.state.clear()
        self._names.clear()
        self._bonus.clear()
        self._delayed.clear()
        if archive is not None:
            await self._fold_archived(await archive.names())
        await self.catch_up()

    async def _fold_archived(self, streams: Sequence[str]) -> None:
        """Count the archived matches' games as their events did: no position is kept
        (they never come again), nor what is kept for a match alone (as when retired).
        One still in the store too (a move cut short) is left to the store's fold."""
        streams = [stream for stream in streams if match_id_of(stream) is not None]
        held = await self.store.holds(streams)
        for stream, here in zip(streams, held, strict=True):
            if here:
                continue
            for event in await self.store.read(stream):
                if ops := await self._ops(event):
                    await self.state.write(ops)
            await self.state.write([("DEL", key) for key in self.kept_for(stream)])
