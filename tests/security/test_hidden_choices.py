"""Row D against a real `daifugo serve`: a seat recovered another seat's king-pastor
choice by trying every card against the chain head its own signed refusal gave it
(``CardChosen`` was hidden but not blinded); and the ids the service makes for callers
who send none counted up from a prefix any export shows. Now the choice is blinded (the
same search finds nothing, while on the log with the nonces taken out it finds the card:
the search is right, the nonce is what stops it) and those ids are random."""

from __future__ import annotations

import re
from typing import Any

import httpx

from clients.bots import GreedyBot
from clients.sdk import DaifugoClient, Refused, SeatSession
from eventstore import GENESIS_HASH, RedisEventStore, StoredEvent
from service.audit import export_jsonl, parse_jsonl
from service.records import BLINDING
from service.rules.commands import Pass
from service.rules.vocabulary import Phase

from .test_signed_records import _brute_force, _chain_head

GREEDY = GreedyBot()


def _refusal_heads(seats: list[SeatSession]) -> dict[int, str]:
    """The chain head after each seq some seat's signed refusal named: what it knows."""
    return {
        receipt["judged_at_seq"]: receipt["head"]
        for seat in seats
        for receipt in seat.receipts
        if receipt["kind"] == "refusal"
    }


async def _probe(seats: list[SeatSession], acting: int) -> None:
    """Every seat not to act asks to pass: refused, with a signed refusal and its head."""
    for index, seat in enumerate(seats):
        if index != acting and seat.seat is not None:
            try:
                await seat.act(Pass(seat.seat))
            except Refused as refused:
                assert refused.receipt is not None, refused
            else:
                raise AssertionError("a seat not to act was let pass")


async def _played(client: DaifugoClient, http: httpx.AsyncClient) -> dict[str, Any]:
    """A 3-seat match with king pastor, each seat probing for the head after every
    action; the exported log once it is over."""
    created = await client.create_match(
        "classic", 3, options={"king_pastor": True}, games_per_set=3
    )
    await client.host(created.match_id, created.host_token).start()
    seats = [client.seat(created.match_id, token) for token in created.seat_tokens]
    for _ in range(5000):
        turns = [await seat.turn() for seat in seats]
        if turns[0].view.phase == Phase.MATCH_OVER:
            break
        acting = next(index for index, turn in enumerate(turns) if turn.actions)
        await _probe(seats, acting)
        turn = turns[acting]
        await seats[acting].act(GREEDY.choose(turn.view, turn.actions))
    else:
        raise AssertionError("the match did not end")
    exported = await http.get(f"/matches/{created.match_id}/record", params={"format": "jsonl"})
    return {"seats": seats, "events": parse_jsonl(exported.text)}


def _without_nonces(events: list[StoredEvent], heads: dict[int, str]) -> dict[int, str]:
    """The heads the refusals would have named had no event carried a nonce."""
    plain: dict[int, str] = {}
    previous = GENESIS_HASH
    for event in events:
        data = {key: value for key, value in event.data.items() if key != BLINDING}
        previous = _chain_head(previous, [event], [data])
        if event.seq in heads:
            plain[event.seq] = previous
    return plain


async def test_a_seat_cannot_recover_another_seat_s_king_pastor_choice(
    client: DaifugoClient, http: httpx.AsyncClient
) -> None:
    played = await _played(client, http)
    events: list[StoredEvent] = played["events"]
    heads = _refusal_heads(played["seats"])
    last = max(heads)
    chosen = [event for event in events if event.type == "CardChosen" and event.seq <= last]
    assert chosen, "no king pastor choice with a refusal on each side of it"
    for event in chosen:
        assert _brute_force(events, heads, event.seq, "cards") == []
        assert BLINDING in event.data
    # the same search on the heads without nonces finds the card: the test can fail
    plain = _without_nonces(events, heads)
    first = chosen[0]
    assert _brute_force(events, plain, first.seq, "cards") == first.data["cards"]
    # and the auditor checks the nonce the choice carries
    report = (await http.post("/audit", content=export_jsonl(events))).json()
    assert report["verdict"] == "valid", report
    assert any(check["name"] == "blinding" and check["ok"] for check in report["checks"])


AUTO_ID = re.compile(r"auto-[0-9a-f]{32}")


async def test_ids_made_for_callers_who_send_none_are_unguessable(
    http: httpx.AsyncClient, store: RedisEventStore
) -> None:
    ids = []
    for _ in range(2):
        made = await http.post("/matches", json={"preset": "classic", "players": 2, "seat": None})
        assert made.status_code == 201, made.text
        # what the export shows once the match is over
        ids += [event.request_id for event in await store.read(f"m:{made.json()['match_id']}")]
    automatic = [request_id for request_id in ids if request_id.startswith("auto-")]
    assert len(automatic) >= 2
    assert all(AUTO_ID.fullmatch(request_id) for request_id in automatic), automatic
    assert len(set(automatic)) == len(automatic)
