"""Opening a table over REST: POST /matches with the creator's seat, open seats
and their invite links, the exchange of an invite for a seat (once), the
host's start and the auto start, and input that creates nothing."""

from __future__ import annotations

from typing import Any

import httpx

from clients.sdk import DaifugoClient
from service.runtime import Running

from .support import stored, wait_listed


async def create(http: httpx.AsyncClient, **body: Any) -> httpx.Response:
    return await http.post("/matches", json={"preset": "torasobi", "players": 3, **body})


async def streams(served: Running) -> int:
    return await served.service.store.stream_count()


def secret_of(link: str) -> str:
    assert link.startswith("/#/invite/")
    return link.rsplit("/", 1)[1]


async def test_a_table_with_invites_starts_once_every_seat_is_taken(
    served: Running, http: httpx.AsyncClient
) -> None:
    response = await create(http, name="ann", options={"five_skip": True}, games_per_set=2)
    assert response.status_code == 201, response.text
    table = response.json()
    match_id = table["match_id"]
    assert table["seat"] == 0 and table["seat_token"] and table["host_token"]
    assert table["started"] is False
    assert [invite["seat"] for invite in table["invites"]] == [1, 2]
    for invite in table["invites"]:
        # the secret is in the fragment only: no query string a server would log
        assert invite["link"] == f"/#/invite/{match_id}/{invite['secret']}"
        assert "?" not in invite["link"]
    seat = await http.get(
        f"/matches/{match_id}/seat", headers={"Authorization": f"Bearer {table['seat_token']}"}
    )
    assert seat.json()["view"]["seat"] == 0
    assert seat.json()["view"]["options"]["five_skip"] is True
    assert seat.json()["view"]["games_per_set"] == 2

    first = await http.post(
        f"/matches/{match_id}/seats",
        json={"secret": secret_of(table["invites"][0]["link"]), "name": "bo"},
    )
    assert first.status_code == 200, first.text
    assert first.json()["seat"] == 1 and first.json()["started"] is False
    token = first.json()["seat_token"]
    mine = await http.get(f"/matches/{match_id}/seat", headers={"Authorization": f"Bearer {token}"})
    assert mine.json()["view"]["seat"] == 1

    last = await http.post(
        f"/matches/{match_id}/seats", json={"secret": table["invites"][1]["secret"]}
    )
    assert last.json() | {"seat_token": "", "receipts": []} == {
        "match_id": match_id, "seat": 2, "seat_token": "", "started": True, "receipts": [],
    }  # fmt: skip
    # the seat's receipt, and the start's: taking the last seat started the match
    assert [r["first_seq"] for r in last.json()["receipts"]] == [3, 4]
    events = await stored(served, match_id)
    names = {
        event.data["seat"]: event.data["name"] for event in events if event.type == "SeatJoined"
    }
    assert names == {0: "ann", 1: "bo", 2: "seat 2"}
    assert [event.type for event in events[:6]][-2:] == ["MatchStarted", "GameDealt"]
    # no secret or token in any event
    text = repr([event.data for event in events])
    for secret in (table["host_token"], token, *(i["secret"] for i in table["invites"])):
        assert secret not in text


async def test_an_invite_is_good_once_and_a_forged_one_never(
    served: Running, http: httpx.AsyncClient
) -> None:
    table = (await create(http, auto_start=False)).json()
    match_id = table["match_id"]
    secret = table["invites"][0]["secret"]
    taken = await http.post(f"/matches/{match_id}/seats", json={"secret": secret, "name": "x"})
    assert taken.status_code == 200
    before = len(await stored(served, match_id))

    again = await http.post(f"/matches/{match_id}/seats", json={"secret": secret, "name": "y"})
    assert again.status_code == 409 and again.json()["code"] == "seat_taken"

    seat, _, mac = table["invites"][1]["secret"].partition(".")
    other = (await create(http)).json()
    forged = [
        f"{seat}.{mac[:-2]}AA",  # a guessed mac
        f"1.{mac}",  # seat 2's mac on seat 1 (taken or not, it is not seat 1's)
        other["invites"][1]["secret"],  # another match's invite to the same seat
        "2.",
        "9." + mac,
        "²." + mac,
        "x" * 64,
    ]
    for secret in forged:
        refused = await http.post(f"/matches/{match_id}/seats", json={"secret": secret})
        assert refused.status_code == 403, (secret, refused.text)
        assert refused.json()["code"] == "permission_denied"
    too_long = await http.post(f"/matches/{match_id}/seats", json={"secret": "1." + "A" * 80})
    assert too_long.status_code == 400
    in_query = await http.post(
        f"/matches/{match_id}/seats", params={"secret": table["invites"][1]["secret"]}
    )
    assert in_query.status_code == 400  # the secret is taken from the body only
    assert len(await stored(served, match_id)) == before

    # a retry of the same exchange (a lost reply) gets the seat back; nobody else does
    last = table["invites"][1]["secret"]
    once = await http.post(
        f"/matches/{match_id}/seats", json={"secret": last, "request_id": "r1" * 11}
    )
    retry = await http.post(
        f"/matches/{match_id}/seats", json={"secret": last, "request_id": "r1" * 11}
    )
    assert retry.json()["seat_token"] == once.json()["seat_token"]
    stranger = await http.post(
        f"/matches/{match_id}/seats", json={"secret": last, "request_id": "r2" * 11}
    )
    assert stranger.status_code == 409

    # full, without auto start: the host starts it, and only the host
    assert once.json()["started"] is False
    path = f"/matches/{match_id}/start"
    as_seat = await http.post(path, headers={"Authorization": f"Bearer {table['seat_token']}"})
    assert as_seat.status_code == 403
    started = await http.post(path, headers={"Authorization": f"Bearer {table['host_token']}"})
    assert started.status_code == 200, started.text
    assert (await served.service.load(match_id)).started
    twice = await http.post(path, headers={"Authorization": f"Bearer {table['host_token']}"})
    assert twice.status_code == 409 and twice.json()["code"] == "already_started"


