"""Large bodies to POST /audit (issue 31, E): a JSON request is parsed by the audit
workers, inside the pool's bound, never on the serving loop before it; and a body past
the server's limit is refused, with the limit named, before it is read."""

from __future__ import annotations

import asyncio
import contextlib
import json

import httpx

from service.rest.auditing import DEFAULT_MAX_BYTES
from service.rest.connections import LINGER_BYTES
from tests.serve_process import ServeProcess

from .test_audit_upload import fake_log

BOUND = 5  # the pool's default bound: 1 worker and 4 waiting
SLOW = 2 * BOUND  # more slow audits than it holds: it is full a while, however they come in


async def test_a_json_audit_waits_for_the_pool_s_bound_before_it_is_parsed(
    http: httpx.AsyncClient,
) -> None:
    # the honest path: a JSON request that is not one is told why
    bad = await http.post(
        "/audit", content=b'{"log": 1}', headers={"content-type": "application/json"}
    )
    assert bad.status_code == 400 and "expected" in bad.json()["message"], bad.text
    # the attack: fill the pool with slow audits (each a large log), then send JSON
    body = json.dumps({"log": fake_log()}).encode()
    slow = [
        asyncio.create_task(
            http.post("/audit", content=body, headers={"content-type": "application/json"})
        )
        for _ in range(SLOW)
    ]
    # not parsed on the loop first: while the pool is full its bound answers, whatever
    # the body holds (were it parsed first, every one would be 400); sent one after
    # another without waiting, as one taken by the pool waits for the slow ones
    late = []
    for _ in range(40):
        late.append(
            asyncio.create_task(
                http.post(
                    "/audit",
                    content=b"{not json" * 1000,
                    headers={"content-type": "application/json"},
                )
            )
        )
        await asyncio.sleep(0.1)
    answers = await asyncio.gather(*late)
    assert all(answer.status_code in (400, 503) for answer in answers)
    busy = [answer for answer in answers if answer.status_code == 503]
    assert busy, "the pool was never found full"
    assert busy[0].json()["code"] == "audit_busy" and busy[0].headers["Retry-After"]
    for answer in await asyncio.gather(*slow):
        assert answer.status_code in (200, 400, 503), answer.text


async def test_a_body_past_the_limit_is_refused_with_the_limit_named(
    http: httpx.AsyncClient,
) -> None:
    fits = await http.post("/audit", content=b"x" * 1000, headers={"content-type": "text/plain"})
    assert fits.status_code == 400  # read and parsed: not a log
    for media in ("application/json", "text/plain"):
        answer = await http.post(
            "/audit", content=b" " * (DEFAULT_MAX_BYTES + 1), headers={"content-type": media}
        )
        assert answer.status_code == 413, answer.text
        assert answer.json()["code"] == "too_large"
        assert f"at most {DEFAULT_MAX_BYTES} bytes" in answer.json()["message"]


async def test_a_refused_body_is_not_read_without_end(served: ServeProcess) -> None:
    """A body refused from its Content-Length (413) is read on and dropped only so far
    (``LINGER_BYTES``), then the connection is closed: a client can't make the server
    read gigabytes it has already refused."""
    port = served.http_port
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(
        b"POST /audit HTTP/1.1\r\nContent-Type: text/plain\r\n"
        + f"Host: 127.0.0.1:{port}\r\nContent-Length: {10**11}\r\n\r\n".encode()
    )
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 20)
    assert head.startswith(b"HTTP/1.1 413"), head
    sent, chunk = 0, b"x" * 65536
    with contextlib.suppress(ConnectionError):
        while sent < 4 * LINGER_BYTES:
            writer.write(chunk)
            await asyncio.wait_for(writer.drain(), 20)
            sent += len(chunk)
    assert sent < 4 * LINGER_BYTES, "the server read on past what it drops"
    writer.close()
