"""Receipts, seals and blinding against a real `daifugo serve`: every answer of an
action carries a receipt signed by a key GET /keys publishes, a retry gets the same
one, a refusal gets a signed refusal; the finished match is sealed and audits valid
with every receipt; and what is given out during play (every receipt, every event a
spectator sees) does not let anyone test a guess about a hidden card."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx
import pytest

from clients.bots import GreedyBot
from clients.runner import play_seat
from clients.sdk import DaifugoClient, Refused, SeatSession
from eventstore import GENESIS_HASH, StoredEvent, event_hash
from service.audit import parse_jsonl
from service.records import BLINDING, ActionReceipt, KeySet, RefusalReceipt, verify
from service.rules.cards import cards_of, format_card
from service.rules.commands import Give, Pass, Play, SeatCommand
from service.rules.views import View

GREEDY = GreedyBot()
EVERY_CARD = 53  # card numbers: the 52 and the joker


def gift_of_one(view: View, actions: Sequence[SeatCommand]) -> SeatCommand:
    """Greedy, but a single 7 whenever it may, and then a gift of one card."""
    for action in actions:
        if isinstance(action, Give) and action.cards.bit_count() == 1:
            return action
    for action in actions:
        if isinstance(action, Play) and action.cards.bit_count() == 1:
            if format_card(cards_of(action.cards)[0])[0] == "7":
                return action
    return GREEDY.choose(view, actions)


async def _keys(http: httpx.AsyncClient) -> KeySet:
    return KeySet.from_dict((await http.get("/keys")).json())


async def _played(client: DaifugoClient, http: httpx.AsyncClient) -> dict[str, Any]:
    """A 2-player match with seven-pass gifts, played to its end; what a spectator
    saw during play, every receipt given out, and the exported log."""
    created = await client.create_match("classic", 2, options={"seven_pass": True}, games_per_set=3)
    host = client.host(created.match_id, created.host_token)
    seats = [client.seat(created.match_id, token) for token in created.seat_tokens]
    spectated: list[dict[str, Any]] = []

    async def spectate() -> None:
        async for event in host.events():
            if event["type"] == "MatchEnded":  # from here on everything is revealed
                return
            spectated.append(event)

    watching = asyncio.create_task(spectate())
    await host.start()
    await asyncio.gather(*(play_seat(seat, gift_of_one) for seat in seats))
    await asyncio.wait_for(watching, 60)
    exported = await http.get(f"/matches/{created.match_id}/record", params={"format": "jsonl"})
    receipts = [created.receipt, *host.receipts, *(r for seat in seats for r in seat.receipts)]
    return {
        "match_id": created.match_id,
        "spectated": spectated,
        "receipts": [receipt for receipt in receipts if receipt is not None],
        "seats": seats,
        "log": exported.text,
        "events": parse_jsonl(exported.text),
    }


@pytest.fixture(scope="module")
def played_match(served: Any) -> dict[str, Any]:
    async def play() -> dict[str, Any]:
        async with (
            DaifugoClient(served.grpc_target, timeout=20) as client,
            httpx.AsyncClient(base_url=f"http://127.0.0.1:{served.http_port}", timeout=30) as http,
        ):
            return await _played(client, http)

    return asyncio.run(play())


async def test_every_receipt_is_signed_and_the_sealed_match_audits_valid(
    played_match: dict[str, Any], http: httpx.AsyncClient
) -> None:
    keys = await _keys(http)
    receipts = played_match["receipts"]
    assert len(receipts) > 20
    assert all(verify(receipt, keys).ok for receipt in receipts)
    events: list[StoredEvent] = played_match["events"]
    assert [e.type for e in events[-2:]] == ["SeedRevealed", "MatchSealed"]
    body = {"log": played_match["log"], "receipts": receipts}
    report = (await http.post("/audit", json=body)).json()
    assert report["verdict"] == "valid", report
    assert report["not_run"] == []
    bare = (await http.post("/audit", content=played_match["log"])).json()
    assert bare["verdict"] == "valid"
    assert [item["name"] for item in bare["not_run"]] == ["receipts"]


async def test_a_receipt_names_the_request_the_seat_sent(
    client: DaifugoClient, http: httpx.AsyncClient
) -> None:
    created = await client.create_match("classic", 2)
    await client.host(created.match_id, created.host_token).start()
    seat0, seat1 = (client.seat(created.match_id, token) for token in created.seat_tokens)
    to_act = seat0 if (await seat0.turn()).actions else seat1
    turn = await to_act.turn()
    request_id = uuid.uuid4().hex
    first = await to_act.act(turn.actions[0], request_id)
    retried = await to_act.act(turn.actions[0], request_id)
    assert first.receipt is not None and retried.receipt == first.receipt  # the same bytes
    signed = verify(first.receipt, await _keys(http))
    assert signed.ok and isinstance(signed.record, ActionReceipt)
    assert signed.record.request_digest == to_act.request_digest(turn.actions[0], request_id)
    assert (signed.record.first_seq, signed.record.last_seq)[1] == first.version

    # a refusal judged on the match is signed too, with its reason code
    mine = turn.actions[0].seat
    with pytest.raises(Refused) as refused:
        await to_act.act(Pass(mine), uuid.uuid4().hex)  # the turn has moved on
    assert refused.value.code == "not_your_turn"
    assert refused.value.receipt is not None and refused.value.receipt in to_act.receipts
    judged = verify(refused.value.receipt, await _keys(http))
    assert judged.ok and isinstance(judged.record, RefusalReceipt)
    assert judged.record.reason == "not_your_turn"
    assert judged.record.judged_at_seq == first.version


async def test_rest_actions_carry_receipts_and_refusals(
    client: DaifugoClient, http: httpx.AsyncClient
) -> None:
    created = await client.create_match("classic", 2)
    await client.host(created.match_id, created.host_token).start()
    keys = await _keys(http)
    url = f"/matches/{created.match_id}"
    for token in created.seat_tokens:
        headers = {"Authorization": f"Bearer {token}"}
        seat = (await http.get(f"{url}/seat", headers=headers)).json()
        if seat["legal"]:
            break
    acted = await http.post(
        f"{url}/actions", json={**seat["legal"][0], "request_id": "r-1"}, headers=headers
    )
    # the same seat again, its turn gone: refused, and the refusal signed
    refused = await http.post(
        f"{url}/actions", json={"action": "pass", "request_id": "r-2"}, headers=headers
    )
    assert acted.status_code == 200 and refused.status_code == 409, refused.text
    assert verify(acted.json()["receipt"], keys).ok
    refusal = verify(refused.json()["receipt"], keys)
    assert refusal.ok and isinstance(refusal.record, RefusalReceipt)
    assert refusal.record.reason == refused.json()["code"] == "not_your_turn"


def _chain_head(
    previous: str, events: Sequence[StoredEvent], datas: Sequence[dict[str, Any]]
) -> str:
    for event, data in zip(events, datas, strict=True):
        previous = event_hash(
            event.stream, event.seq, event.type, event.schema, event.at, event.request_id,
            data, previous,
        )  # fmt: skip
    return previous


def _heads(receipts: Sequence[dict[str, Any]]) -> dict[int, str]:
    """The chain's head after seq, for every seq a receipt names: what a holder knows."""
    return {r["last_seq"]: r["head"] for r in receipts if r["kind"] == "receipt"}