async def test_the_host_starts_only_a_full_table_and_may_only_host(
    served: Running, http: httpx.AsyncClient
) -> None:
    table = (await create(http, players=2, seat=None)).json()
    assert table["seat"] is None and table["seat_token"] is None
    assert [invite["seat"] for invite in table["invites"]] == [0, 1]
    path = f"/matches/{table['match_id']}/start"
    early = await http.post(path, headers={"Authorization": f"Bearer {table['host_token']}"})
    assert early.status_code == 409 and early.json()["code"] == "not_started"
    seat_one = await create(http, players=2, seat=1)
    assert [invite["seat"] for invite in seat_one.json()["invites"]] == [0]


async def test_bad_tables_are_refused_with_a_reason_and_create_nothing(
    served: Running, http: httpx.AsyncClient
) -> None:
    bad: list[tuple[dict[str, Any], str]] = [
        ({"options": {"no_such_rule": True}}, "unknown_option"),
        ({"options": {"preset": "federation"}}, "unknown_option"),
        ({"options": {"five_skip": 3}}, "bad_request"),  # the rules' own type check
        ({"preset": "nonesuch"}, "unknown_preset"),
        ({"bots": 4}, "too_many_bots"),
        ({"bots": [0, 1, 2, 3]}, "too_many_bots"),
        ({"bots": [1, 1]}, "bad_bots"),
        ({"bots": {"7": "greedy"}}, "bad_bots"),
        ({"bots": {"x": "greedy"}}, "bad_bots"),
        ({"bots": {"1": "genius"}}, "bad_request"),
        ({"bots": True}, "bad_request"),
        ({"players": 6}, "bad_request"),
        ({"players": 1}, "bad_request"),
        ({"seat": 3}, "bad_seat"),
        ({"name": "n" * 41}, "bad_request"),
        ({"preset": "p" * 5000}, "bad_request"),
        ({"options": {"o" * 41: True}}, "bad_request"),
        ({"options": {f"o{i}": True for i in range(65)}}, "bad_request"),
        ({"request_id": "r" * 129}, "bad_request"),
        ({"turn_time_limit": -1}, "bad_request"),
        ({"spectator_delay": 1e12}, "bad_request"),
        ({"games_per_set": 101}, "too_many_games"),
        ({"options": {"games_per_set": 101}}, "too_many_games"),
        ({"colour": "red"}, "bad_request"),  # an unknown field
    ]
    before = await streams(served)
    for body, code in bad:
        response = await create(http, **body)
        assert response.status_code == 400, (body, response.text)
        assert response.json()["code"] == code, (body, response.json())
        assert len(response.text) < 2000  # a huge input is not echoed back whole
    assert await streams(served) == before


