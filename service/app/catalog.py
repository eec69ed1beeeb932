"""The match catalog: every match's listing (preset, seats, names, state, game
number, times), and indexes to list them newest first by state and preset.

Like the results projection it follows the global feed and applies each event
with its checkpoint at once (``ProjectionStore.apply``): exactly once,
restartable, and ``rebuild`` folds every stream again from seq 0. It is
eventually consistent: a match shows up (or changes state) a moment after its
events are stored.

Keys (of its projection store): ``match:<id>`` a hash per match;
``idx:<filter>`` sorted sets whose members are ``<created ms, 13 digits>:<id>``
with score 0, so ``members_before`` (ZREVRANGEBYLEX) pages newest first and a member
is its own cursor. Filters: ``all``, ``state:<s>``, ``preset:<p>``, ``state:<s>:preset:<p>``.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, replace
from typing import Any, Literal

from eventstore import Op, Storage, StoredEvent
from eventstore.cache import BoundedCache

from .following import FeedProjection
from .match import match_id_of

log = logging.getLogger("daifugo.catalog")
NAME = "catalog"
# the events that change a listing (MatchSealed: a finished match's last event)
_LISTED = frozenset(
    {
        *("MatchCreated", "SeatJoined", "MatchStarted", "GameDealt"),
        *("MatchEnded", "MatchAbandoned", "SeedRevealed", "MatchSealed"),
    }
)
# abandoned: ended before its games did (MatchAbandoned), whether it had started or not
MatchState = Literal["open", "live", "finished", "abandoned"]
STATES: tuple[MatchState, ...] = ("open", "live", "finished", "abandoned")
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
    spectator_delay_ms: int
    seated_at: int  # when it was created or a seat last taken (never delayed)
    started_at: int  # 0: not started
    lobby: bool = False  # anyone may take an open seat from the lobby (MatchCreated.lobby)


@dataclass(frozen=True, slots=True)
class _Known:
    member: str
    preset: str
    delayed: bool  # a spectator delay: its deals are kept by time


class CatalogProjection(FeedProjection):
    name = NAME

    def __init__(self, storage: Storage) -> None:
        super().__init__(storage)
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
        if match_id is None or event.type not in _LISTED:
            return []  # play by play, nothing a listing shows changes: no write
        key = self._key(f"match:{match_id}")
        ops: list[Op] = [("HSET", key, "updated_at", event.at, "version", event.seq)]
        data = event.data
        if event.type == "MatchCreated":
            preset = str(data["preset"])
            member = f"{event.at:013d}:{match_id}"
            players = int(data["players"])
            games = int(data.get("options", {}).get("games_per_set", 1))
            free = "" if data.get("open_seats") else "host"
            delay = int(data.get("spectator_delay_ms", 0))
            self._known.put(match_id, _Known(member, preset, bool(delay)))
            ops.append(
                (
                    "HSET",
                    key,
                    *("match_id", match_id, "preset", preset, "players", players),
                    *("state", "open", "game_number", 0, "games_per_set", games),
                    *("created_at", event.at, "member", member),
                    *("spectator_delay_ms", delay, "seated_at", event.at),
                    *("lobby", int(bool(data.get("lobby")))),
                    *(item for seat in range(players) for item in (f"name:{seat}", free)),
                )
            )
            ops += [("ZADD", index, 0, member) for index in self._indexes("open", preset)]
        elif event.type == "SeatJoined":
            name = str(data["name"])
            ops.append(("HSET", key, f"name:{int(data['seat'])}", name, "seated_at", event.at))
        elif event.type == "GameDealt":
            game = int(data["game_number"])
            ops.append(("HSET", key, "game_number", game))
            known = await self._known_of(match_id, key)
            if known is not None and known.delayed:  # which game it was in at any time
                ops.append(("ZADD", self._key(f"deals:{match_id}"), event.at, game))
        elif event.type == "MatchStarted":
            ops.append(("HSET", key, "started_at", event.at))
            ops += await self._move(match_id, key, ("open",), "live")
        elif event.type == "MatchEnded":
            ops += await self._move(match_id, key, ("live",), "finished")
            self._known.pop(match_id, None)
        elif event.type == "MatchAbandoned":
            ops += await self._move(match_id, key, ("open", "live"), "abandoned")
            self._known.pop(match_id, None)
        return ops

    async def _known_of(self, match_id: str, key: str) -> _Known | None:
        """What the catalog keeps of a match's creation; None for one created before
        the catalog existed and not rebuilt."""
        known = self._known.get(match_id)
        if known is None:
            fields = ["member", "preset", "spectator_delay_ms"]
            member, preset, delay = await self.state.hash_values(key, fields)
            if member is None or preset is None:
                return None
            known = _Known(member, preset, bool(int(delay or 0)))
            self._known.put(match_id, known)
        return known

    async def _move(
        self, match_id: str, key: str, old: tuple[MatchState, ...], new: MatchState
    ) -> list[Op]:
        """Move the match from whichever of the ``old`` states it is in to ``new``."""
        known = await self._known_of(match_id, key)
        if known is None:
            return []  # nothing to move
        ops: list[Op] = [("HSET", key, "state", new)]
        for state in old:
            ops += [("ZREM", index, known.member) for index in self._indexes(state, known.preset)]
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
        members = await self.state.members_before(self._key(f"idx:{name}"), cursor, limit + 1)
        more = len(members) > limit
        members = members[:limit]
        listings = []
        for member in members:
            match_id = member.partition(":")[2]
            listing = await self.listing(match_id)
            if listing is not None:
                listings.append(listing)
        return listings, members[-1] if more and members else None

    async def listing(self, match_id: str) -> Listing | None:
        fields = await self.state.hash(self._key(f"match:{match_id}"))
        if "created_at" not in fields:
            return None
        return _listing(fields)

    async def as_seen(self, listing: Listing, now_ms: int) -> Listing:
        """The listing as a spectator may see it at ``now_ms``: with a spectator delay,
        as the listed events that old make it (that it started, which game it is in
        and when that changed are events too). Once over, it is shown as it is."""
        cutoff = now_ms - listing.spectator_delay_ms
        if listing.state in ("finished", "abandoned") or listing.updated_at <= cutoff:
            return listing
        deal = await self.state.last_up_to(self._key(f"deals:{listing.match_id}"), cutoff)
        started = 0 < listing.started_at <= cutoff
        game, dealt_at = (int(deal[0]), int(deal[1])) if deal else (0, 0)
        return replace(
            listing,
            state="live" if started else "open",
            game_number=game,
            updated_at=max(listing.seated_at, listing.started_at if started else 0, dealt_at),
        )

    async def rebuild(self) -> None:
        """Throw the projection away and fold every stream again."""
        await self.state.clear()
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
        spectator_delay_ms=int(fields.get("spectator_delay_ms", 0)),
        seated_at=int(fields.get("seated_at", fields["created_at"])),
        started_at=int(fields.get("started_at", 0)),
        lobby=fields.get("lobby") == "1",
    )
