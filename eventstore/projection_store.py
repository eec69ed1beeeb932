"""The projection store (``ProjectionStore`` in port.py): a projection's state with its
checkpoints, in Redis beside the events (``RedisProjectionStore``) or in memory
(``InMemoryProjectionStore``).

In Redis the state's keys share the checkpoints' hash slot (``{cp:<name>}``), so an event's
writes and its checkpoint are one script (``RedisCheckpoints.apply``), on a cluster too. In
memory the same step is one run of the event loop with no await in it.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .connection import unavailable_as
from .errors import CheckpointGap, EventStoreError
from .feed import PASS_EVERY, RedisCheckpoints, check_ops
from .model import Closed, StoredEvent
from .port import Op, ProjectionStore

if TYPE_CHECKING:
    from .store import RedisEventStore


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _pairs(reply: Any) -> list[tuple[Any, Any]]:
    """A reply of pairs (HGETALL, WITHSCORES) as pairs, however the client shaped it."""
    if isinstance(reply, dict):
        return list(reply.items())
    if reply and isinstance(reply[0], list | tuple):
        return [(item[0], item[1]) for item in reply]
    return list(zip(reply[::2], reply[1::2], strict=True))


class RedisProjectionStore(RedisCheckpoints):
    """The projection store in Redis: ``<prefix>:{cp:<name>}:positions`` and the
    projection's keys ``<prefix>:{cp:<name>}:<suffix>`` (eventstore/keys.py)."""

    def __init__(self, store: RedisEventStore, name: str, pass_every: float = PASS_EVERY) -> None:
        super().__init__(store, name, pass_every)

    async def _read(self, what: str, *command: Any) -> Any:
        with unavailable_as(f"{what} of {self.name!r}", self.store.url):
            return await self.store.connector.execute(*command)

    async def get(self, key: str) -> str | None:
        raw = await self._read("read", "GET", key)
        return None if raw is None else _text(raw)

    async def hash(self, key: str) -> dict[str, str]:
        reply = await self._read("read", "HGETALL", key)
        return {_text(name): _text(value) for name, value in _pairs(reply)}

    async def hash_values(self, key: str, fields: Sequence[str]) -> list[str | None]:
        if not fields:
            return []
        reply = await self._read("read", "HMGET", key, *fields)
        return [None if value is None else _text(value) for value in reply]

    async def items(self, key: str) -> list[str]:
        return [_text(item) for item in await self._read("read", "LRANGE", key, 0, -1)]

    async def length(self, key: str) -> int:
        return int(await self._read("read", "LLEN", key))

    async def top_by_score(self, key: str, offset: int, limit: int) -> list[tuple[str, float]]:
        if limit <= 0:
            return []
        stop = offset + limit - 1
        reply = await self._read("read", "ZREVRANGE", key, offset, stop, "WITHSCORES")
        return [(_text(member), float(score)) for member, score in _pairs(reply)]

    async def last_up_to(self, key: str, score: float) -> tuple[str, float] | None:
        reply = await self._read(
            "read", "ZREVRANGEBYSCORE", key, score, "-inf", "WITHSCORES", "LIMIT", 0, 1
        )
        found = _pairs(reply)
        return (_text(found[0][0]), float(found[0][1])) if found else None

    async def members_before(self, key: str, before: str | None, limit: int) -> list[str]:
        if limit <= 0:
            return []
        top = f"({before}" if before is not None else "+"
        reply = await self._read("read", "ZREVRANGEBYLEX", key, top, "-", "LIMIT", 0, limit)
        return [_text(member) for member in reply]

    async def clear(self) -> None:
        self._deferred.clear()
        with unavailable_as(f"clear {self.name!r}", self.store.url):
            client = await self.store.raw_client()
            keys = [key async for key in client.scan_iter(match=self.key("*"))]
            for key in keys:  # one by one: a cluster client splits a DEL of many anyway
                await client.delete(key)
            await client.delete(self.positions_key)


@dataclass(eq=False)
class ProjectionMemory:
    """One projection's state and positions, shared by the stores over it (as processes
    over one Redis)."""

    positions: dict[str, int] = field(default_factory=dict)
    watermark: int = 0
    strings: dict[str, str] = field(default_factory=dict)
    hashes: dict[str, dict[str, str]] = field(default_factory=dict)
    lists: dict[str, list[str]] = field(default_factory=dict)
    sorted_sets: dict[str, dict[str, float]] = field(default_factory=dict)


