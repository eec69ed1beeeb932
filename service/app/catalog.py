"""The match catalog: every match's listing (preset, seats, names, state, game
number, times), and indexes to list them newest first by state and preset.

Like the results projection it follows the global feed and applies each event
with its checkpoint in one script (``RedisCheckpoints.apply``): exactly once,
restartable, and ``rebuild`` folds every stream again from seq 0. It is
eventually consistent: a match shows up (or changes state) a moment after its
events are stored.

Keys (all in the projection's slot): ``match:<id>`` a hash per match;
``idx:<filter>`` sorted sets whose members are ``<created ms, 13 digits>:<id>``
with score 0, so ZREVRANGEBYLEX pages newest first and a member is its own
cursor. Filters: ``all``, ``state:<s>``, ``preset:<p>``, ``state:<s>:preset:<p>``.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Any, Literal

from eventstore import RedisEventStore, StoredEvent
from eventstore.cache import BoundedCache
from eventstore.connection import unavailable_as
from eventstore.feed import Op

from .following import FeedProjection, pairs
from .match import match_id_of

log = logging.getLogger("daifugo.catalog")
NAME = "catalog"
# the events that change a listing (MatchSealed: a finished match's last event)
LISTED = frozenset(
    {
        *("MatchCreated", "SeatJoined", "MatchStarted", "GameDealt"),
        *("MatchEnded", "SeedRevealed", "MatchSealed"),
    }
)
MatchState = Literal["open", "live", "finished"]
STATES: tuple[MatchState, ...] = ("open", "live", "finished")
# a cursor is an index member: created ms (13 digits), then the match id
CURSOR = re.compile(r"\d{13}:[0-9A-Za-z_-]{1,64}")


@dataclass(frozen=True, slots=True)
class Listing:
    match_id: str
    preset: str
    players: int
    state: MatchState
    names: tuple[str, ...]
    game_number: int
    games_per_set: int
    created_at: int  # ms since the epoch, as stored
    updated_at: int  # when the listing last changed (not every play: the stream says that)
    version: int  # the stream's version at that change
    spectator_delay_ms: int  # -1: not known (listed before the catalog kept it)


@dataclass(frozen=True, slots=True)
class _Known:
    member: str
    preset: str


class CatalogProjection(FeedProjection):
    name = NAME

    def __init__(self, store: RedisEventStore) -> None:
        super().__init__(store)
        # what a state change needs to move a match between indexes (else read back)
        self._known = BoundedCache[str, _Known](4096)

    def _indexes(self, state: str, preset: str) -> list[str]:
        return [
            self._key("idx:all"),
            self._key(f"idx:state:{state}"),
            self._key(f"idx:preset:{preset}"),
            self._key(f"idx:state:{state}:preset:{preset}"),
        ]

    # -- applying ----------------------------------------------------------------

    async def _ops(self, event: StoredEvent) -> list[Op]:
        match_id = match_id_of(event.stream)
        if match_id is None or event.type not in LISTED:
            return []  # play by play, nothing a listing shows changes: no write
        key = self._key(f"match:{match_id}")
        ops: list[Op] = [("HSET", key, "updated_at", event.at, "version", event.seq)]
        data = event.data
        if event.type == "MatchCreated":
            preset = str(data["preset"])
            member = f"{event.at:013d}:{match_id}"
            self._known.put(match_id, _Known(member, preset))
            players = int(data["players"])
            games = int(data.get("options", {}).get("games_per_set", 1))
            free = "" if data.get("open_seats") else "host"
            delay = int(data.get("spectator_delay_ms", 0))
            ops.append(
                (
                    "HSET",
                    key,
                    *("match_id", match_id, "preset", preset, "players", players),
                    *("state", "open", "game_number", 0, "games_per_set", games),
                    *("created_at", event.at, "member", member),
                    *("spectator_delay_ms", delay),
                    *(item for seat in range(players) for item in (f"name:{seat}", free)),
                )
            )
            ops += [("ZADD", index, 0, member) for index in self._indexes("open", preset)]
        elif event.type == "SeatJoined":
            ops.append(("HSET", key, f"name:{int(data['seat'])}", str(data["name"])))
        elif event.type == "GameDealt":
            ops.append(("HSET", key, "game_number", int(data["game_number"])))
        elif event.type == "MatchStarted":
            ops += await self._move(match_id, key, "open", "live")
        elif event.type == "MatchEnded":
            ops += await self._move(match_id, key, "live", "finished")
            self._known.pop(match_id, None)
        return ops

    async def _move(self, match_id: str, key: str, old: str, new: str) -> list[Op]:
        known = self._known.get(match_id)
        if known is None:
            with unavailable_as("catalog", self.store.url):
                client = await self.store.raw_client()
                member, preset = await client.hmget(key, ["member", "preset"])  # type: ignore[misc]
            if member is None or preset is None:
                return []  # created before the catalog existed and not rebuilt: nothing to move
            known = _Known(member.decode(), preset.decode())
            self._known.put(match_id, known)
        ops: list[Op] = [("HSET", key, "state", new)]
        ops += [("ZREM", index, known.member) for index in self._indexes(old, known.preset)]
        ops += [("ZADD", index, 0, known.member) for index in self._indexes(new, known.preset)]
        return ops

    # -- reading -----------------------------------------------------------------

    async def page(
        self,
        state: MatchState | None = None,
        preset: str | None = None,
        limit: int = 50,
        cursor: str | None = None,
    ) -> tuple[list[Listing], str | None]:
        """Matches newest first, after ``cursor`` (the ``next`` of the page
        before); returns the page and the next cursor, None at the end."""
        if cursor is not None and not CURSOR.fullmatch(cursor):
            raise ValueError("not a cursor this service gave out")
        name = "all"
        if state and preset:
            name = f"state:{state}:preset:{preset}"
        elif state or preset:
            name = f"state:{state}" if state else f"preset:{preset}"
        with unavailable_as("list matches", self.store.url):
            client = await self.store.raw_client()
            members = await client.zrevrangebylex(
                self._key(f"idx:{name}"), f"({cursor}" if cursor else "+", "-", 0, limit + 1
            )
        more = len(members) > limit
        members = members[:limit]
        listings = []
        for member in members:
            match_id = member.decode().partition(":")[2]
            listing = await self.listing(match_id)
            if listing is not None:
                listings.append(listing)
        return listings, members[-1].decode() if more and members else None

    async def listing(self, match_id: str) -> Listing | None:
        with unavailable_as("list matches", self.store.url):
            client = await self.store.raw_client()
            reply = await client.hgetall(self._key(f"match:{match_id}"))  # type: ignore[misc]
        raw = pairs(reply)
        fields = {name.decode(): value.decode() for name, value in raw}
        if "created_at" not in fields:
            return None
        return _listing(fields)

    async def rebuild(self) -> None:
        """Throw the projection away and fold every stream again."""
        client = await self.store.raw_client()
        keys = [key async for key in client.scan_iter(match=self._key("*"))]
        if keys:
            await client.delete(*keys)
        await self.checkpoints.reset()
        self._known.clear()
        await self.catch_up()


def _listing(fields: dict[str, str]) -> Listing:
    players = int(fields["players"])
    state: Any = fields["state"]
    return Listing(
        match_id=fields["match_id"],
        preset=fields["preset"],
        players=players,
        state=state,
        names=tuple(fields.get(f"name:{seat}", "") for seat in range(players)),
        game_number=int(fields["game_number"]),
        games_per_set=int(fields["games_per_set"]),
        created_at=int(fields["created_at"]),
        updated_at=int(fields["updated_at"]),
        version=int(fields["version"]),
        spectator_delay_ms=int(fields.get("spectator_delay_ms", -1)),
    )