async def test_bots_take_their_seats_and_a_full_table_starts(
    served: Running, http: httpx.AsyncClient
) -> None:
    table = (await create(http, bots=2, bot_pause=0)).json()
    assert table["bots"] == {"1": "greedy", "2": "greedy"}
    assert table["invites"] == [] and table["started"] is True
    events = await stored(served, table["match_id"])
    joined = {event.data["seat"]: event.data.get("bot", "") for event in events[:4][1:]}
    assert joined == {1: "greedy", 2: "greedy", 0: ""}

    mixed = await create(http, players=4, seat=None, bots={"1": "random", "3": "stronger"})
    assert mixed.status_code == 201, mixed.text
    assert mixed.json()["bots"] == {"1": "random", "3": "stronger"}
    assert [invite["seat"] for invite in mixed.json()["invites"]] == [0, 2]
    assert mixed.json()["started"] is False
    # a list of seats: the kind is bot_kind; the creator may not sit in one of them
    refused = await create(http, players=4, bots=[2, 0], bot_kind="random")
    assert refused.json()["code"] == "bad_seat"
    listed = (await create(http, players=4, bots=[3, 1], bot_kind="random")).json()
    assert listed["bots"] == {"1": "random", "3": "random"}


async def test_bot_seats_the_creator_cannot_share(served: Running, http: httpx.AsyncClient) -> None:
    for body, code in (
        ({"bots": [0]}, "bad_seat"),
        ({"bots": 3}, "bad_seat"),  # every seat a bot's, and the creator sits too
        ({"bots": 1, "bot_pause": 11}, "bad_request"),
    ):
        response = await create(http, **body)
        assert response.status_code == 400, (body, response.text)
        assert response.json()["code"] == code
    all_bots = await create(http, bots=3, seat=None, bot_pause=0)
    assert all_bots.status_code == 201 and all_bots.json()["started"] is True


async def test_the_host_gives_an_open_seat_to_a_bot(
    served: Running, http: httpx.AsyncClient
) -> None:
    table = (await create(http, players=3)).json()
    path = f"/matches/{table['match_id']}/bots"
    as_seat = await http.post(
        path, json={"kind": "random"}, headers={"Authorization": f"Bearer {table['seat_token']}"}
    )
    assert as_seat.status_code == 403
    host = {"Authorization": f"Bearer {table['host_token']}"}
    unknown = await http.post(path, json={"kind": "oracle"}, headers=host)
    assert unknown.status_code == 400
    first = await http.post(path, json={"kind": "random"}, headers=host)
    assert first.json() | {"receipts": None} == {"seat": 1, "started": False, "receipts": None}
    assert len(first.json()["receipts"]) == 1
    last = await http.post(path, json={"kind": "stronger"}, headers=host)
    assert last.json() | {"receipts": None} == {"seat": 2, "started": True, "receipts": None}
    assert len(last.json()["receipts"]) == 2  # full: the auto start, with its receipt
    match = await served.service.load(table["match_id"])
    assert match.bots == (None, "random", "stronger")
    # the invite to a seat a bot took is good for nothing now
    taken = await http.post(
        f"/matches/{table['match_id']}/seats", json={"secret": table["invites"][0]["secret"]}
    )
    assert taken.status_code == 409 and taken.json()["code"] == "seat_taken"


async def test_a_lobby_table_is_listed_as_such_and_seats_a_stranger(
    served: Running, http: httpx.AsyncClient
) -> None:
    """A table opened with lobby: true is listed with lobby true (the lobby's Join), and
    a stranger's join takes its next free seat; an invite-only one is listed without."""
    lobby = (await create(http, name="ann", lobby=True)).json()
    closed = (await create(http, name="bob")).json()
    assert (await wait_listed(http, lobby["match_id"], "open"))["lobby"] is True
    assert (await wait_listed(http, closed["match_id"], "open"))["lobby"] is False
    joined = await http.post(f"/matches/{lobby['match_id']}/join", json={"name": "cy"})
    assert (joined.status_code, joined.json()["seat"]) == (200, 1), joined.text
    match = await served.service.load(lobby["match_id"])
    assert match.lobby and not match.invites and match.names[:2] == ("ann", "cy")
    assert not (await served.service.load(closed["match_id"])).lobby


async def test_a_lobby_table_opened_over_grpc_is_listed_and_seats_a_stranger(
    served: Running, http: httpx.AsyncClient, grpc_client: DaifugoClient
) -> None:
    """gRPC's CreateMatch opens lobby tables too (open seats, listed, joined by anyone);
    lobby without open seats is no lobby table, and its seats are nobody's to join."""
    lobby = await grpc_client.create_match("classic", 3, open_seats=True, lobby=True)
    assert (await wait_listed(http, lobby.match_id, "open"))["lobby"] is True
    joined = await http.post(f"/matches/{lobby.match_id}/join", json={"name": "cy"})
    assert (joined.status_code, joined.json()["seat"]) == (200, 0), joined.text
    seated = await grpc_client.create_match("classic", 3, lobby=True)  # every seat dealt out
    assert not (await served.service.load(seated.match_id)).lobby
    refused = await http.post(f"/matches/{seated.match_id}/join", json={"name": "cy"})
    assert (refused.status_code, refused.json()["code"]) == (403, "permission_denied")
