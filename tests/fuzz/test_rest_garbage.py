"""Garbage in over REST: random bytes, broken JSON, JSON of the wrong shape, huge
bodies and wrong content types to every POST endpoint the API documents, with
no token, junk, or real tokens that may not act (another seat's, the host's, a
finished match's). No answer is a 5xx, every refusal is {"code", "message"} (and a
signed refusal receipt when it was judged on a match) and
tells no hidden card or token, and no match changes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from urllib.parse import quote

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .target import FuzzTarget, hidden_from, leaked

FUZZ = settings(
    deadline=None,
    database=None,
    max_examples=80,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
CONTENT_TYPES = [
    "application/json",
    "application/json; charset=utf-16",
    "application/x-ndjson",
    "text/plain",
    "application/xml",
    "multipart/form-data",
    "multipart/form-data; boundary=x",
    "application/x-www-form-urlencoded",
    "application/octet-stream",
    "",
]
# who the Authorization header speaks for; none of them may act in any match
SENDERS = ["nobody", "junk", "bearer junk", "seat not to act", "host", "finished seat"]
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner),
    max_leaves=20,
)
# fields as an action has them, with values of any type
ACTION_LIKE = st.fixed_dictionaries(
    {},
    optional={
        "action": st.sampled_from(["play", "pass", "give", "discard", "bomb", "pick"]) | JSON,
        "cards": st.lists(st.sampled_from(["3D", "JK", "10H", "5Z", ""]), max_size=60) | JSON,
        "jokers_as": st.lists(st.sampled_from(["3D", "JK", "x"]), max_size=4) | JSON,
        "ranks": st.lists(st.sampled_from(["5", "10", "Q", "Z"]), max_size=4) | JSON,
        "request_id": st.text(max_size=200) | JSON,
    },
)


@pytest.fixture(scope="module")
def http(fuzz_target: FuzzTarget) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=fuzz_target.http_base, timeout=30) as client:
        yield client


@pytest.fixture(scope="module")
def post_paths(http: httpx.Client) -> list[str]:
    """Every POST endpoint of the served OpenAPI schema: a new one is fuzzed too."""
    paths = http.get("/schema/openapi.json").json()["paths"]
    found = [path for path, operations in paths.items() if "post" in operations]
    assert found, "the schema lists no POST endpoint"
    return found


def authorization(target: FuzzTarget, sender: str) -> dict[str, str]:
    match = target.live_match()
    turn = match.game.turn if match.game.turn is not None else 0
    token = {
        "junk": "",
        "bearer junk": "Bearer x.y-z",
        "seat not to act": f"Bearer {target.live.seat_tokens[(turn + 1) % match.players]}",
        "host": f"Bearer {target.live.host_token}",
        "finished seat": f"Bearer {target.finished.seat_tokens[0]}",
    }.get(sender)
    if sender == "junk":
        return {"Authorization": "Basic x"}
    return {"Authorization": token} if token else {}


def post(
    target: FuzzTarget,
    http: httpx.Client,
    path: str,
    match_id: str,
    body: bytes,
    content_type: str,
    sender: str,
) -> httpx.Response:
    """POST ``body``; check the answer and that no match changed."""
    heads = target.heads()
    live = target.live_match()
    headers = authorization(target, sender)
    if content_type:
        headers["Content-Type"] = content_type
    url = path.replace("{match_id}", quote(match_id, safe=""))
    response = http.post(url, content=body, headers=headers)
    where = f"POST {path} {response.status_code} {response.text[:200]!r}"
    assert response.status_code < 500, where
    assert target.heads() == heads, f"{where}: a match changed"
    if response.status_code >= 400:
        error = response.json()
        # a refusal judged on a match carries its signed refusal receipt
        assert set(error) - {"receipt"} == {"code", "message"}, where
        assert error.get("receipt", {"kind": "refusal"})["kind"] == "refusal", where
        token = headers.get("Authorization", "").removeprefix("Bearer ")
        viewer = target.seat_of(token)
        secrets = [*target.secret_tokens, *hidden_from(live, viewer)]
        # the match id in the path is the caller's own too: "no match '2S'" tells nothing
        told = leaked(response.text, secrets, body + token.encode() + match_id.encode())
        assert not told, f"{where}: tells {told}"
    return response


def fuzz_posts(
    target: FuzzTarget, http: httpx.Client, paths: list[str], bodies: st.SearchStrategy[bytes]
) -> None:
    @FUZZ
    @given(
        path=st.sampled_from(paths),
        match_id=st.sampled_from(target.match_ids) | st.text(max_size=20),
        body=bodies,
        content_type=st.sampled_from(CONTENT_TYPES),
        sender=st.sampled_from(SENDERS),
    )
    def example(path: str, match_id: str, body: bytes, content_type: str, sender: str) -> None:
        post(target, http, path, match_id, body, content_type, sender)

    example()
    assert http.get(f"/matches/{target.live.match_id}").status_code == 200


def test_random_bytes(fuzz_target: FuzzTarget, http: httpx.Client, post_paths: list[str]) -> None:
    fuzz_posts(fuzz_target, http, post_paths, st.binary(max_size=2000))


def broken(text: str, cut: int, junk: bytes) -> bytes:
    """``text`` cut short somewhere, with junk after the cut."""
    encoded = text.encode()
    return encoded[: cut % (len(encoded) + 1)] + junk


def test_broken_json(fuzz_target: FuzzTarget, http: httpx.Client, post_paths: list[str]) -> None:
    documents = (ACTION_LIKE | JSON).map(json.dumps)
    bodies = st.builds(broken, documents, st.integers(0, 400), st.binary(max_size=8))
    fuzz_posts(fuzz_target, http, post_paths, bodies)


def test_json_of_the_wrong_shape(
    fuzz_target: FuzzTarget, http: httpx.Client, post_paths: list[str]
) -> None:
    bodies = (ACTION_LIKE | JSON).map(lambda value: json.dumps(value).encode())
    fuzz_posts(fuzz_target, http, post_paths, bodies)


NASTY_BODIES = [
    b"[" * 100_000,  # nesting deeper than any decoder recurses
    b'{"action":' * 5_000,
    b"[" * 1_000 + b"]" * 1_000,
    b'{"action": "play", "cards": ["3D"], "cards": 5}',
    b'{"action": "pass", "request_id": 1e999999}',
    b'{"action": "pass", "request_id": "\\ud800"}',
    b'\xef\xbb\xbf{"action": "pass"}',
    "{'action': 'pass'}".encode("utf-16"),
    b"null",
    b"",
    b"x" * (11 * 1024 * 1024),  # past the body size limit
    b"[" + b"0," * (3 * 1024 * 1024) + b"0]",  # big, under the limit
]


@pytest.mark.parametrize("body", NASTY_BODIES, ids=lambda body: repr(body[:16]))
def test_nasty_bodies(
    fuzz_target: FuzzTarget, http: httpx.Client, post_paths: list[str], body: bytes
) -> None:
    for path in post_paths:
        for sender in ("seat not to act", "host"):
            post(
                fuzz_target, http, path, fuzz_target.live.match_id, body, "application/json", sender
            )