def _brute_force(
    events: Sequence[StoredEvent], heads: dict[int, str], seq: int, field: str
) -> list[str]:
    """Every card that, put in place of the one hidden card of ``field`` at ``seq``
    (all else as the attacker would wish to know it, the nonce aside), gives a head
    some receipt was given: the cards a holder of the receipts could tell."""
    end = min(s for s in heads if s >= seq)
    start = max((s for s in heads if s < seq), default=-1)
    previous = heads.get(start, GENESIS_HASH)
    span = [e for e in events if start < e.seq <= end]
    datas = [{k: v for k, v in e.data.items() if k != BLINDING} for e in span]
    hidden = events[seq].data[field]
    target = hidden[0]
    found = []
    for card in range(EVERY_CARD):
        guess = format_card(card)
        trial = [dict(d) for d in datas]
        trial[seq - start - 1][field] = [guess if c == target else c for c in hidden]
        if _chain_head(previous, span, trial) == heads[end]:
            found.append(guess)
    return found


def _unblinded(events: Sequence[StoredEvent], receipts: Sequence[dict[str, Any]]) -> dict[int, str]:
    """The heads the receipts would have carried without blinding."""
    previous, heads = GENESIS_HASH, {}
    wanted = {r["last_seq"] for r in receipts if r["kind"] == "receipt"}
    for event in events:
        data = {k: v for k, v in event.data.items() if k != BLINDING}
        previous = _chain_head(previous, [event], [data])
        if event.seq in wanted:
            heads[event.seq] = previous
    return heads


