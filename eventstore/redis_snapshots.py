"""The snapshots (``Snapshots`` in snapshots.py) in the Redis of the event store, under
each stream's hash tag (``keys.py``: ``:snap``, ``:snap-seq``, ``:snap-at``)."""

from __future__ import annotations

from .connection import unavailable_as
from .keys import check_stream_id
from .model import Snapshot, latest_snapshot, nearest_snapshot
from .scripts import Script
from .snapshots import SEQ_DIGITS, check_snapshot, of_archived
from .store import RedisEventStore

# KEYS: bodies, seqs, times, the stream's meta; ARGV: member, seq, at, body. Nothing is
# saved beside a stream that is not here (archived: its snapshots left with it).
_SAVE = Script(
    """
if redis.call('EXISTS', KEYS[4]) == 0 then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[4])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[1])
return 1
"""
)

# KEYS: bodies, the index to search, times; ARGV: the highest score. The member found,
# its time and its body, in one step (a save between two reads cannot split them).
_FIND = Script(
    """
local found = redis.call('ZREVRANGEBYSCORE', KEYS[2], ARGV[1], '-inf', 'LIMIT', 0, 1)
if #found == 0 then return false end
return {found[1], redis.call('ZSCORE', KEYS[3], found[1]), redis.call('HGET', KEYS[1], found[1])}
"""
)


class RedisSnapshots:
    """Snapshots in the Redis of ``store``, under the stream's hash tag (so a Redis
    Cluster keeps them on the stream's node): a hash of bodies by seq and two sorted sets
    of those seqs, one scored by seq and one by time."""

    def __init__(self, store: RedisEventStore) -> None:
        self.store = store

    async def save(self, stream: str, snapshot: Snapshot) -> None:
        check_snapshot(stream, snapshot)
        member = f"{snapshot.seq:0{SEQ_DIGITS}d}"
        args: list[str | bytes | int] = [member, snapshot.seq, snapshot.at, snapshot.body]
        with unavailable_as(f"save a snapshot of {stream}", self.store.url):
            client = await self.store.connector.runner()
            keys = [*self.store.keys.snapshots(stream), self.store.keys.meta(stream)]
            saved = await _SAVE.run(client, keys, args)
        if not saved and (archived := of_archived(self.store.archived, stream)) is not None:
            archived[snapshot.seq] = snapshot

    async def drop(self, stream: str) -> None:
        check_stream_id(stream)
        with unavailable_as(f"drop the snapshots of {stream}", self.store.url):
            client = await self.store.connector.runner()
            await client.execute_command("DEL", *self.store.keys.snapshots(stream))

    async def at_or_before(self, stream: str, seq: int) -> Snapshot | None:
        found = await self._find(stream, 1, seq)
        if found is None and (archived := of_archived(self.store.archived, stream)):
            return nearest_snapshot(archived.values(), seq)
        return found

    async def latest_by(self, stream: str, at: int) -> Snapshot | None:
        found = await self._find(stream, 2, at)
        if found is None and (archived := of_archived(self.store.archived, stream)):
            return latest_snapshot(archived.values(), at)
        return found

    async def _find(self, stream: str, index: int, highest: int) -> Snapshot | None:
        check_stream_id(stream)
        if highest < 0 and index == 1:
            return None
        bodies, seqs, times = self.store.keys.snapshots(stream)
        keys = [bodies, seqs if index == 1 else times, times]
        with unavailable_as(f"read a snapshot of {stream}", self.store.url):
            client = await self.store.connector.runner()
            found = await _FIND.run(client, keys, [highest])
        if not found or found[2] is None:
            return None
        member, at, body = found
        return Snapshot(int(member), int(float(at)), bytes(body))
