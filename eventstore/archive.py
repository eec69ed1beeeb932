"""The archive: where a sealed stream goes once it leaves the event store, one object per
stream, named by its id, and how a stream is packed into that object.

A packed stream keeps only what cannot be derived: per event its type, schema, time (as
a step from the one before), request id and data. Seqs, ``prev_hash`` and hashes are
recomputed on unpacking, and the chain's head is checked against the head hash packed
with them (a match's seal signs that head too), so a damaged or altered object is refused
(CorruptEvent), never read as events. The columns are MessagePack (msgspec), compressed
with zstd (``zstandard``).

``move_to_archive`` is the move itself, safe to repeat at any point: write, read back and
compare, and only then drop the stream from the store. A crash between any two steps
leaves the stream whole in the store (the next move writes the same object again) or
whole in the archive (the next move finds the store's copy gone).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import msgspec
import zstandard

from .cache import BoundedCache
from .datadir import ARCHIVE_ENV, archive_dir
from .errors import CorruptEvent, InvalidEvent
from .hashing import event_hash
from .keys import check_stream_id
from .model import CLOSING_TYPE, GENESIS_HASH, Snapshot, StoredEvent, Verification

PACK_FORMAT = 1
ZSTD_LEVEL = 9  # measured (bench/scale.py): 19 saves under 2% at 20 times the time
AUTO_PREFIX = "auto-"  # the store's own request ids: "auto-" and 32 lowercase hex digits


class _Packed(msgspec.Struct, array_like=True, frozen=True):
    format: int
    stream: str
    head: bytes  # the last event's hash, 32 bytes
    types: list[str]
    schemas: list[int]
    at_steps: list[int]  # the first event's ``at``, then each one's step from the one before
    # "" where an event has the request id of the one before; the store's own ids (chain.
    # auto_request_id) as their 16 random bytes
    request_ids: list[Any]  # str | bytes (msgspec takes no union of the two): checked
    data: list[dict[str, Any]]


_encoder = msgspec.msgpack.Encoder()
_decoder = msgspec.msgpack.Decoder(_Packed)


DICTIONARY_ID = 1_000_001  # archive-dictionary-1.zdict's id, written in each frame
_DICTIONARY_FILE = Path(__file__).with_name("archive-dictionary-1.zdict")


@functools.cache
def _dictionary() -> zstandard.ZstdCompressionDict | None:
    """The dictionary packed streams are compressed with (bench/train_dictionary.py);
    None before one is trained."""
    if not _DICTIONARY_FILE.exists():
        return None
    trained = zstandard.ZstdCompressionDict(_DICTIONARY_FILE.read_bytes())
    assert trained.dict_id() == DICTIONARY_ID, "a dictionary's id never changes"
    return trained


def pack(events: Sequence[StoredEvent]) -> bytes:
    """A whole stream (every event from seq 0, as stored: not upcast) as one object."""
    dictionary = _dictionary()
    compressor = (
        zstandard.ZstdCompressor(level=ZSTD_LEVEL, dict_data=dictionary)
        if dictionary is not None
        else zstandard.ZstdCompressor(level=ZSTD_LEVEL)
    )
    return compressor.compress(columns(events))


def columns(events: Sequence[StoredEvent]) -> bytes:
    """What a packed stream holds, before compression."""
    if not events:
        raise InvalidEvent("an empty stream is not archived")
    stream = events[0].stream
    at_steps: list[int] = []
    request_ids: list[str | bytes] = []
    last_at, last_request = 0, ""
    for seq, event in enumerate(events):
        if event.stream != stream or event.seq != seq or not event.request_id:
            raise InvalidEvent(f"{stream!r}: pack takes a whole stream, in order, from seq 0")
        at_steps.append(event.at - last_at)
        request_ids.append("" if event.request_id == last_request else packed_id(event.request_id))
        last_at, last_request = event.at, event.request_id
    packed = _Packed(
        PACK_FORMAT,
        stream,
        bytes.fromhex(events[-1].hash),
        [event.type for event in events],
        [event.schema for event in events],
        at_steps,
        request_ids,
        [event.data for event in events],
    )
    return _encoder.encode(packed)


_HEX = frozenset("0123456789abcdef")


def packed_id(request_id: str) -> str | bytes:
    """A request id as packed: the store's own as bytes (it unpacks to the same text)."""
    digits = request_id[len(AUTO_PREFIX) :]
    if request_id.startswith(AUTO_PREFIX) and len(digits) == 32 and set(digits) <= _HEX:
        return bytes.fromhex(digits)
    return request_id


