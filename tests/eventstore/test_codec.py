"""Encoding, hashing, keys and upcasting: no Redis needed."""

from __future__ import annotations

import hashlib
from typing import Any

import msgspec
import pytest
from redis.crc import key_slot

from eventstore import (
    FORMAT,
    GENESIS_HASH,
    CorruptEvent,
    InvalidEvent,
    StoredEvent,
    Upcasters,
    canonical_json,
    envelope,
    event_hash,
    recompute_hash,
)
from eventstore.codec import check_keys, decode_entry, encode_body, entry_id, parse_entry_id
from eventstore.keys import Keys, check_stream_id

DATA: dict[str, Any] = {
    "seat": 1,
    "cards": ["3S", "JK"],
    "note": "大富豪\n",
    "x": None,
    "ok": True,
    "n": -5,
}

# The canonical envelope, byte for byte, and its sha256: an auditor in another language
# must produce exactly these (`printf '%s' '<json>' | sha256sum` gives the same hash).
CANONICAL = (
    '{"at":1700000000000,"data":{"cards":["3S","JK"],"n":-5,"note":"大富豪\\n","ok":true,'
    '"seat":1,"x":null},"prev_hash":"' + "ab" * 32 + '","request_id":"req-ä","schema":2,'
    '"seq":3,"stream":"m:0001","type":"CardsPlayed"}'
)
HASH = "3ba809b23b99712cd570548ae827aaca37f9bcf2923f2e0e7406f1fc5c806c66"


def test_canonical_envelope_and_hash_are_fixed() -> None:
    env = envelope("m:0001", 3, "CardsPlayed", 2, 1700000000000, "req-ä", DATA, "ab" * 32)
    assert canonical_json(env) == CANONICAL.encode("utf-8")
    assert hashlib.sha256(CANONICAL.encode("utf-8")).hexdigest() == HASH
    assert (
        event_hash("m:0001", 3, "CardsPlayed", 2, 1700000000000, "req-ä", DATA, "ab" * 32) == HASH
    )
    assert sorted(env) == list(env)  # the envelope's eight fields, already in key order
    assert len(env) == 8


def test_canonical_json_rules() -> None:
    assert (
        canonical_json({"b": 1, "a": [1, 2, {"d": 0, "c": 1}]})
        == b'{"a":[1,2,{"c":1,"d":0}],"b":1}'
    )
    assert canonical_json('é\u2028\x01"\\/') == '"é\u2028\\u0001\\"\\\\/"'.encode()
    assert canonical_json(1.5) == b"1.5"
    with pytest.raises(ValueError):
        canonical_json(float("inf"))


def test_body_roundtrip_and_layout() -> None:
    body = encode_body("T", 3, 123, "r", GENESIS_HASH, {"a": [1, "x"]})
    assert msgspec.msgpack.decode(body) == [FORMAT, "T", 3, 123, "r", GENESIS_HASH, {"a": [1, "x"]}]
    event = decode_entry("s", [b"7-1", [b"h", b"f" * 64, b"e", body]])
    assert event == StoredEvent("s", 7, "T", 3, {"a": [1, "x"]}, "r", 123, GENESIS_HASH, "f" * 64)
    # fields in another order are still read
    assert decode_entry("s", [b"7-1", [b"e", body, b"h", b"f" * 64]]) == event


def pack(*items: Any) -> bytes:
    return msgspec.msgpack.encode(list(items))


@pytest.mark.parametrize(
    ("entry", "seq", "words"),
    [
        ([b"7-0", [b"h", b"x", b"e", b""]], 7, "not <seq>-1"),
        ([b"abc", [b"h", b"x", b"e", b""]], -1, "not <seq>-1"),
        ([b"7-1", [b"h", b"x"]], 7, "lacks"),
        ([b"7-1", [b"h", b"x", b"e", b"\xc1"]], 7, "undecodable"),
        ([b"7-1", [b"h", b"x", b"e", pack(2, "T", 1, 0, "r", "", {})]], 7, "unknown format"),
        ([b"7-1", [b"h", b"x", b"e", pack(1, "T", "one", 0, "r", "", {})]], 7, "bad body"),
        ([b"7-1", [b"h", b"x", b"e", pack(1, "T", 1, 0, "r", "", {1: 2})]], 7, "bad body"),
    ],
)  # fmt: skip
def test_corrupt_entries_name_stream_and_seq(entry: list[Any], seq: int, words: str) -> None:
    with pytest.raises(CorruptEvent) as info:
        decode_entry("m:9", entry)
    assert (info.value.stream, info.value.seq) == ("m:9", seq)
    assert words in str(info.value) and "m:9" in str(info.value)


def test_entry_ids() -> None:
    assert entry_id(0) == "0-1"
    assert parse_entry_id("s", b"12-1") == 12
    assert parse_entry_id("s", "0-1") == 0


def test_recompute_hash_matches_event_hash() -> None:
    h = event_hash("s", 0, "T", 1, 5, "r", {"a": 1}, GENESIS_HASH)
    event = StoredEvent("s", 0, "T", 1, {"a": 1}, "r", 5, GENESIS_HASH, h)
    assert recompute_hash(event) == h
    changed = StoredEvent("s", 1, "T", 1, {"a": 1}, "r", 5, GENESIS_HASH, h)  # moved
    assert recompute_hash(changed) != h


def test_check_keys() -> None:
    check_keys({"a": [{"b": (1, {"c": None})}]})
    with pytest.raises(InvalidEvent, match=r"data\.a\[0\]\.b"):
        check_keys({"a": [{"b": {2: 1}}]})


def test_upcasters_chain_and_errors() -> None:
    up = Upcasters()
    assert not up
    up.add("A", 1, lambda d: {"v2": d["v1"]})
    up.add("A", 2, lambda d: {**d, "v3": True}, rename_to="B")
    up.add("B", 3, lambda d: {**d, "v4": 1})
    assert up
    old = StoredEvent("s", 4, "A", 1, {"v1": 7}, "r", 0, GENESIS_HASH, "h")
    new = up.upcast(old)
    assert (new.type, new.schema, new.data) == ("B", 4, {"v2": 7, "v3": True, "v4": 1})
    assert (new.seq, new.hash, new.prev_hash) == (4, "h", GENESIS_HASH)
    current = StoredEvent("s", 4, "B", 4, {}, "r", 0, GENESIS_HASH, "h")
    assert up.upcast(current) is current
    with pytest.raises(ValueError):
        up.add("A", 1, lambda d: d)
    broken = Upcasters()
    broken.add("A", 1, lambda d: d["missing"])
    with pytest.raises(CorruptEvent) as info:
        broken.upcast(old)
    assert info.value.seq == 4 and "upcasting" in str(info.value)


def test_keys_share_the_stream_hash_tag() -> None:
    keys = Keys("daifugo")
    assert keys.events("m:abc") == "daifugo:{m:abc}:events"
    assert keys.meta("m:abc") == "daifugo:{m:abc}:meta"
    assert key_slot(keys.events("m:abc").encode()) == key_slot(b"m:abc")
    assert key_slot(keys.meta("m:abc").encode()) == key_slot(b"m:abc")
    assert key_slot(keys.index.encode()) == key_slot(keys.feed.encode())
    assert keys.projection("p", "counts") == "daifugo:{cp:p}:counts"
    for bad in ("", "a{b", "a}b"):
        with pytest.raises(InvalidEvent):
            check_stream_id(bad)
    with pytest.raises(ValueError):
        Keys("x{y}")
