"""The one bounded cache: at most its capacity, the oldest put goes first, and a put
again makes a key the newest (a hit changes no order)."""

from __future__ import annotations

import pytest

from eventstore.cache import BoundedCache, EncodedOnce


def test_past_its_capacity_the_oldest_entry_goes() -> None:
    cache = BoundedCache[str, int](2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.put("c", 3) == 3
    assert dict(cache) == {"b": 2, "c": 3}
    assert cache.get("a") is None


def test_a_put_again_makes_the_key_the_newest_and_a_hit_does_not() -> None:
    cache = BoundedCache[str, int](2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1 and "a" in cache  # no change of order
    cache.put("b", 20)
    cache.put("c", 3)
    assert dict(cache) == {"b": 20, "c": 3}
    cache.put("b", 21)
    cache.put("d", 4)
    assert dict(cache) == {"b": 21, "d": 4}


def test_a_cache_holds_at_least_one_entry() -> None:
    with pytest.raises(ValueError, match="at least one"):
        BoundedCache[str, int](0)
    cache = BoundedCache[str, int](1)
    cache.put("a", 1)
    cache.put("b", 2)
    assert dict(cache) == {"b": 2}


def test_an_encoding_is_made_once_per_object_and_never_for_an_equal_other() -> None:
    made: list[dict[str, int]] = []

    def encode(record: dict[str, int]) -> str:
        made.append(record)
        return f"seq {record['seq']}"

    encoded = EncodedOnce(encode, 2)
    first, equal = {"seq": 1}, {"seq": 1}
    assert encoded(first) == encoded(first) == "seq 1"
    assert made == [first]
    encoded(equal)  # equal, not the same (another audience's record): its own entry
    assert len(made) == 2 and made[1] is equal
    encoded({"seq": 2})  # past the capacity: the oldest, first, goes
    encoded(first)
    assert len(made) == 4 and made[3] is first