MAX_UNPACKED = 64 * 1024 * 1024  # a packed stream never unpacks to more (a zip bomb is refused)


def unpack(stream: str, blob: bytes) -> list[StoredEvent]:
    """The stream's events as they were stored; CorruptEvent when the object is not a
    packed ``stream`` or its chain does not end at the head it was packed with."""
    try:
        used = zstandard.get_frame_parameters(blob).dict_id
        dictionary = _dictionary() if used == DICTIONARY_ID else None
        if used not in (0, DICTIONARY_ID) or (used and dictionary is None):
            raise CorruptEvent(stream, -1, f"archived object needs dictionary {used}")
        decompressor = (
            zstandard.ZstdDecompressor(dict_data=dictionary)
            if dictionary is not None
            else zstandard.ZstdDecompressor()
        )
        raw = decompressor.decompress(blob, max_output_size=MAX_UNPACKED)
        packed = _decoder.decode(raw)
    except (zstandard.ZstdError, msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise CorruptEvent(stream, -1, f"archived object is unreadable: {exc}") from exc
    if packed.format != PACK_FORMAT or packed.stream != stream:
        raise CorruptEvent(stream, -1, "archived object is not this stream's")
    count = len(packed.types)
    columns = (packed.schemas, packed.at_steps, packed.request_ids, packed.data)
    if count == 0 or any(len(column) != count for column in columns):
        raise CorruptEvent(stream, -1, "archived object's columns differ in length")
    events: list[StoredEvent] = []
    prev, at, request_id = GENESIS_HASH, 0, ""
    for seq in range(count):
        type_, schema, data = packed.types[seq], packed.schemas[seq], packed.data[seq]
        at += packed.at_steps[seq]
        given = packed.request_ids[seq]
        if isinstance(given, bytes) and len(given) == 16:
            request_id = AUTO_PREFIX + given.hex()
        elif isinstance(given, str):
            request_id = given or request_id
        else:
            raise CorruptEvent(stream, seq, "archived request id is neither text nor 16 bytes")
        hash_ = event_hash(stream, seq, type_, schema, at, request_id, data, prev)
        events.append(StoredEvent(stream, seq, type_, schema, data, request_id, at, prev, hash_))
        prev = hash_
    if prev != packed.head.hex():
        raise CorruptEvent(stream, count - 1, "archived chain does not end at its packed head")
    return events


class Archive(Protocol):
    """Where sealed streams are kept for good: one object per stream id."""

    @property
    def where(self) -> str:
        """Where the objects are, for an operator (a folder, a bucket)."""
        ...

    async def put(self, stream: str, blob: bytes) -> None:
        """Store ``blob`` as ``stream``'s object, whole or not at all (replacing one)."""
        ...

    async def get(self, stream: str) -> bytes | None:
        """``stream``'s object; None when there is none."""
        ...

    async def names(self) -> list[str]:
        """Every stream id with an object."""
        ...

    async def size(self) -> tuple[int, int]:
        """How many objects there are and their bytes in all."""
        ...

    def part(self, name: str) -> Archive:
        """Another archive beside this one, for objects that are not streams (the
        catalog's listings): none of its objects is one of this one's."""
        ...


class InMemoryArchive:
    """The archive in this process's memory (tests, ``serve --store memory``)."""

    def __init__(self) -> None:
        self.objects: dict[str, bytes] = {}
        self.parts: dict[str, InMemoryArchive] = {}

    @property
    def where(self) -> str:
        return "memory"

    async def put(self, stream: str, blob: bytes) -> None:
        check_stream_id(stream)
        self.objects[stream] = bytes(blob)

    async def get(self, stream: str) -> bytes | None:
        check_stream_id(stream)
        return self.objects.get(stream)

    async def names(self) -> list[str]:
        return sorted(self.objects)

    async def size(self) -> tuple[int, int]:
        return len(self.objects), sum(map(len, self.objects.values()))

    def part(self, name: str) -> InMemoryArchive:
        return self.parts.setdefault(part_name(name), InMemoryArchive())


SUFFIX = ".zst"
TEMPORARY = ".put-"
CUT_SHORT_AFTER_S = 3600  # no write takes an hour: a temporary file that old was cut short


class FolderArchive:
    """One file per stream in a folder (0700, files 0600): ``<hex of the id>.zst``, so no
    id can name a path outside it. A write goes to a temporary file, is flushed to disk
    and renamed over the name: a reader sees the whole object or none. A write a crash
    cut short leaves its temporary file: the folder's first put here removes those."""

    def __init__(self, folder: Path | str) -> None:
        self.folder = Path(folder)
        self._cut_short_removed = False

    @property
    def where(self) -> str:
        return str(self.folder)

    def _path(self, stream: str) -> Path:
        check_stream_id(stream)
        return self.folder / (stream.encode().hex() + SUFFIX)

    async def put(self, stream: str, blob: bytes) -> None:
        # an fsync may take many ms on a busy disk: never on the serving loop
        await asyncio.to_thread(self._put, self._path(stream), blob)

    def _put(self, path: Path, blob: bytes) -> None:
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not self._cut_short_removed:
            self._cut_short_removed = True
            self._remove_cut_short_writes()
        fd, temporary = tempfile.mkstemp(dir=self.folder, prefix=TEMPORARY)
        try:
            with os.fdopen(fd, "wb") as file:
                file.write(blob)
                file.flush()
                os.fsync(file.fileno())
            os.replace(temporary, path)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temporary)
            raise
        directory = os.open(self.folder, os.O_RDONLY)
        try:
            os.fsync(directory)  # the rename itself survives a crash
        finally:
            os.close(directory)

    def _remove_cut_short_writes(self) -> None:
        # a young one may be another process's write in progress: it stays
        cutoff = time.time() - CUT_SHORT_AFTER_S
        for path in self.folder.glob(TEMPORARY + "*"):
            with contextlib.suppress(FileNotFoundError):
                if path.stat().st_mtime < cutoff:
                    path.unlink()

    async def get(self, stream: str) -> bytes | None:
        path = self._path(stream)
        try:
            return await asyncio.to_thread(path.read_bytes)
        except FileNotFoundError:
            return None

    async def names(self) -> list[str]:
        if not self.folder.is_dir():
            return []
        names = []
        for path in self.folder.glob("*" + SUFFIX):
            with contextlib.suppress(ValueError):
                names.append(bytes.fromhex(path.name.removesuffix(SUFFIX)).decode())
        return sorted(names)

    async def size(self) -> tuple[int, int]:
        if not self.folder.is_dir():
            return 0, 0
        sizes = [path.stat().st_size for path in self.folder.glob("*" + SUFFIX)]
        return len(sizes), sum(sizes)

    def part(self, name: str) -> FolderArchive:
        return FolderArchive(self.folder / part_name(name))  # a folder in the folder


