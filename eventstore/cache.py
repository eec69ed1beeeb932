"""The one bounded cache of the project's serving path (the store's chain heads, the
service's matches, decoded events and shown records, seat tokens, and, by the record
they encode, the SSE messages and gRPC events of shown records).
The rules engine keeps its memo tables apart (``service/rules/memo.py``): it imports
nothing of the project."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")
T = TypeVar("T")


class BoundedCache(OrderedDict[K, V]):
    """At most ``capacity`` entries; ``put`` makes its key the newest, and past the
    capacity the oldest goes. A hit (``get``, ``in``, ``[key]``) is OrderedDict's own, in
    C, and changes no order: what was put last goes last (a cache of answers that never
    change, where a repeated put is what marks a key as in use)."""

    __slots__ = ("capacity",)

    def __init__(self, capacity: int) -> None:
        if capacity < 1:
            raise ValueError("a cache holds at least one entry")
        super().__init__()
        self.capacity = capacity

    def put(self, key: K, value: V) -> V:
        """Keep ``value`` for ``key`` (the newest entry now); returns it."""
        self[key] = value
        self.move_to_end(key)
        if len(self) > self.capacity:
            self.popitem(last=False)
        return value


class EncodedOnce(Generic[T, V]):
    """The encoding of each of the objects it is given, made once while it is cached:
    for objects that are shared and never changed (the records ``GameService.visible``
    gives, one per event and audience), so each audience's encoding of an event is made
    once for every answer and stream that sends it. Keyed by the object itself: an entry
    holds its object, so its id cannot be reused while the entry lives, and objects
    that are equal but not the same (two audiences' records) never share an entry."""

    __slots__ = ("_encode", "_entries")

    def __init__(self, encode: Callable[[T], V], capacity: int) -> None:
        self._encode = encode
        self._entries = BoundedCache[int, tuple[T, V]](capacity)

    def __call__(self, value: T) -> V:
        entry = self._entries.get(id(value))
        if entry is not None and entry[0] is value:
            return entry[1]
        return self._entries.put(id(value), (value, self._encode(value)))[1]
