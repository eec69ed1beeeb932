"""A person plays a seat over REST: the seat's view and legal actions, a legal
play accepted, every refusal with the rules' reason code and nothing changed,
and a retried request answered with its first outcome."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import pytest

from clients.sdk import DaifugoClient
from service.app.match import stream_of
from service.runtime import Running
from tests.integration.conftest import Arranged, arrange
from tests.integration.test_grpc_api import REFUSALS


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def act(
    http: httpx.AsyncClient, table: Arranged, seat: int, kind: str, cards: str = "", **more: Any
) -> httpx.Response:
    body = {"request_id": uuid.uuid4().hex, "action": kind, "cards": cards.split(), **more}
    return await http.post(
        f"/matches/{table.match_id}/actions", json=body, headers=bearer(table.seats[seat].token)
    )


async def version(running: Running, match_id: str) -> int:
    return await running.service.store.version(stream_of(match_id))


async def test_a_seat_sees_its_hand_and_legal_actions_and_plays(
    served: Running, http: httpx.AsyncClient, grpc_client: DaifugoClient
) -> None:
    table = await arrange(served, grpc_client, "federation", ["3D 9C", "4D 5D", "6H 7H"], 0)
    seat = (
        await http.get(f"/matches/{table.match_id}/seat", headers=bearer(table.seats[0].token))
    ).json()
    assert seat["view"]["hand"] == ["3D", "9C"] and seat["view"]["seat"] == 0
    assert seat["view"]["hands"] is None
    assert {"action": "play", "cards": ["3D"], "jokers_as": [], "ranks": []} in seat["legal"]
    assert seat["version"] == await version(served, table.match_id)
    other = (
        await http.get(f"/matches/{table.match_id}/seat", headers=bearer(table.seats[1].token))
    ).json()
    assert other["view"]["hand"] == ["4D", "5D"] and other["legal"] == []

    played = await act(http, table, 0, "play", "3D")
    assert played.status_code == 200, played.text
    body = played.json()
    assert body["version"] == await version(served, table.match_id)
    assert body["events"][0]["type"] == "CardsPlayed"
    assert body["events"][0]["cards"] == ["3D"] and body["events"][0]["seat"] == 0
    after = (
        await http.get(f"/matches/{table.match_id}/seat", headers=bearer(table.seats[1].token))
    ).json()
    assert after["view"]["turn"] == 1 and after["legal"]


async def test_a_retried_request_returns_the_first_outcome(
    served: Running, http: httpx.AsyncClient, grpc_client: DaifugoClient
) -> None:
    table = await arrange(served, grpc_client, "federation", ["3D 9C", "4D 5D"], 0)
    body = {"request_id": "once-" + uuid.uuid4().hex, "action": "play", "cards": ["3D"]}
    url = f"/matches/{table.match_id}/actions"
    first = await http.post(url, json=body, headers=bearer(table.seats[0].token))
    stored = await version(served, table.match_id)
    again = await http.post(url, json=body, headers=bearer(table.seats[0].token))
    assert first.status_code == again.status_code == 200
    assert again.json() == first.json()
    assert await version(served, table.match_id) == stored


@pytest.mark.parametrize("case", REFUSALS, ids=[case[-1] for case in REFUSALS])
async def test_every_refusal_has_its_code_and_changes_nothing(
    served: Running, http: httpx.AsyncClient, grpc_client: DaifugoClient, case: Any
) -> None:
    preset, hands, leader, before, (seat, kind, cards), code = case
    table = await arrange(served, grpc_client, preset, hands, leader)
    for who, what, played in before:
        assert (await act(http, table, who, what, played)).status_code == 200
    stored = await version(served, table.match_id)
    refused = await act(http, table, seat, kind, cards)
    assert refused.json()["code"] == code
    assert refused.status_code == (400 if code == "invalid_meld" else 409)
    assert await version(served, table.match_id) == stored


async def test_bad_input_and_bad_tokens_are_refused(
    served: Running, http: httpx.AsyncClient, grpc_client: DaifugoClient
) -> None:
    table = await arrange(served, grpc_client, "federation", ["3D 9C", "4D 5D"], 0)
    url = f"/matches/{table.match_id}/actions"
    stored = await version(served, table.match_id)
    for body, status, code in [
        ({"action": "play", "cards": ["5Z"]}, 400, "bad_request"),
        ({"action": "play", "cards": ["3D", "3D"]}, 400, "bad_request"),
        ({"action": "jump"}, 400, "bad_request"),
        ({"cards": ["3D"]}, 400, "bad_request"),
        ({"action": "play", "cards": "3D"}, 400, "bad_request"),
        ({"action": "bomb", "ranks": ["Z"]}, 400, "bad_request"),
    ]:
        answer = await http.post(url, json=body, headers=bearer(table.seats[0].token))
        assert (answer.status_code, answer.json()["code"]) == (status, code), body
        assert answer.json()["message"]
    json_type = {"Content-Type": "application/json", **bearer(table.seats[0].token)}
    garbage = await http.post(url, content=b"{not json", headers=json_type)
    assert garbage.status_code == 400 and garbage.json()["code"] == "bad_request"
    play = {"action": "play", "cards": ["3D"]}
    for headers, status, code in [
        ({}, 401, "unauthenticated"),
        ({"Authorization": "Token abc"}, 401, "unauthenticated"),
        (bearer("not-a-token"), 401, "unauthenticated"),  # not of a token's form
        (bearer(table.host_token[:-2] + "xx"), 403, "permission_denied"),
        (bearer(table.host_token), 403, "permission_denied"),
    ]:
        answer = await http.post(url, json=play, headers=headers)
        assert (answer.status_code, answer.json()["code"]) == (status, code), headers
    unknown = await http.post("/matches/0000000000000000/actions", json=play, headers=bearer("x"))
    assert unknown.status_code == 404 and unknown.json()["code"] == "not_found"
    seat_view = await http.get(f"/matches/{table.match_id}/seat")
    assert seat_view.status_code == 401
    assert await version(served, table.match_id) == stored
