"""``daifugo serve --store memory``: the whole service with no Redis, which it says at
start; ``daifugo demo`` plays a match through it end to end, and what the projections
make of it (the match list, the rankings), its page and its audit answer as on Redis."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import httpx

from tests.serve_process import ServeProcess

NO_REDIS = "redis://127.0.0.1:1"  # nothing listens there: any use of Redis would fail


def test_serve_in_memory_plays_a_demo_match_end_to_end(tmp_path: Path) -> None:
    served = ServeProcess(NO_REDIS, tmp_path / "serve.log", "--store", "memory").wait_ready()
    try:
        assert "storage in memory" in served.log_tail()
        assert "lost when the service stops" in served.log_tail()
        assert "storage: memory" in served.log_tail()
        demo = subprocess.run(
            [
                *(sys.executable, "-m", "service.cli", "demo", "--grpc", served.grpc_target),
                *("--preset", "classic", "--players", "3", "--games", "2"),
            ],
            capture_output=True,
            text=True,
            timeout=240,
            check=False,
        )
        assert demo.returncode == 0, demo.stderr
        match_id = demo.stdout.split()[0]
        with httpx.Client(base_url=f"http://127.0.0.1:{served.http_port}", timeout=30) as http:
            listing = _eventually(http, "/matches?state=finished", "matches", match_id)
            assert listing["matches"][0]["match_id"] == match_id
            ranking = _eventually(http, "/rankings", "rankings", "points")["rankings"]
            assert sum(standing["games"] for standing in ranking) == 2 * 3
            view = http.get(f"/matches/{match_id}")
            assert view.status_code == 200, view.text
            record = http.get(f"/matches/{match_id}/record", params={"format": "jsonl"})
            assert record.status_code == 200
            audit = http.post(
                "/audit", content=record.content, headers={"content-type": "application/x-ndjson"}
            )
            assert audit.status_code == 200, audit.text
            assert audit.json()["verdict"] == "valid", audit.text
        assert served.alive, served.log_tail()
    finally:
        served.stop()
    assert "Traceback" not in served.log_tail(), served.log_tail()


def _eventually(http: httpx.Client, path: str, items: str, expected: str) -> dict:  # type: ignore[type-arg]
    """The answer at ``path`` once its ``items`` hold ``expected`` (the projections
    follow the events a moment after they are stored)."""
    deadline = time.monotonic() + 30
    while True:
        answer = http.get(path)
        assert answer.status_code == 200, answer.text
        if answer.json()[items] and expected in answer.text:
            return dict(answer.json())
        assert time.monotonic() < deadline, f"{path}: {answer.text}"
        time.sleep(0.1)
