"""A match's listing in the catalog, and the listings of archived matches.

A live match's listing is a hash in Redis (catalog.py). Once its stream left the store
for the archive, the catalog retires its listing in a batch of up to ``SEGMENT_SIZE``:
the batch is written to the archive's ``listings`` part as one object (a *segment*:
the listings sorted newest first, MessagePack, zstd) and read back, then its
*descriptor* (its name, newest and oldest index members, how many listings of each
state and preset it holds) replaces the listings in Redis. When Redis holds more than
``VOLUME_SIZE`` descriptors of one depth, the oldest ``VOLUME_SIZE`` go to the archive
the same way, as a *volume* (a segment of depth one more, whose body is descriptors),
so Redis keeps a few hundred descriptors whatever the number of archived matches. A page
of the list opens the segments and volumes that can hold its matches, newest first,
skipping those with none of the filter's.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal, TypeVar

import msgspec
import zstandard

from eventstore import Archive
from eventstore.cache import BoundedCache
from eventstore.errors import CorruptEvent

# abandoned: ended before its games did (MatchAbandoned), whether it had started or not
MatchState = Literal["open", "live", "finished", "abandoned"]
STATES: tuple[MatchState, ...] = ("open", "live", "finished", "abandoned")
SEGMENT_SIZE = 1000  # listings a segment holds: the most Redis keeps of archived matches
VOLUME_SIZE = 100  # descriptors a volume holds: the most Redis keeps of each depth
SEGMENT_FORMAT = 1
PART = "listings"  # the archive's part that holds the segments


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

    @property
    def member(self) -> str:
        """Its member in the catalog's indexes, and its cursor: newest first by bytes."""
        return member_of(self.created_at, self.match_id)


def member_of(created_at: int, match_id: str) -> str:
    return f"{created_at:013d}:{match_id}"


def listing_of(fields: dict[str, str]) -> Listing:
    """A listing from the catalog's hash of it."""
    players = int(fields["players"])
    state: MatchState = fields["state"]  # type: ignore[assignment]  # only the catalog writes it
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


def kind_of(state: str, preset: str) -> str:
    """What a segment counts its listings by."""
    return f"{state}:{preset}"


class Segment(msgspec.Struct, frozen=True, omit_defaults=True):
    """A segment's descriptor, as the catalog keeps it in Redis (or a volume holds it)."""

    name: str
    newest: str  # its greatest index member
    oldest: str  # its least
    counts: dict[str, int]  # listings by kind_of(state, preset)
    depth: int = 0  # 0: it holds listings; more: descriptors of segments one less deep

    def may_hold(self, state: str | None, preset: str | None, before: str | None) -> bool:
        """Whether it may hold a listing of the filter, older than ``before``."""
        if before is not None and self.oldest >= before:
            return False
        return any(
            count
            and (state is None or kind.partition(":")[0] == state)
            and (preset is None or kind.partition(":")[2] == preset)
            for kind, count in self.counts.items()
        )


class _Body(msgspec.Struct, array_like=True, frozen=True):
    format: int
    listings: list[Listing]  # newest first


class _Volume(msgspec.Struct, array_like=True, frozen=True):
    format: int
    segments: list[Segment]  # newest first


_Read = TypeVar("_Read", _Body, _Volume)
_descriptor_encoder = msgspec.json.Encoder()
_descriptor_decoder = msgspec.json.Decoder(Segment)
_body_decoder = msgspec.msgpack.Decoder(_Body)
_volume_decoder = msgspec.msgpack.Decoder(_Volume)
MAX_UNPACKED = 16 * 1024 * 1024  # a segment of SEGMENT_SIZE listings is far under


def descriptor(segment: Segment) -> str:
    return _descriptor_encoder.encode(segment).decode()


def segment_of(text: str) -> Segment:
    return _descriptor_decoder.decode(text)