def _by_score_descending(members: Mapping[str, float]) -> list[tuple[str, float]]:
    # ZREVRANGE: highest score first, equal scores in descending byte order of the member
    return sorted(members.items(), key=lambda item: (item[1], item[0].encode()), reverse=True)


def _number(value: Any) -> float:
    return float(_text(value))


class InMemoryProjectionStore:
    """The projection store in memory, over a ``ProjectionMemory`` (each store with its
    own passed events, as each ``RedisProjectionStore``)."""

    def __init__(
        self, name: str, memory: ProjectionMemory | None = None, pass_every: float = PASS_EVERY
    ) -> None:
        if not name or "{" in name or "}" in name:
            raise ValueError(f"projection name must be non-empty without braces: {name!r}")
        self.name = name
        self.memory = memory if memory is not None else ProjectionMemory()
        self._owns = f"{{cp:{name}}}"
        self._deferred: dict[str, tuple[int, int]] = {}
        self.pass_every = pass_every
        self._pass_at = time.monotonic() + pass_every

    def key(self, suffix: str) -> str:
        return f"{self._owns}:{suffix}"

    # -- checkpoints -------------------------------------------------------------------

    async def positions(self) -> Mapping[str, int]:
        return dict(self.memory.positions)

    async def position(self, stream: str) -> int:
        return self.memory.positions.get(stream, -1)

    async def watermark(self) -> int:
        return self.memory.watermark

    async def retire(
        self, closed: Sequence[Closed], ops_of: Callable[[Closed], Sequence[Op]] | None = None
    ) -> int:
        await self.commit_passed()
        memory = self.memory
        ops_each = [ops_of(item) if ops_of is not None else () for item in closed]
        for ops in ops_each:  # all checked before any runs, as in the one script of Redis
            check_ops(ops, self._owns)
        retired = 0
        for item, ops in zip(closed, ops_each, strict=True):
            if item.number <= memory.watermark:
                continue
            if memory.positions.get(item.stream, -1) < item.last_seq:
                break
            for op in ops:
                self._write(_text(op[0]), _text(op[1]), op[2:])
            memory.positions.pop(item.stream, None)
            memory.watermark = item.number
            retired += 1
        return retired

    async def commit(self, stream: str, seq: int) -> bool:
        if seq <= self.memory.positions.get(stream, -1):
            return False
        self.memory.positions[stream] = seq
        return True

    async def apply(self, event: StoredEvent, ops: Sequence[Op]) -> bool:
        return self._apply(event, ops, event.seq)

    async def apply_or_defer(self, event: StoredEvent, ops: Sequence[Op]) -> bool:
        first = self._deferred.get(event.stream, (event.seq, event.seq))[0]
        if first > event.seq:  # delivered again from earlier (a restart): start over
            first = event.seq
        if not ops:
            self._deferred[event.stream] = (first, event.seq)
            if time.monotonic() >= self._pass_at:
                with contextlib.suppress(EventStoreError):
                    await self.commit_passed()
            return True
        applied = self._apply(event, ops, first)
        self._deferred.pop(event.stream, None)
        return applied

    async def commit_passed(self) -> None:
        self._pass_at = time.monotonic() + self.pass_every
        positions = self.memory.positions
        for stream, (first, last) in list(self._deferred.items()):
            current = positions.get(stream, -1)
            if last > current and first <= current + 1:  # nothing between them missing
                positions[stream] = last
            del self._deferred[stream]

    async def write(self, ops: Sequence[Op]) -> None:
        check_ops(ops, self._owns)
        for op in ops:
            self._write(_text(op[0]), _text(op[1]), op[2:])

    def _apply(self, event: StoredEvent, ops: Sequence[Op], first: int) -> bool:
        check_ops(ops, self._owns)
        current = self.memory.positions.get(event.stream, -1)
        if event.seq <= current:
            return False
        if first > current + 1:
            raise CheckpointGap(event.stream, current, event.seq)
        for op in ops:
            self._write(_text(op[0]), _text(op[1]), op[2:])
        self.memory.positions[event.stream] = event.seq
        return True

    def _write(self, command: str, key: str, args: Sequence[Any]) -> None:
        memory = self.memory
        match command:
            case "SET":
                memory.strings[key] = _text(args[0])
            case "INCR":
                memory.strings[key] = str(int(memory.strings.get(key, "0")) + 1)
            case "HSET":
                fields = memory.hashes.setdefault(key, {})
                for name, value in _two_by_two(args):
                    fields[_text(name)] = _text(value)
            case "HDEL":
                fields = memory.hashes.get(key, {})
                for name in args:
                    fields.pop(_text(name), None)
                if not fields:
                    memory.hashes.pop(key, None)
            case "HINCRBY":
                fields = memory.hashes.setdefault(key, {})
                name = _text(args[0])
                fields[name] = str(int(fields.get(name, "0")) + int(_text(args[1])))
            case "RPUSH":
                memory.lists.setdefault(key, []).extend(_text(value) for value in args)
            case "ZADD":
                members = memory.sorted_sets.setdefault(key, {})
                for score, member in _two_by_two(args):
                    members[_text(member)] = _number(score)
            case "ZREM":
                members = memory.sorted_sets.get(key, {})
                for member in args:
                    members.pop(_text(member), None)
            case "ZINCRBY":
                members = memory.sorted_sets.setdefault(key, {})
                member = _text(args[1])
                members[member] = members.get(member, 0.0) + _number(args[0])
            case "DEL":
                for keyed in (memory.strings, memory.hashes, memory.lists, memory.sorted_sets):
                    keyed.pop(key, None)
            case _:  # check_ops let only PROJECTION_OPS through
                raise ValueError(f"not a projection op: {command}")

    async def forget(self, streams: Sequence[str], keys: Sequence[str] = ()) -> None:
        if any(not key.startswith(self.key("")) for key in keys):
            raise ValueError("only keys made with the projection's key() go")
        memory = self.memory
        for stream in streams:
            self._deferred.pop(stream, None)
            memory.positions.pop(stream, None)
        for key in keys:
            self._write("DEL", key, ())

    async def reset(self) -> None:
        self._deferred.clear()
        self.memory.positions.clear()
        self.memory.watermark = 0

    async def clear(self) -> None:
        self._deferred.clear()
        memory = self.memory
        for keyed in (memory.positions, memory.strings, memory.hashes, memory.lists):
            keyed.clear()
        memory.watermark = 0
        memory.sorted_sets.clear()

    # -- reading ----------------------------------------------------------------------

    async def get(self, key: str) -> str | None:
        return self.memory.strings.get(key)

    async def hash(self, key: str) -> dict[str, str]:
        return dict(self.memory.hashes.get(key, {}))

    async def hash_values(self, key: str, fields: Sequence[str]) -> list[str | None]:
        stored = self.memory.hashes.get(key, {})
        return [stored.get(name) for name in fields]

    async def items(self, key: str) -> list[str]:
        return list(self.memory.lists.get(key, ()))

    async def length(self, key: str) -> int:
        return len(self.memory.lists.get(key, ()))

    async def top_by_score(self, key: str, offset: int, limit: int) -> list[tuple[str, float]]:
        if limit <= 0:
            return []
        ranked = _by_score_descending(self.memory.sorted_sets.get(key, {}))
        return ranked[offset : offset + limit]

    async def last_up_to(self, key: str, score: float) -> tuple[str, float] | None:
        ranked = _by_score_descending(self.memory.sorted_sets.get(key, {}))
        return next((item for item in ranked if item[1] <= score), None)

    async def members_before(self, key: str, before: str | None, limit: int) -> list[str]:
        if limit <= 0:
            return []
        members = sorted(self.memory.sorted_sets.get(key, {}), key=str.encode, reverse=True)
        if before is not None:
            bound = before.encode()
            members = [member for member in members if member.encode() < bound]
        return members[:limit]


def _two_by_two(args: Sequence[Any]) -> Iterable[tuple[Any, Any]]:
    if len(args) % 2:
        raise ValueError(f"arguments in pairs expected, got {len(args)}")
    return zip(args[::2], args[1::2], strict=True)


if TYPE_CHECKING:

    def _conforms(
        redis: RedisProjectionStore, memory: InMemoryProjectionStore
    ) -> tuple[ProjectionStore, ProjectionStore]:
        return redis, memory  # mypy checks that both implement the port
