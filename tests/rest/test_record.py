"""A match's record (the kifu and the JSON Lines export) and its audit."""

from __future__ import annotations

import json
import re

import httpx

from clients.sdk import DaifugoClient
from service.app.service import visible
from service.audit import export_jsonl
from service.rules.views import SPECTATOR
from service.runtime import Running
from tests.integration.conftest import arrange

from .support import advance, finished_match, new_match, stored


async def test_the_kifu_reads_like_the_game(
    served: Running, http: httpx.AsyncClient, grpc_client: DaifugoClient
) -> None:
    table = await arrange(served, grpc_client, "federation", ["3D 8C", "4D 5D 7H", "6H 9S"], 0)
    headers = {"Authorization": f"Bearer {table.seats[0].token}"}
    url = f"/matches/{table.match_id}"
    for body in ({"action": "play", "cards": ["8C"]}, {"action": "play", "cards": ["3D"]}):
        answer = await http.post(f"{url}/actions", json=body, headers=headers)
        assert answer.status_code == 200, answer.text
    record = await http.get(f"{url}/record")
    assert record.headers["content-type"].startswith("text/plain")
    text = record.text
    assert f'[Match "{table.match_id}"]' in text and '[Preset "federation"]' in text
    assert '[Seat1 "seat 1"]' in text and '[State "live"]' in text
    lines = [found[1] for line in text.splitlines() if (found := re.match(r"\s*\d+  (.*)", line))]
    assert "seat 0 plays 8C" in lines
    assert "eight-cut: field flushed, seat 0 leads" in lines
    assert "seat 0 plays 3D" in lines
    assert any(line.startswith("seat 0 finishes 1st (大富豪)") for line in lines)
    assert not any(code in text for code in ("4D", "5D", "7H", "6H", "9S"))  # the others' hands


async def test_a_finished_match_exports_its_log_and_passes_the_audit(
    served: Running, http: httpx.AsyncClient, grpc_client: DaifugoClient
) -> None:
    match_id = await finished_match(grpc_client, "torasobi", 4)
    everything = await stored(served, match_id)
    url = f"/matches/{match_id}"
    exported = await http.get(f"{url}/record", params={"format": "jsonl"})
    assert exported.status_code == 200
    assert exported.text == export_jsonl(everything)
    assert json.loads(exported.text.splitlines()[0]).keys() == {
        "stream", "seq", "type", "schema", "at", "request_id", "data", "prev_hash", "hash",
    }  # fmt: skip
    text = (await http.get(f"{url}/record")).text
    assert '[State "finished"]' in text and "[Seed " in text and "passes" in text
    assert "seed revealed" in text and "finishes 1st (大富豪)" in text

    report = (await http.get(f"{url}/audit")).json()
    assert report["verdict"] == "valid" and report["match_id"] == match_id
    assert report["events"] == len(everything)
    assert all(check["ok"] for check in report["checks"] if check["name"] != "receipts")
    # the server's own keys check the seal; no receipts were given
    assert report["not_run"] == [{"name": "receipts", "reason": "no receipts given"}]
    posted = await http.post("/audit", content=exported.content)
    assert posted.status_code == 200 and posted.json() == report

    # a card changed in a play: the chain breaks, the audit says where
    lines = exported.text.splitlines()
    index = next(i for i, line in enumerate(lines) if '"type":"CardsPlayed"' in line)
    event = json.loads(lines[index])
    event["data"]["seat"] = (event["data"]["seat"] + 1) % 4
    lines[index] = json.dumps(event)
    tampered = await http.post("/audit", content="\n".join(lines).encode())
    assert tampered.status_code == 200 and tampered.json()["verdict"] == "invalid"
    assert any(check["first_bad_seq"] == event["seq"] for check in tampered.json()["checks"])


async def test_bad_logs_are_refused_with_the_reason(http: httpx.AsyncClient) -> None:
    for body in (b"", b"not json\n", b'{"seq": 0}\n', b"\xff\xfe", b"[1, 2]\n"):
        answer = await http.post("/audit", content=body)
        assert answer.status_code == 400, body
        assert answer.json()["code"] == "bad_request" and answer.json()["message"]


async def test_a_live_match_exports_what_a_spectator_sees_and_is_not_audited(
    served: Running, http: httpx.AsyncClient
) -> None:
    created = await new_match(served, "classic", 3)
    await advance(served, created, 2)
    everything = await stored(served, created.match_id)
    url = f"/matches/{created.match_id}"
    exported = (await http.get(f"{url}/record", params={"format": "jsonl"})).text
    assert [json.loads(line) for line in exported.splitlines()] == [
        visible(item, SPECTATOR, False) for item in everything
    ]
    audit = await http.get(f"{url}/audit")
    assert audit.status_code == 409 and audit.json()["code"] == "match_not_over"