def part_name(name: str) -> str:
    """A part's name: lowercase letters, so it is a folder, a prefix, never an object."""
    if not name.isascii() or not name.isalpha() or not name.islower():
        raise ValueError(f"an archive's part is named in lowercase letters, not {name!r}")
    return name


def archive_at(where: str) -> Archive:
    """The archive ``where`` names: ``s3://bucket/prefix`` (S3Archive), else a folder."""
    if where.startswith("s3://"):
        from .s3_archive import S3Archive  # boto3 only when asked for

        return S3Archive(where)
    return FolderArchive(where)


def configured_archive() -> Archive:
    """The archive this machine's commands read: ``DAIFUGO_ARCHIVE`` (a folder or an
    ``s3://`` URL), else ``archive/`` in the data folder."""
    return archive_at(os.environ.get(ARCHIVE_ENV) or str(archive_dir()))


class Droppable(Protocol):
    """A store a sealed stream can leave (RedisEventStore, InMemoryEventStore)."""

    async def read_as_stored(self, stream: str) -> list[StoredEvent]: ...

    async def drop_sealed(self, stream: str) -> bool: ...


async def move_to_archive(store: Droppable, archive: Archive, stream: str) -> int:
    """Move a sealed stream from ``store`` to ``archive``: write, read back and compare,
    then drop it from the store. The archived object's size; 0 when the stream is no
    longer in the store (moved before: then its object must be whole in the archive).
    InvalidEvent for a stream not sealed; CorruptEvent when the object read back is not
    the stream (nothing is dropped then)."""
    events = await store.read_as_stored(stream)
    if not events:
        kept = await archive.get(stream)
        if kept is None:
            raise InvalidEvent(f"{stream!r} is neither in the store nor in the archive")
        unpack(stream, kept)
        await store.drop_sealed(stream)  # what a crash left of it (its index entry)
        return 0
    if events[-1].type != CLOSING_TYPE:
        raise InvalidEvent(f"{stream!r} is not sealed: only a sealed stream is archived")
    blob = pack(events)
    await archive.put(stream, blob)
    kept = await archive.get(stream)
    if kept is None or unpack(stream, kept) != events:
        raise CorruptEvent(stream, -1, "the archive gave back another object than was written")
    await store.drop_sealed(stream)
    return len(blob)


