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

Archived matches (listings.py): ``retiring`` the ids of matches that left the store whose
listings are still here (a sorted set, score 0); ``segments`` the descriptors of the
segments their listings went to and of the volumes that hold the older descriptors, by
name, and ``segments:count`` a counter of their changes (a page reads the descriptors
again when it moved).
"""

from __future__ import annotations

import bisect
import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from eventstore import Closed, Op, Storage, StoredEvent
from eventstore.cache import BoundedCache

from .following import FeedProjection
from .listings import (
    SEGMENT_SIZE,
    STATES,
    VOLUME_SIZE,
    ArchivedListings,
    Listing,
    MatchState,
    Segment,
    descriptor,
    listing_of,
    member_of,
    segment_of,
)
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
__all__ = ["STATES", "CatalogProjection", "Listing", "MatchState"]
# a cursor is an index member: created ms (13 digits), then the match id
CURSOR = re.compile(r"\d{13}:[0-9A-Za-z_-]{1,64}")


@dataclass(frozen=True, slots=True)
class _Known:
    member: str
    preset: str
    delayed: bool  # a spectator delay: its deals are kept by time


class CatalogProjection(FeedProjection):
    name = NAME

    def __init__(self, storage: Storage, archived: ArchivedListings | None = None) -> None:
        """``archived``: where the listings of archived matches go (None: they stay)."""
        super().__init__(storage)
        self.archived = archived
        self.segment_size = SEGMENT_SIZE
        # what a state change needs to move a match between indexes (else read back)
        self._known = BoundedCache[str, _Known](4096)
        self.volume_size = VOLUME_SIZE
        # the descriptors Redis holds, by newest member, as of segments:count
        self._segments: tuple[str | None, list[Segment]] = (None, [])

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
            member = member_of(event.at, match_id)
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
        reading: Callable[[], None] | None = None,
    ) -> tuple[list[Listing], str | None]:
        """Matches newest first, after ``cursor`` (the ``next`` of the page
        before); returns the page and the next cursor, None at the end. Live listings
        and archived ones alike (one write moves a listing to its segment: it is never
        shown twice). ``reading``: called before each segment read from the archive (a
        rare filter's page may read a segment for each of its matches)."""
        if cursor is not None and not CURSOR.fullmatch(cursor):
            raise ValueError("not a cursor this service gave out")
        name = "all"
        if state and preset:
            name = f"state:{state}:preset:{preset}"
        elif state or preset:
            name = f"state:{state}" if state else f"preset:{preset}"
        members = await self.state.members_before(self._key(f"idx:{name}"), cursor, limit + 1)
        found: dict[str, Listing] = {}
        for member in members:
            listing = await self.listing(member.partition(":")[2])
            if listing is not None:
                found[member] = listing
        members = sorted(found, reverse=True)
        waiting = await self._segments_of()  # by newest member: pop() gives the newest
        while waiting:
            segment = waiting.pop()
            if not segment.may_hold(state, preset, cursor):
                continue
            if len(members) > limit and segment.newest < members[limit]:
                break  # the page is full of members newer than any here
            assert self.archived is not None  # a segment was written by one
            if segment.depth:  # a volume: its segments are no newer than it
                for inner in await self.archived.segments(segment, reading):
                    bisect.insort(waiting, inner, key=_newest)
                continue
            for listing in await self.archived.listings(segment, reading):
                member = listing.member
                if (cursor is None or member < cursor) and _passes(listing, state, preset):
                    found.setdefault(member, listing)
            members = sorted(found, reverse=True)
        page = sorted(found, reverse=True)[: limit + 1]
        more = len(page) > limit
        return [found[member] for member in page[:limit]], page[limit - 1] if more else None

    async def _segments_of(self) -> list[Segment]:
        """The descriptors Redis holds, by newest member (a copy: read again when they
        changed)."""
        if self.archived is None:
            return []
        count = await self.state.get(self._key("segments:count"))
        if count != self._segments[0]:
            stored = await self.state.hash(self._key("segments"))
            self._segments = (count, sorted(map(segment_of, stored.values()), key=_newest))
        return list(self._segments[1])

    async def listing(self, match_id: str) -> Listing | None:
        fields = await self.state.hash(self._key(f"match:{match_id}"))
        if "created_at" not in fields:
            return None
        return listing_of(fields)

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

    # -- archived matches ----------------------------------------------------------

    def retiring(self, closed: Closed) -> list[Op]:
        """A sealed match's listing is final: it waits in ``retiring`` for its segment."""
        ops = super().retiring(closed)
        match_id = match_id_of(closed.stream)
        if self.archived is not None and match_id is not None:
            ops.append(("ZADD", self._key("retiring"), 0, match_id))
        return ops

    async def retire(self) -> int:
        retired = await super().retire()
        await self.retire_listings()
        return retired

    async def forget(self, streams: Sequence[str]) -> None:
        """Streams that left the store unretired (a store kept before watermarks): their
        listings retire, a segment at a time."""
        if self.archived is not None:
            ids = [match_id for stream in streams if (match_id := match_id_of(stream))]
            for start in range(0, len(ids), self.segment_size):
                page = ids[start : start + self.segment_size]
                await self.state.write([("ZADD", self._key("retiring"), *_zero_scored(page))])
        await super().forget(streams)
        await self.retire_listings()

    async def retire_listings(self, everything: bool = False) -> int:
        """Move the listings of sealed matches to segments, ``segment_size`` at a time
        (``everything``: the last, smaller one too); how many moved. A segment is in the
        archive before its descriptor replaces its listings here, in one write: a crash
        between leaves the listings here and an object no descriptor names."""
        if self.archived is None:
            return 0
        moved = 0
        while True:
            ids = await self.state.members_before(self._key("retiring"), None, self.segment_size)
            if not ids or (len(ids) < self.segment_size and not everything):
                return moved
            listings = [listing for match_id in ids if (listing := await self.listing(match_id))]
            ops: list[Op] = []
            if listings:
                segment = await self.archived.put(listings)
                ops += [
                    ("HSET", self._key("segments"), segment.name, descriptor(segment)),
                    ("INCR", self._key("segments:count")),
                ]
            for listing in listings:
                indexes = self._indexes(listing.state, listing.preset)
                ops += [("ZREM", index, listing.member) for index in indexes]
            for match_id in ids:
                ops += [
                    ("DEL", self._key(f"match:{match_id}")),
                    ("DEL", self._key(f"deals:{match_id}")),
                ]
                self._known.pop(match_id, None)
            ops.append(("ZREM", self._key("retiring"), *ids))
            await self.state.write(ops)
            await self._bind_volumes()
            moved += len(ids)

    async def _bind_volumes(self) -> None:
        """While Redis holds more than ``volume_size`` descriptors of one depth, the oldest
        ``volume_size`` of them go to a volume in the archive, whose descriptor replaces
        them in one write (a crash between: the same volume is written again)."""
        assert self.archived is not None
        while True:
            stored = await self.state.hash(self._key("segments"))
            by_depth: dict[int, list[Segment]] = {}
            for segment in sorted(map(segment_of, stored.values()), key=_newest):
                by_depth.setdefault(segment.depth, []).append(segment)
            full = [group for group in by_depth.values() if len(group) > self.volume_size]
            if not full:
                return
            bound = full[0][: self.volume_size]
            volume = await self.archived.bind(bound)
            await self.state.write(
                [
                    ("HDEL", self._key("segments"), *(segment.name for segment in bound)),
                    ("HSET", self._key("segments"), volume.name, descriptor(volume)),
                    ("INCR", self._key("segments:count")),
                ]
            )

    async def rebuild(self) -> None:
        """Throw the projection away and fold every stream again. The archived matches'
        listings are kept: their streams are no longer here to fold."""
        await self.retire_listings(everything=True)
        segments = await self.state.hash(self._key("segments"))
        await self.state.clear()
        self._known.clear()
        self._segments = (None, [])
        if segments:
            await self.state.write(
                [
                    (
                        "HSET",
                        self._key("segments"),
                        *(i for pair in segments.items() for i in pair),
                    ),
                    ("SET", self._key("segments:count"), len(segments)),
                ]
            )
        await self.catch_up()


def _newest(segment: Segment) -> str:
    return segment.newest


def _zero_scored(members: Sequence[str]) -> list[str | int]:
    return [item for member in members for item in (0, member)]


def _passes(listing: Listing, state: MatchState | None, preset: str | None) -> bool:
    return (state is None or listing.state == state) and (
        preset is None or listing.preset == preset
    )
