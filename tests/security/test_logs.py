"""Anyone can send a body nested deeper than the JSON decoder recurses. It is bad input
like any other: 400 bad_request, nothing changed, and one line in the log, not a
RecursionError traceback an attacker can make the server write at will."""

from __future__ import annotations

import time
import uuid

import httpx

from clients.sdk import DaifugoClient
from tests.serve_process import ServeProcess

NESTED = "[" * 100_000 + "]" * 100_000


def _log_lines_after(served: ServeProcess, start: int, needle: str) -> list[str]:
    """The log's lines past ``start`` characters, once one holds ``needle`` (waits)."""
    deadline = time.monotonic() + 30
    while True:
        text = served.log_path.read_text(errors="replace")[start:]
        if needle in text or time.monotonic() > deadline:
            return text.splitlines()
        time.sleep(0.05)


async def test_a_deeply_nested_body_is_one_refusal_and_one_log_line(
    served: ServeProcess, client: DaifugoClient, http: httpx.AsyncClient
) -> None:
    created = await client.create_match("classic", seats=3)
    await client.host(created.match_id, created.host_token).start()
    url = f"/matches/{created.match_id}/actions"
    seat_of_turn = None
    for token in created.seat_tokens:
        headers = {"Authorization": f"Bearer {token}"}
        seat = (await http.get(f"/matches/{created.match_id}/seat", headers=headers)).json()
        if seat["legal"]:
            seat_of_turn = headers, seat
    assert seat_of_turn is not None
    headers, seat = seat_of_turn
    # the honest path: a legal action, as JSON, is taken
    action = {"request_id": uuid.uuid4().hex, **seat["legal"][0]}
    taken = await http.post(url, json=action, headers=headers)
    assert taken.status_code == 200, taken.text
    version = (await http.get(f"/matches/{created.match_id}")).json()["version"]
    start = len(served.log_path.read_text(errors="replace"))
    refused = await http.post(
        url, content=NESTED, headers={**headers, "Content-Type": "application/json"}
    )
    assert refused.status_code == 400
    assert refused.json() == {"code": "bad_request", "message": "the JSON is nested too deeply"}
    lines = _log_lines_after(served, start, "nested too deeply")
    assert len(lines) == 1 and "bad_request" in lines[0], lines
    assert not any("Traceback" in line or "RecursionError" in line for line in lines)
    assert (await http.get(f"/matches/{created.match_id}")).json()["version"] == version
