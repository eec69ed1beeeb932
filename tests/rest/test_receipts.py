"""Receipts over real REST, for every answer that appends: a table's create (with the
creator's seat), the exchange of an invite (with the auto start it sets off), the
host's bots and start, and a refusal judged on the match. Each verifies with the key
GET /keys publishes, names the request it answers, and the auditor accepts them all
against the finished match's exported log."""

from __future__ import annotations

import asyncio
import json
import uuid
from typing import Any

import httpx

from clients.bots import GreedyBot
from clients.runner import play_seat
from clients.sdk import DaifugoClient
from service.records import ActionReceipt, KeySet, RefusalReceipt, action_request, verify
from service.records import request_digest as digest_of


def digest(match_id: str, by: str, command: str, request_id: str) -> str:
    return digest_of(action_request(match_id, by, command, request_id))


async def keys(http: httpx.AsyncClient) -> KeySet:
    return KeySet.from_dict((await http.get("/keys")).json())


def receipt_of(record: dict[str, Any], keys: KeySet) -> ActionReceipt:
    checked = verify(record, keys)
    assert checked.ok and isinstance(checked.record, ActionReceipt), checked
    return checked.record


async def sealed_log(http: httpx.AsyncClient, match_id: str) -> str:
    for _ in range(400):
        answer = await http.get(f"/matches/{match_id}/record", params={"format": "jsonl"})
        lines = answer.text.strip().splitlines()
        if answer.status_code == 200 and json.loads(lines[-1])["type"] == "MatchSealed":
            return answer.text
        await asyncio.sleep(0.05)
    raise AssertionError(f"{match_id} was never sealed")


async def audited(http: httpx.AsyncClient, log: str, receipts: list[dict[str, Any]]) -> Any:
    return (await http.post("/audit", json={"log": log, "receipts": receipts})).json()


async def test_a_table_its_invite_and_its_auto_start_carry_receipts(
    http: httpx.AsyncClient, grpc_client: DaifugoClient
) -> None:
    published = await keys(http)
    request = uuid.uuid4().hex
    body = {"preset": "classic", "players": 2, "name": "ann", "games_per_set": 1}
    table = (await http.post("/matches", json={**body, "request_id": request})).json()
    match_id = table["match_id"]
    created, creator = (receipt_of(r, published) for r in table["receipts"])
    assert (created.first_seq, created.last_seq, creator.first_seq) == (0, 0, 1)
    assert created.request_digest == digest(match_id, "create", "create", f"table:{request}")
    assert creator.request_digest == digest(match_id, "invite:0", "join", f"creator:{request}")

    exchange = {"secret": table["invites"][0]["secret"], "request_id": uuid.uuid4().hex}
    taken = (await http.post(f"/matches/{match_id}/seats", json=exchange)).json()
    assert taken["started"] is True
    seat, start = (receipt_of(r, published) for r in taken["receipts"])
    assert (seat.first_seq, seat.last_seq, start.first_seq) == (2, 2, 3)
    assert seat.request_digest == digest(
        match_id, "invite:1", "join", f"invite:{exchange['request_id']}"
    )
    assert start.request_digest == digest(match_id, "host", "start", "")  # the auto start's
    retried = (await http.post(f"/matches/{match_id}/seats", json=exchange)).json()
    assert retried["receipts"][0] == taken["receipts"][0]  # the same, byte for byte

    # the invite used again: refused on the match, and the refusal signed
    again = await http.post(f"/matches/{match_id}/seats", json={"secret": exchange["secret"]})
    assert again.status_code == 409 and again.json()["code"] == "seat_taken"
    refusal = verify(again.json()["receipt"], published)
    assert refusal.ok and isinstance(refusal.record, RefusalReceipt)
    assert (refusal.record.reason, refusal.record.judged_at_seq) == ("seat_taken", start.last_seq)

    seats = [
        grpc_client.seat(match_id, token) for token in (table["seat_token"], taken["seat_token"])
    ]
    await asyncio.wait_for(asyncio.gather(*(play_seat(s, GreedyBot()) for s in seats)), 120)
    log = await sealed_log(http, match_id)
    given = [*table["receipts"], *taken["receipts"], again.json()["receipt"]]
    given += [receipt for s in seats for receipt in s.receipts]
    report = await audited(http, log, given)
    assert report["verdict"] == "valid" and report["not_run"] == [], report
    # what the page keeps for the creator's seat alone: its table's and its actions'
    report = await audited(http, log, [*table["receipts"], *seats[0].receipts])
    assert report["verdict"] == "valid", report


async def test_the_hosts_bots_and_start_carry_receipts(
    http: httpx.AsyncClient, grpc_client: DaifugoClient
) -> None:
    published = await keys(http)
    body = {"preset": "classic", "players": 2, "seat": None, "games_per_set": 1}
    table = (await http.post("/matches", json={**body, "auto_start": False, "bot_pause": 0})).json()
    match_id = table["match_id"]
    assert [receipt_of(r, published).first_seq for r in table["receipts"]] == [0]
    host = {"Authorization": f"Bearer {table['host_token']}"}

    request = uuid.uuid4().hex
    bot = await http.post(
        f"/matches/{match_id}/bots", json={"kind": "greedy", "request_id": request}, headers=host
    )
    assert bot.status_code == 200, bot.text
    (seated,) = (receipt_of(r, published) for r in bot.json()["receipts"])
    assert (seated.first_seq, seated.last_seq) == (1, 1)
    assert seated.request_digest == digest(match_id, "host", "bot greedy", request)

    # the host starting too early is refused on the match, the refusal signed
    early = await http.post(f"/matches/{match_id}/start", headers=host)
    assert early.status_code == 409 and early.json()["code"] == "not_started"
    refusal = verify(early.json()["receipt"], published)
    assert refusal.ok and isinstance(refusal.record, RefusalReceipt)
    assert refusal.record.judged_at_seq == 1

    invite = table["invites"][-1]
    taken = await http.post(f"/matches/{match_id}/seats", json={"secret": invite["secret"]})
    assert taken.json()["started"] is False and len(taken.json()["receipts"]) == 1
    started = await http.post(f"/matches/{match_id}/start", headers=host)
    assert started.status_code == 200, started.text
    start = receipt_of(started.json()["receipt"], published)
    assert start.first_seq == 3 and start.last_seq == started.json()["version"]
    assert start.request_digest == digest(match_id, "host", "start", "")

    person = grpc_client.seat(match_id, taken.json()["seat_token"])
    await asyncio.wait_for(play_seat(person, GreedyBot()), 120)  # the bot plays its own seat
    log = await sealed_log(http, match_id)
    given = [
        *table["receipts"],
        *bot.json()["receipts"],
        early.json()["receipt"],
        *taken.json()["receipts"],
        started.json()["receipt"],
        *person.receipts,
    ]
    report = await audited(http, log, given)
    assert report["verdict"] == "valid" and report["not_run"] == [], report