def test_nothing_published_during_play_tells_a_hidden_card(played_match: dict[str, Any]) -> None:
    events: list[StoredEvent] = played_match["events"]
    receipts = played_match["receipts"]
    spectated = played_match["spectated"]
    gifts = [
        e for e in events
        if e.type == "CardsGiven" and e.data["reason"] == "seven_pass" and len(e.data["cards"]) == 1
    ]  # fmt: skip
    assert gifts, "no one-card seven-pass gift in the match"
    gift = gifts[0]
    seen = next(event for event in spectated if event["seq"] == gift.seq)
    assert seen["cards"] is None and seen["cards_count"] == 1
    assert all(BLINDING not in event for event in spectated)
    assert all(BLINDING not in json.dumps(receipt) for receipt in receipts)
    dealt = next(e for e in events if e.type == "GameDealt" and e.data["unused"])

    heads = _heads(receipts)
    assert _brute_force(events, heads, gift.seq, "cards") == []
    assert _brute_force(events, heads, dealt.seq, "unused") == []
    # the same search on a copy without the nonces finds the card: the test can fail
    plain = _unblinded(events, receipts)
    assert _brute_force(events, plain, gift.seq, "cards") == gift.data["cards"]
    assert _brute_force(events, plain, dealt.seq, "unused") == dealt.data["unused"][:1]


def test_the_cli_audits_with_the_published_key_and_the_seats_receipts(
    played_match: dict[str, Any], served: Any, tmp_path: Path
) -> None:
    log = tmp_path / "match.jsonl"
    log.write_text(played_match["log"])
    keys = tmp_path / "keys.json"
    keys.write_text(httpx.get(f"http://127.0.0.1:{served.http_port}/keys").text)
    seats: list[SeatSession] = played_match["seats"]
    receipts = tmp_path / "receipts.jsonl"
    receipts.write_text(seats[0].receipts_jsonl())

    def audit(*arguments: str) -> tuple[int, dict[str, Any]]:
        done = subprocess.run(
            [sys.executable, "-m", "service.cli", "audit", str(log), *arguments],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        return done.returncode, json.loads(done.stdout)

    code, report = audit("--key", str(keys), "--receipts", str(receipts))
    assert code == 0 and report["verdict"] == "valid" and report["not_run"] == [], report
    assert report["checks"][-1]["receipts"] == len(seats[0].receipts)
    first = report
    (key,) = json.loads(keys.read_text())["keys"]
    code, bare = audit("--key", key["public_key"])
    assert code == 0 and [item["name"] for item in bare["not_run"]] == ["receipts"]
    code, keyless = audit()
    assert {item["name"] for item in keyless["not_run"]} == {"seal", "receipts"}

    # the REST audit of the same log, keys and receipts gives the same report
    body = {
        "log": played_match["log"],
        "receipts": seats[0].receipts,
        "keys": json.loads(keys.read_text()),
    }
    rest = httpx.post(f"http://127.0.0.1:{served.http_port}/audit", json=body, timeout=120)
    assert rest.json() == first
