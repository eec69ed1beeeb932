"""Tables opened over REST: their open seats are taken with an invite only, and what
proves a retry of an invite's exchange, or of a table's create, is the caller's secret.
Each test first takes the honest path."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import pytest

from clients.sdk import DaifugoClient, Refused
from eventstore import RedisEventStore
from service.app.match import stream_of


async def open_table(http: httpx.AsyncClient, **fields: Any) -> dict[str, Any]:
    body = {"preset": "classic", "players": 3, "bots": 0, "seat": 0, "name": "host", **fields}
    answer = await http.post("/matches", json=body)
    assert answer.status_code == 201, answer.text
    table: dict[str, Any] = answer.json()
    return table


async def test_a_stranger_cannot_join_a_table_s_invited_seat(
    client: DaifugoClient, http: httpx.AsyncClient, store: RedisEventStore
) -> None:
    """A table's open seats wait for the friends holding its invites: JoinMatch, which
    takes any open match's next free seat, does not take one of them."""
    table = await open_table(http)
    match_id, invite = table["match_id"], table["invites"][0]
    stream = stream_of(match_id)
    version = await store.version(stream)
    with pytest.raises(Refused) as refused:
        await client.join(match_id, "stranger")
    assert refused.value.code == "permission_denied"
    assert await store.version(stream) == version
    # the honest path: the friend's invite takes the seat; an open-seat match (no
    # invites) still takes JoinMatch
    taken = await http.post(f"/matches/{match_id}/seats", json={"secret": invite["secret"]})
    assert (taken.status_code, taken.json()["seat"]) == (200, invite["seat"]), taken.text
    open_match = await client.create_match("classic", 3, open_seats=True)
    assert (await client.join(open_match.match_id, "anyone")).seat == 0


async def test_the_host_cannot_take_an_exchanged_seat_s_token_by_a_guessed_retry(
    http: httpx.AsyncClient, store: RedisEventStore
) -> None:
    """The host holds every invite and sees the name the friend took: a retry proves
    itself with the request id alone, so that id is a secret of 128 bits."""
    table = await open_table(http)
    match_id, invite = table["match_id"], table["invites"][0]
    secret = uuid.uuid4().hex
    body = {"secret": invite["secret"], "name": "friend", "request_id": secret}
    friend = await http.post(f"/matches/{match_id}/seats", json=body)
    assert friend.status_code == 200, friend.text
    # the honest retry of a lost reply: the same token
    again = await http.post(f"/matches/{match_id}/seats", json=body)
    assert again.json()["seat_token"] == friend.json()["seat_token"]
    # another exchange of the used invite is refused
    other = {**body, "request_id": uuid.uuid4().hex}
    taken = await http.post(f"/matches/{match_id}/seats", json=other)
    assert (taken.status_code, taken.json()["code"]) == (409, "seat_taken")
    # a guessable id is refused before it can seat anyone, so none is ever stored
    second = await open_table(http, players=4)
    version = await store.version(stream_of(second["match_id"]))
    for guessable in ("1", "retry", "x" * 21):
        short = {"secret": second["invites"][0]["secret"], "request_id": guessable}
        answer = await http.post(f"/matches/{second['match_id']}/seats", json=short)
        assert (answer.status_code, answer.json()["code"]) == (400, "request_id_too_short")
    assert await store.version(stream_of(second["match_id"])) == version


async def test_a_table_s_create_request_id_is_a_secret_of_its_own_length(
    http: httpx.AsyncClient,
) -> None:
    """The service scopes a table's create id with a prefix of its own: the prefix adds
    no secret, so the caller's id alone must have 128 bits."""
    secret = uuid.uuid4().hex
    first = await open_table(http, request_id=secret)
    retried = await open_table(http, request_id=secret)
    assert (retried["match_id"], retried["host_token"]) == (first["match_id"], first["host_token"])
    before = await http.get("/matches", params={"limit": 500})
    for guessable in ("x" * 16, "x" * 21):
        body = {"preset": "classic", "players": 3, "request_id": guessable}
        answer = await http.post("/matches", json=body)
        assert (answer.status_code, answer.json()["code"]) == (400, "request_id_too_short")
    assert (await http.get("/matches", params={"limit": 500})).json() == before.json()


