"""A service's cache of decoded events answers only for the very event it was
filled with: the same stream and seq with another hash is decoded afresh."""

from __future__ import annotations

from eventstore import StoredEvent
from service.app.codec import StoreEvents
from service.rules.events import Passed


def stored(seat: int, hash_: str) -> StoredEvent:
    data = {"seat": seat, "reason": ""}
    return StoredEvent("m:abc", 5, "Passed", 1, data, "r", 0, "0" * 64, hash_)


def test_an_event_with_another_hash_is_not_served_from_the_cache() -> None:
    events = StoreEvents()
    assert events.decode(stored(1, "a" * 64)) == Passed(1)
    # another event under the same stream, seq (a forgery, or a stream made anew)
    assert events.decode(stored(2, "b" * 64)) == Passed(2)
    assert events.decode(stored(2, "b" * 64)) == Passed(2)


def test_the_cache_is_bounded() -> None:
    events = StoreEvents(size=3)
    for seq in range(10):
        item = StoredEvent("m:abc", seq, "Passed", 1, {"seat": 0, "reason": ""}, "r", 0, "", "h")
        events.decode(item)
    assert len(events._recent) == 3
