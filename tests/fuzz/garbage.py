"""Hypothesis strategies for what a careless or hostile client sends: bodies of
random bytes (some around a real match id, so they get past "no such match"),
metadata with real tokens of the wrong seat, match or role, or none, or junk,
and values for the API's fields by name (real ids, card and rank codes)."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from service.rules.cards import format_card

from .calls import Metadata
from .target import FuzzTarget

CARD_CODES = [*(format_card(card) for card in range(52)), "JK"]
RANK_CODES = list("3456789TJQKA2")
ODD_CODES = ["10s", "joker", " 3d ", "3D3D", "", "JK ", "1S", "3X", "♢3", "10"]
# ids no match can have: braces (the store's hash tags), huge, odd characters
ODD_IDS = ["{", "a}b", "{m:x}", "", "*", "\x00", "é" * 3000, "x" * 20000]
SERVICES = ["", "daifugo.v1.MatchService", "daifugo.v1.KeysService", "grpc.health.v1.Health"]
SYMBOLS = ["daifugo.v1.MatchService", "daifugo.v1.ActRequest", "grpc.health.v1.Health"]
FILES = ["daifugo/v1/match_service.proto", "google/protobuf/struct.proto"]
ASCII = st.characters(min_codepoint=0x20, max_codepoint=0x7E)  # what gRPC metadata may carry


def junk(max_size: int = 30) -> st.SearchStrategy[str]:
    return st.text(max_size=max_size)


def bodies(target: FuzzTarget) -> st.SearchStrategy[bytes]:
    # field 1 of most requests is the match id: a real one, amid random bytes
    ids = [b"\x0a" + bytes([len(match_id)]) + match_id.encode() for match_id in target.match_ids]
    around_an_id = st.tuples(
        st.binary(max_size=16), st.sampled_from(ids), st.binary(max_size=64)
    ).map(b"".join)
    return st.binary(max_size=256) | around_an_id


def metadata(target: FuzzTarget) -> st.SearchStrategy[Metadata]:
    token = st.sampled_from(target.offered_tokens) | st.text(ASCII, max_size=60)
    authorization = st.one_of(
        token.map(lambda value: f"Bearer {value}"),
        token.map(lambda value: f"bearer {value}"),
        token.map(lambda value: f"Bearer   {value}  "),
        token,
        st.sampled_from(["Bearer", "Bearer ", "Basic dXNlcjpwYXNz", ""]),
        st.text(ASCII, max_size=80),
    )
    plain_key = st.from_regex(r"x-[a-z0-9-]{1,12}", fullmatch=True).filter(
        lambda key: not key.endswith("-bin")  # those carry bytes
    )
    entry = st.one_of(
        st.tuples(st.just("authorization"), authorization),
        st.tuples(plain_key, st.text(ASCII, max_size=40)),
        st.tuples(st.just("x-fuzz-bin"), st.binary(max_size=40)),
    )
    # half the time a real token as a client sends it (of the wrong seat, role or
    # match, mostly), else a mix: none, junk, two authorization entries...
    proper = st.sampled_from(target.offered_tokens).map(
        lambda value: (("authorization", f"Bearer {value}"),)
    )
    return proper | st.lists(entry, max_size=3).map(tuple)


def field_values(target: FuzzTarget) -> dict[str, st.SearchStrategy[Any]]:
    """Values for fields by name, in any message: real where it lets a call go deeper."""
    cards = st.sampled_from(CARD_CODES) | st.sampled_from(ODD_CODES) | junk(8)
    return {
        "match_id": st.sampled_from(target.match_ids) | st.sampled_from(ODD_IDS) | junk(),
        # a few ids over and over: retries of earlier calls, by the same seat or another
        "request_id": st.sampled_from(["", "fuzz-1", "fuzz-2"]) | junk(),
        # a seat count that works now and then, so CreateMatch gets to its later checks
        "seats": st.integers(2, 5) | st.integers(-(2**31), 2**31 - 1),
        "cards": cards,
        "jokers_as": cards,
        "ranks": st.sampled_from([*RANK_CODES, "10", "a", "1", ""]) | junk(4),
        "service": st.sampled_from(SERVICES) | junk(),
        "file_containing_symbol": st.sampled_from(SYMBOLS) | junk(),
        "file_by_filename": st.sampled_from(FILES) | junk(),
    }
