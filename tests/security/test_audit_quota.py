"""Row E of issue 31 with the service's default quotas: an upload to POST /audit past
the caller's audits at once is refused at its headers, its body never read."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import httpx
import pytest

from eventstore import RedisServer
from service.app.quotas import Limits
from tests.serve_process import ServeProcess

AUDITS = Limits().audits_per_caller  # one caller's audits at once, by default


@pytest.fixture(scope="module")
def served(
    redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ServeProcess]:
    log = tmp_path_factory.mktemp("serve") / "serve.log"
    service = ServeProcess(redis_server.url, log, roomy_quotas=False).wait_ready()
    try:
        yield service
    finally:
        service.stop()


async def _started_upload(
    port: int, declared: int, sent: bytes
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A POST /audit whose headers promise ``declared`` bytes, of which only ``sent`` come."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(
        b"POST /audit HTTP/1.1\r\nContent-Type: text/plain\r\n"
        + f"Host: 127.0.0.1:{port}\r\nContent-Length: {declared}\r\n\r\n".encode()
        + sent
    )
    await writer.drain()
    return reader, writer


async def test_a_caller_past_its_audits_is_refused_before_its_upload_is_read(
    http: httpx.AsyncClient, served: ServeProcess
) -> None:
    """Row E: an upload past the caller's audits at once is answered 429 at its headers;
    the server never waits for (or reads) its body. Uploads that go away give their
    slots back."""
    port = served.http_port
    holding = [await _started_upload(port, 5_000_000, b"x" * 1000) for _ in range(AUDITS)]
    await asyncio.sleep(1)  # the two are in their handlers, their slots taken
    reader, writer = await _started_upload(port, 9_000_000, b"")
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 20)
    assert head.startswith(b"HTTP/1.1 429"), head
    assert b"retry-after" in head.lower()
    writer.close()
    for _, upload in holding:
        upload.close()
    # the slots come back once those uploads are gone: an honest audit is read again
    for _ in range(50):
        answer = await http.post(
            "/audit", content=b"x" * 10, headers={"content-type": "text/plain"}
        )
        if answer.status_code != 429:
            break
        await asyncio.sleep(0.2)
    assert answer.status_code == 400, answer.text
