"""The one bounded cache of the project's serving path (the store's chain heads, the
service's matches, decoded events and shown records, seat tokens, encoded SSE messages).
The rules engine keeps its memo tables apart (``service/rules/memo.py``): it imports
nothing of the project."""

from __future__ import annotations

from collections import OrderedDict
from typing import TypeVar

K = TypeVar("K")
V = TypeVar("V")


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
