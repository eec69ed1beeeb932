"""Receipts over real gRPC: a join's answer carries the signed receipt of its
SeatJoined (a retry the same one), a join refused on the match a signed refusal,
and the SDK keeps the seat's receipts from its join on; each verifies with the key
KeysService publishes, and the auditor accepts them all against the exported log."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator

import httpx
import pytest

from clients.bots import GreedyBot, RandomBot
from clients.runner import play_seat
from clients.sdk import DaifugoClient, Refused, SeatSession
from service.audit import audit_log
from service.audit.receipts import parse_receipts
from service.records import (
    ActionReceipt,
    KeySet,
    PublishedKey,
    RefusalReceipt,
    action_request,
    request_digest,
    verify,
)
from service.runtime import Running

from ..service_support import isolated_service
from .test_signing_keys_api import grpc_keys


@pytest.fixture
async def served() -> AsyncIterator[Running]:
    async with isolated_service(None, grpc_port=0, http_port=0, timers=False) as running:
        yield running


async def published(running: Running) -> KeySet:
    """The keys as gRPC KeysService publishes them."""
    return KeySet(PublishedKey.from_dict(key) for key in await grpc_keys(running.grpc_port))


async def exported_log(running: Running, match_id: str) -> str:
    """The finished match's log as GET .../record?format=jsonl gives it, once sealed."""
    base = f"http://127.0.0.1:{running.http_port}"
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        for _ in range(200):
            answer = await http.get(f"/matches/{match_id}/record", params={"format": "jsonl"})
            lines = answer.text.strip().splitlines()
            if lines and json.loads(lines[-1])["type"] == "MatchSealed":
                return answer.text
            await asyncio.sleep(0.05)
    raise AssertionError(f"{match_id} was never sealed")


async def test_a_join_carries_its_receipt_and_the_seat_keeps_it(served: Running) -> None:
    async with DaifugoClient(f"127.0.0.1:{served.grpc_port}", timeout=20) as client:
        keys = await published(served)
        created = await client.create_match("classic", 2, open_seats=True, games_per_set=1)
        match_id = created.match_id
        secret = uuid.uuid4().hex
        ann = await client.join(match_id, "ann", request_id=secret)
        again = await client.join(match_id, "ann", request_id=secret)  # a lost answer, retried
        assert again.seat == ann.seat == 0 and again.receipts == ann.receipts
        (joined,) = ann.receipts
        checked = verify(joined, keys)
        assert checked.ok and isinstance(checked.record, ActionReceipt), checked
        assert (checked.record.match_id, checked.record.first_seq) == (match_id, 1)
        assert checked.record.last_seq == 1
        assert checked.record.request_digest == request_digest(
            action_request(match_id, "join", "join", secret)
        )
        bob = await client.join(match_id, "bob")
        assert [verify(r, keys).ok for r in bob.receipts] == [True]

        # a join judged on the full match is refused, and the refusal signed
        late = uuid.uuid4().hex
        with pytest.raises(Refused) as full:
            await client.join(match_id, "cat", request_id=late)
        assert full.value.code == "seats_full" and full.value.receipt is not None
        refusal = verify(full.value.receipt, keys)
        assert refusal.ok and isinstance(refusal.record, RefusalReceipt), refusal
        assert refusal.record.reason == "seats_full"
        assert refusal.record.judged_at_seq == 2 and refusal.record.head == bob.receipts[0]["head"]
        assert refusal.record.request_digest == request_digest(
            action_request(match_id, "join", "join", late)
        )

        host = client.host(match_id, created.host_token)
        await host.start()
        seats: list[SeatSession] = [ann, bob]
        bots = [GreedyBot(), RandomBot(7)]
        await asyncio.wait_for(
            asyncio.gather(*(play_seat(seat, bot) for seat, bot in zip(seats, bots, strict=True))),
            timeout=120,
        )
        log = await exported_log(served, match_id)

    # each seat's export starts with its join; the auditor takes all of it
    for seat in seats:
        kept = parse_receipts(seat.receipts_jsonl())
        assert kept[0] == seat.receipts[0] and kept[0]["first_seq"] == 1 + seats.index(seat)
        report = audit_log(log, keys, kept)
        assert report.verdict == "valid" and report.not_run == (), report.to_dict()
        assert report.check("receipts").detail["receipts"] == len(kept)
    given = [created.receipt, *host.receipts, full.value.receipt, *ann.receipts, *bob.receipts]
    report = audit_log(log, keys, given)
    assert report.verdict == "valid", report.to_dict()