async def test_the_host_cannot_take_the_auto_start_s_request_id(
    http: httpx.AsyncClient, store: RedisEventStore
) -> None:
    """The service starts a full auto-start table with no id of the host's scope, so a
    host request under the id it once used does not refuse the last friend's seat nor
    keep the table from starting."""
    honest = await open_table(http, auto_start=True)
    for invite in honest["invites"]:
        secret = {"secret": invite["secret"]}
        taken = await http.post(f"/matches/{honest['match_id']}/seats", json=secret)
        assert taken.status_code == 200, taken.text
    assert taken.json()["started"] is True
    table = await open_table(http, auto_start=True)
    match_id = table["match_id"]
    headers = {"authorization": f"Bearer {table['host_token']}"}
    crafted = {"kind": "greedy", "request_id": f"autostart:{match_id}"}
    bot = await http.post(f"/matches/{match_id}/bots", json=crafted, headers=headers)
    assert bot.status_code == 200, bot.text
    last = next(i for i in table["invites"] if i["seat"] != bot.json()["seat"])
    friend = await http.post(f"/matches/{match_id}/seats", json={"secret": last["secret"]})
    assert friend.status_code == 200, friend.text
    assert friend.json()["started"] is True
    assert any(e.type == "MatchStarted" for e in await store.read(stream_of(match_id)))


async def test_a_join_from_the_lobby_takes_only_listed_tables_and_a_bounded_number(
    http: httpx.AsyncClient, store: RedisEventStore
) -> None:
    """POST /matches/{id}/join takes a seat with no invite: only at a table its creator
    listed in the lobby; an invite-only table's seats stay with the invites. One
    address cannot take every open seat either: past --quota-seats-per-caller (4 by
    default) in matches not over, 429 quota_seats. Each refusal appends nothing. (One
    test: the seats it takes count for the module's whole service.)"""
    table = await open_table(http)
    match_id = table["match_id"]
    version = await store.version(stream_of(match_id))
    for body in ({"name": "stranger"}, {"name": "stranger", "request_id": uuid.uuid4().hex}):
        answer = await http.post(f"/matches/{match_id}/join", json=body)
        assert (answer.status_code, answer.json()["code"]) == (403, "permission_denied")
        assert "invite" in answer.json()["message"]
    # unknown fields (a seat to pick, a forged flag) are refused, not ignored
    forged = await http.post(f"/matches/{match_id}/join", json={"seat": 1, "lobby": True})
    assert (forged.status_code, forged.json()["code"]) == (400, "bad_request")
    assert await store.version(stream_of(match_id)) == version

    # the honest path: a listed table seats a stranger at its next free seat
    tables = [await open_table(http, players=2, lobby=True) for _ in range(5)]
    ids = [uuid.uuid4().hex for _ in tables]
    tokens = []
    for listed, request_id in zip(tables[:4], ids, strict=False):
        body = {"name": "Sam", "request_id": request_id}
        answer = await http.post(f"/matches/{listed['match_id']}/join", json=body)
        assert (answer.status_code, answer.json()["seat"]) == (200, 1), answer.text
        tokens.append(answer.json()["seat_token"])
    seat = await http.get(
        f"/matches/{tables[0]['match_id']}/seat",
        headers={"Authorization": f"Bearer {tokens[0]}"},
    )
    assert seat.status_code == 200 and seat.json()["view"]["seat"] == 1
    # the fifth seat from one address
    last = tables[4]["match_id"]
    version = await store.version(stream_of(last))
    refused = await http.post(f"/matches/{last}/join", json={"name": "Sam", "request_id": ids[4]})
    assert (refused.status_code, refused.json()["code"]) == (429, "quota_seats")
    assert int(refused.headers["Retry-After"]) > 0
    assert await store.version(stream_of(last)) == version
    # a lost reply asked again: the same seat, not one more
    again = await http.post(
        f"/matches/{tables[0]['match_id']}/join", json={"name": "Sam", "request_id": ids[0]}
    )
    assert (again.status_code, again.json()["seat_token"]) == (200, tokens[0]), again.text
