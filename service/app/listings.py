"""A match's listing in the catalog, and the listings of archived matches.

A live match's listing is a hash in Redis (catalog.py). Once its stream left the store
for the archive, the catalog retires its listing in a batch of up to ``SEGMENT_SIZE``:
the batch is written to the archive's ``listings`` part as one object (a *segment*:
the listings sorted newest first, MessagePack, zstd) and read back, then its
*descriptor* (its name, newest and oldest index members, how many listings of each
state and preset it holds) replaces the listings in Redis. So Redis keeps about 200
bytes per thousand archived matches, and a page of the list reads the segments that can
hold its matches, newest first, skipping those with none of the filter's.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

import msgspec
import zstandard

from eventstore import Archive
from eventstore.cache import BoundedCache
from eventstore.errors import CorruptEvent

# abandoned: ended before its games did (MatchAbandoned), whether it had started or not
MatchState = Literal["open", "live", "finished", "abandoned"]
STATES: tuple[MatchState, ...] = ("open", "live", "finished", "abandoned")
SEGMENT_SIZE = 1000  # listings a segment holds: the most Redis keeps of archived matches
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


class Segment(msgspec.Struct, frozen=True):
    """A segment's descriptor, as the catalog keeps it in Redis."""

    name: str
    newest: str  # its greatest index member
    oldest: str  # its least
    counts: dict[str, int]  # listings by kind_of(state, preset)

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


_descriptor_encoder = msgspec.json.Encoder()
_descriptor_decoder = msgspec.json.Decoder(Segment)
_body_decoder = msgspec.msgpack.Decoder(_Body)
MAX_UNPACKED = 16 * 1024 * 1024  # a segment of SEGMENT_SIZE listings is far under


def descriptor(segment: Segment) -> str:
    return _descriptor_encoder.encode(segment).decode()


def segment_of(text: str) -> Segment:
    return _descriptor_decoder.decode(text)


@dataclass
class ArchivedListings:
    """The segments in the archive: written once, read back, the last few kept decoded
    (a page of the list reads one or two of them)."""

    archive: Archive
    cached: int = 16
    _decoded: BoundedCache[str, list[Listing]] = field(init=False)

    def __post_init__(self) -> None:
        self._decoded = BoundedCache(self.cached)

    @classmethod
    def beside(cls, archive: Archive) -> ArchivedListings:
        """The segments of the matches archived in ``archive``."""
        return cls(archive.part(PART))

    async def put(self, listings: Sequence[Listing]) -> Segment:
        """Write ``listings`` (at least one) as a segment and read it back."""
        ordered = sorted(listings, key=lambda listing: listing.member, reverse=True)
        members = [listing.member for listing in ordered]
        name = "segment-" + hashlib.sha256("\n".join(members).encode()).hexdigest()[:32]
        blob = zstandard.ZstdCompressor(level=9).compress(
            msgspec.msgpack.encode(_Body(SEGMENT_FORMAT, ordered))
        )
        await self.archive.put(name, blob)
        if await self.archive.get(name) != blob:
            raise CorruptEvent(name, -1, "the archive gave back another segment than was written")
        counts: dict[str, int] = {}
        for listing in ordered:
            kind = kind_of(listing.state, listing.preset)
            counts[kind] = counts.get(kind, 0) + 1
        self._decoded.put(name, ordered)
        return Segment(name, members[0], members[-1], counts)

    async def listings(
        self, segment: Segment, reading: Callable[[], None] | None = None
    ) -> list[Listing]:
        """A segment's listings, newest first. ``reading``: called before it is read
        from the archive (not when it is kept decoded here); raising, it is not read."""
        known = self._decoded.get(segment.name)
        if known is not None:
            return known
        if reading is not None:
            reading()
        blob = await self.archive.get(segment.name)
        if blob is None:
            raise CorruptEvent(segment.name, -1, "a segment the catalog names is not archived")
        try:
            raw = zstandard.ZstdDecompressor().decompress(blob, max_output_size=MAX_UNPACKED)
            body = _body_decoder.decode(raw)
        except (zstandard.ZstdError, msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise CorruptEvent(segment.name, -1, f"segment is unreadable: {exc}") from exc
        if body.format != SEGMENT_FORMAT:
            raise CorruptEvent(segment.name, -1, f"segment format {body.format} is not known")
        return self._decoded.put(segment.name, body.listings)
