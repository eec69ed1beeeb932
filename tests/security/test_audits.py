"""The audit, tried as an attacker would: big logs must not starve play (audits run in
worker processes, with a bounded queue: past it 503 audit_busy and Retry-After), and
REST and the CLI give one report for one log (a log out of order is invalid, by seq)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from clients.bots import GreedyBot
from clients.runner import play_match
from clients.sdk import DaifugoClient
from eventstore import RedisServer
from tests.serve_process import ServeProcess

BIG_LOG_BYTES = 9_000_000  # under the 10 MB body limit, seconds of audit


@pytest.fixture(scope="module")
def served(
    redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ServeProcess]:
    """One audit worker and two audits waiting: a third in flight is refused."""
    log = tmp_path_factory.mktemp("serve") / "serve.log"
    options = ("--audit-workers", "1", "--audit-queue", "2")
    service = ServeProcess(redis_server.url, log, *options).wait_ready()
    try:
        yield service
    finally:
        service.stop()


def _cli_audit(target: str, redis_url: str, *options: str) -> tuple[int, dict[str, Any]]:
    done = subprocess.run(
        [sys.executable, "-m", "service.cli", "audit", target, *options],
        env={**os.environ, "REDIS_URL": redis_url},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode in (0, 1), done.stderr
    return done.returncode, json.loads(done.stdout)


def _swapped(text: str, first: int) -> str:
    lines = text.splitlines()
    lines[first], lines[first + 1] = lines[first + 1], lines[first]
    return "\n".join(lines) + "\n"


async def test_rest_and_the_cli_give_one_report(
    client: DaifugoClient,
    http: httpx.AsyncClient,
    redis_server: RedisServer,
    tmp_path: Path,
) -> None:
    match_id = await play_match(client, "classic", [GreedyBot().choose for _ in range(3)])
    exported = (await http.get(f"/matches/{match_id}/record", params={"format": "jsonl"})).text
    path = tmp_path / "match.jsonl"
    path.write_text(exported)
    # the server checks seals with its own published keys: the CLI is given the same
    keys = tmp_path / "keys.json"
    keys.write_text((await http.get("/keys")).text)
    key = ("--key", str(keys))
    # the honest log: one report, valid, whichever way it is asked for
    posted = await http.post("/audit", content=exported.encode())
    assert posted.status_code == 200 and posted.json()["verdict"] == "valid"
    assert _cli_audit(str(path), redis_server.url, *key) == (0, posted.json())
    stored = (await http.get(f"/matches/{match_id}/audit")).json()
    assert _cli_audit(match_id, redis_server.url, *key) == (0, stored)
    assert stored == posted.json()
    # two lines swapped: an invalid log naming the first bad seq, not unreadable input
    path.write_text(_swapped(exported, 5))
    swapped = await http.post("/audit", content=path.read_bytes())
    assert swapped.status_code == 200, swapped.text
    report = swapped.json()
    assert report["verdict"] == "invalid"
    chain = next(check for check in report["checks"] if check["name"] == "hash_chain")
    assert chain["first_bad_seq"] == 5
    assert _cli_audit(str(path), redis_server.url, *key) == (1, report)
    assert [check["name"] for check in report["checks"]] == [
        check["name"] for check in posted.json()["checks"]
    ]


def _big_log(exported: str) -> bytes:
    """A real match's lines over and over, renumbered: read, decoded and checked in full."""
    records = [json.loads(line) for line in exported.splitlines()]
    lines: list[str] = []
    size = 0
    while size < BIG_LOG_BYTES:
        for record in records:
            line = json.dumps({**record, "seq": len(lines)})
            lines.append(line)
            size += len(line) + 1
    return ("\n".join(lines) + "\n").encode()


async def test_big_audits_do_not_stall_play_and_the_queue_is_bounded(
    client: DaifugoClient, http: httpx.AsyncClient
) -> None:
    finished = await play_match(client, "classic", [GreedyBot().choose for _ in range(3)])
    exported = (await http.get(f"/matches/{finished}/record", params={"format": "jsonl"})).text
    # the honest path: an audit answers while nothing else is asked
    assert (await http.post("/audit", content=exported.encode())).status_code == 200
    live = await client.create_match("classic", seats=3)
    await client.host(live.match_id, live.host_token).start()
    seat = client.seat(live.match_id, live.seat_tokens[0])
    big = _big_log(exported)
    # one worker checks them in turn: on a loaded machine the third waits past the
    # client's usual 30 s
    audits = [asyncio.create_task(http.post("/audit", content=big, timeout=180)) for _ in range(4)]
    # one of four is past one worker and two waiting: refused at once
    refused = None
    for done in asyncio.as_completed(audits):
        answer = await done
        if answer.status_code == 503:
            refused = answer
            break
    assert refused is not None, [task.result().status_code for task in audits]
    assert refused.json()["code"] == "audit_busy"
    assert int(refused.headers["Retry-After"]) > 0
    running = [task for task in audits if not task.done()]
    assert len(running) == 3
    # play and reads go on while the audits run: each answers before they are all done
    assert (await seat.turn()).view is not None
    assert (await http.get(f"/matches/{live.match_id}")).status_code == 200
    assert (await http.get(f"/matches/{finished}/events")).status_code == 200
    assert not all(task.done() for task in running), "the audits ended before the reads"
    answers = await asyncio.gather(*running)
    assert [answer.status_code for answer in answers] == [200, 200, 200]
    assert all(answer.json()["verdict"] == "invalid" for answer in answers)
    # the queue drained: audits are taken again
    assert (await http.post("/audit", content=exported.encode())).status_code == 200


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rpartition(")")[2].split()
            except OSError:
                continue
            if int(fields[1]) == pid and fields[0] != "Z":
                found.append(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return False


async def test_the_audit_workers_end_with_a_killed_service(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    served = ServeProcess(redis_server.url, tmp_path / "serve.log").wait_ready()
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{served.http_port}") as http:
            answer = await http.post("/audit", content=b'{"not": "a log"}\n', timeout=60)
        assert answer.status_code == 400  # answered by a worker: it exists now
        workers = [pid for pid in _children(served.pid) if "spawn" in _cmdline(pid)]
        assert workers, _children(served.pid)
        served.kill()  # -9: no shutdown
        deadline = asyncio.get_running_loop().time() + 30
        while any(_alive(pid) for pid in workers):
            assert asyncio.get_running_loop().time() < deadline, "an audit worker outlived it"
            await asyncio.sleep(0.05)
    finally:
        if served.alive:
            served.kill()


def _cmdline(pid: int) -> str:
    try:
        return (Path("/proc") / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""