@dataclass(slots=True)
class _Unpacked:
    events: list[StoredEvent]
    snapshots: dict[int, Snapshot] = field(default_factory=dict)  # by seq


class ArchivedStreams:
    """A store's reads of the streams that left it for the archive: each unpacked (and so
    checked) once, the last few kept unpacked, as a replay reads a stream many times.

    An unpacked stream also keeps the snapshots made of it since (snapshots.py: the
    store's own refuse a stream that left), and they go with it: so a long archived
    match's reads at any seq fold a block, not the stream, while it is in use, and the
    memory they take is bounded with the events they fold. Not kept in the archived
    object: they are derived, their bodies' format changes with the folding code, and
    they would be most of a short match's bytes."""

    def __init__(self, archive: Archive, cached: int = 64) -> None:
        self.archive = archive
        self._unpacked = BoundedCache[str, _Unpacked](cached)

    async def events(self, stream: str) -> list[StoredEvent] | None:
        """The archived stream's events as stored; None when it has no object."""
        known = self._unpacked.get(stream)
        if known is not None:
            return known.events
        blob = await self.archive.get(stream)
        if blob is None:
            return None
        # decompressing and rehashing a long stream is CPU: not on the serving loop
        events = await asyncio.to_thread(unpack, stream, blob)
        return self._unpacked.put(stream, _Unpacked(events)).events

    def snapshots(self, stream: str) -> dict[int, Snapshot] | None:
        """The snapshots kept of ``stream`` while it is unpacked (the caller may add
        some); None when it is not unpacked now."""
        known = self._unpacked.get(stream)
        return None if known is None else known.snapshots

    def verification(self, events: list[StoredEvent]) -> Verification:
        """An archived stream's chain was checked as it was unpacked, to its packed head."""
        return Verification(True, len(events), head_hash=events[-1].hash)