@dataclass
class ArchivedListings:
    """The segments and volumes in the archive: written once, read back, the last few kept
    decoded (a page of the list reads one or two of them)."""

    archive: Archive
    cached: int = 16
    _decoded: BoundedCache[str, list[Listing]] = field(init=False)
    _opened: BoundedCache[str, list[Segment]] = field(init=False)

    def __post_init__(self) -> None:
        self._decoded = BoundedCache(self.cached)
        self._opened = BoundedCache(self.cached)

    @classmethod
    def beside(cls, archive: Archive) -> ArchivedListings:
        """The segments of the matches archived in ``archive``."""
        return cls(archive.part(PART))

    async def put(self, listings: Sequence[Listing]) -> Segment:
        """Write ``listings`` (at least one) as a segment and read it back."""
        ordered = sorted(listings, key=lambda listing: listing.member, reverse=True)
        members = [listing.member for listing in ordered]
        name = await self._written("segment", members, _Body(SEGMENT_FORMAT, ordered))
        counts: dict[str, int] = {}
        for listing in ordered:
            kind = kind_of(listing.state, listing.preset)
            counts[kind] = counts.get(kind, 0) + 1
        self._decoded.put(name, ordered)
        return Segment(name, members[0], members[-1], counts)

    async def bind(self, segments: Sequence[Segment]) -> Segment:
        """Write the descriptors ``segments`` (at least one, of one depth) as a volume and
        read it back."""
        ordered = sorted(segments, key=lambda segment: segment.newest, reverse=True)
        names = [segment.name for segment in ordered]
        name = await self._written("volume", names, _Volume(SEGMENT_FORMAT, ordered))
        counts: dict[str, int] = {}
        for segment in ordered:
            for kind, count in segment.counts.items():
                counts[kind] = counts.get(kind, 0) + count
        self._opened.put(name, ordered)
        oldest = min(segment.oldest for segment in ordered)
        return Segment(name, ordered[0].newest, oldest, counts, ordered[0].depth + 1)

    async def _written(self, kind: str, names: list[str], body: _Body | _Volume) -> str:
        """Its name (from what it holds: written again, it is the same object)."""
        name = f"{kind}-" + hashlib.sha256("\n".join(names).encode()).hexdigest()[:32]
        blob = zstandard.ZstdCompressor(level=9).compress(msgspec.msgpack.encode(body))
        await self.archive.put(name, blob)
        if await self.archive.get(name) != blob:
            raise CorruptEvent(name, -1, f"the archive gave back another {kind} than was written")
        return name

    async def listings(
        self, segment: Segment, reading: Callable[[], None] | None = None
    ) -> list[Listing]:
        """A segment's listings, newest first. ``reading``: called before it is read
        from the archive (not when it is kept decoded here); raising, it is not read."""
        known = self._decoded.get(segment.name)
        if known is not None:
            return known
        body = await self._read(segment, reading, _body_decoder)
        return self._decoded.put(segment.name, body.listings)

    async def segments(
        self, volume: Segment, reading: Callable[[], None] | None = None
    ) -> list[Segment]:
        """A volume's descriptors, newest first; ``reading`` as for ``listings``."""
        known = self._opened.get(volume.name)
        if known is not None:
            return known
        body = await self._read(volume, reading, _volume_decoder)
        return self._opened.put(volume.name, body.segments)

    async def _read(
        self,
        segment: Segment,
        reading: Callable[[], None] | None,
        decoder: msgspec.msgpack.Decoder[_Read],
    ) -> _Read:
        if reading is not None:
            reading()
        blob = await self.archive.get(segment.name)
        if blob is None:
            raise CorruptEvent(segment.name, -1, "a segment the catalog names is not archived")
        try:
            raw = zstandard.ZstdDecompressor().decompress(blob, max_output_size=MAX_UNPACKED)
            body = decoder.decode(raw)
        except (zstandard.ZstdError, msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise CorruptEvent(segment.name, -1, f"segment is unreadable: {exc}") from exc
        if body.format != SEGMENT_FORMAT:
            raise CorruptEvent(segment.name, -1, f"segment format {body.format} is not known")
        return body
