"""Thousands of TCP connections to the REST port that never send a byte: the process
has a bounded number of file descriptors (here 1,024, as on many machines), and once
they were all taken REST, gRPC health and UECda all stopped answering while asyncio
logged "Too many open files" without end. Now the REST server holds at most what
that limit leaves it; a new connection takes the place of the oldest silent one."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
from collections.abc import Iterator
from pathlib import Path

import grpc
import httpx
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from eventstore import RedisServer
from service.uecda.wire import PROTOCOL_VERSION, TABLE_BYTES, cell, pack_table
from tests.serve_process import ServeProcess

OPEN_FILES = 1024  # the service's limit
SILENT = 3000  # connections the attacker opens, well past it
BODY_SECONDS, BODY_RATE = 1, 500  # a body within 1 s of its head, + 1 s per 500 bytes


@pytest.fixture(scope="module")
def small(
    redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[ServeProcess, int]]:
    log = tmp_path_factory.mktemp("serve") / "serve.log"
    options = ("--uecda-port", "0", "--uecda-bots", "4", "--http-header-seconds", "2")
    options += ("--http-body-seconds", str(BODY_SECONDS), "--http-body-rate", str(BODY_RATE))
    service = ServeProcess(redis_server.url, log, *options, open_files=OPEN_FILES)
    service.wait_ready()
    try:
        port = re.search(r"UECda on (\d+)", log.read_text())
        assert port, service.log_tail()
        yield service, int(port[1])
    finally:
        service.stop()


async def answers(served: ServeProcess, uecda_port: int) -> None:
    """REST, gRPC health and a UECda client are each served (a fresh connection each)."""
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{served.http_port}") as http:
        presets = await http.get("/presets", timeout=30)
        assert presets.status_code == 200, presets.text
    async with grpc.aio.insecure_channel(served.grpc_target) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        checked = await health.Check(health_pb2.HealthCheckRequest(), timeout=30)
        assert checked.status == health_pb2.HealthCheckResponse.SERVING
    # a UECda client is seated at a table of four bots: it is told its player number
    async with asyncio.timeout(30):
        reader, writer = await asyncio.open_connection("127.0.0.1", uecda_port)
        profile = [0] * (TABLE_BYTES // 4)
        profile[cell(0, 0)] = PROTOCOL_VERSION
        profile[cell(1, 0)] = ord("u")
        writer.write(pack_table(profile))
        number = await reader.readexactly(4)
    assert int.from_bytes(number, "big") in range(5)
    writer.close()


def closed_by_server(connection: tuple[asyncio.StreamReader, asyncio.StreamWriter]) -> bool:
    reader, writer = connection
    return reader.at_eof() or reader.exception() is not None or writer.is_closing()


async def open_silently(port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | None:
    try:
        async with asyncio.timeout(20):
            return await asyncio.open_connection("127.0.0.1", port)
    except (OSError, TimeoutError):
        return None  # the server's backlog was full: the attacker's loss


def close_all(flood: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]]) -> None:
    for _, writer in flood:
        with contextlib.suppress(Exception):
            writer.close()


def never_out_of_descriptors(served: ServeProcess) -> str:
    """The service's log (returned), with no sign it ran out of file descriptors."""
    log = served.log_tail(1 << 22)
    assert "Too many open files" not in log and "out of system resource" not in log, log[-2000:]
    return log


async def test_silent_connections_to_rest_take_nothing_down(
    small: tuple[ServeProcess, int],
) -> None:
    served, uecda_port = small
    await answers(served, uecda_port)  # the honest path
    flood: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []
    try:
        for _ in range(0, SILENT, 250):
            opened = await asyncio.gather(*(open_silently(served.http_port) for _ in range(250)))
            flood += [connection for connection in opened if connection is not None]
        assert len(flood) > OPEN_FILES  # more than the process could ever hold
        # everything is still served while the attacker holds its connections open
        await answers(served, uecda_port)
        # the limit was hit: the server let go of all it could not hold
        async with asyncio.timeout(60):
            while sum(closed_by_server(connection) for connection in flood) < SILENT - OPEN_FILES:
                await asyncio.sleep(0.2)
        assert served.alive
    finally:
        close_all(flood)
    log = never_out_of_descriptors(served)
    assert "connection limits reached" in log  # said once, not for every connection
    assert log.count("connection limits reached") <= 3


async def test_a_flood_that_came_while_the_service_stalled_is_taken_in_bounded_bites(
    small: tuple[ServeProcess, int],
) -> None:
    """Connections made while the service is stalled (a pause, a loaded machine) wait in
    the kernel's accept queue; asyncio accepts as many as the listen backlog in one go,
    before the gate sees any of them. With uvicorn's backlog of 2,048 that was more
    descriptors than the process has: accept failed with "Too many open files"."""
    served, uecda_port = small
    await answers(served, uecda_port)
    flood: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []
    os.kill(served.pid, signal.SIGSTOP)
    try:
        opened = await asyncio.gather(*(open_silently(served.http_port) for _ in range(1500)))
        flood = [connection for connection in opened if connection is not None]
    finally:
        os.kill(served.pid, signal.SIGCONT)
    # the kernel's queue is deep (2,048, as far as net.core.somaxconn lets it): the flood
    # waited there whole, none of its SYNs dropped
    assert len(flood) >= min(1500, int(Path("/proc/sys/net/core/somaxconn").read_text()))
    try:
        await answers(served, uecda_port)
        assert served.alive
    finally:
        close_all(flood)
    never_out_of_descriptors(served)


async def test_a_request_head_that_never_ends_is_let_go(small: tuple[ServeProcess, int]) -> None:
    served, _ = small
    port = served.http_port
    # the honest path: a whole head is answered on the same kind of connection
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"GET /presets HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
    async with asyncio.timeout(30):
        assert (await reader.readline()).startswith(b"HTTP/1.1 200")
    writer.close()
    # a head sent a little at a time and never finished (slowloris), and a huge one
    trickle_reader, trickle = await asyncio.open_connection("127.0.0.1", port)
    trickle.write(f"GET /presets HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n".encode())
    huge_reader, huge = await asyncio.open_connection("127.0.0.1", port)
    huge.write(b"GET /presets HTTP/1.1\r\nX-Pad: ")
    try:
        async with asyncio.timeout(60):  # the server's deadline is 2 s: this is a bound
            while not await _let_go(trickle_reader):
                with contextlib.suppress(OSError):
                    trickle.write(b"X-More: 1\r\n")
            with contextlib.suppress(OSError):
                for _ in range(200):
                    huge.write(b"a" * 1024)
                    await huge.drain()
            while not await _let_go(huge_reader):
                pass
    finally:
        trickle.close()
        huge.close()


async def _let_go(reader: asyncio.StreamReader, wait: float = 0.5) -> bool:
    """Whether the server has closed the connection (it sends nothing to a request
    unfinished)."""
    try:
        async with asyncio.timeout(wait):
            return await reader.read(1) == b""
    except TimeoutError:
        return False
    except OSError:
        return True


async def test_a_request_body_sent_a_byte_at_a_time_is_let_go(
    small: tuple[ServeProcess, int],
) -> None:
    """Slowloris on the body: a head that announces a body, then a byte now and then.
    The head's deadline no longer applies once the head is whole, so this held its
    connection (and the request's task) for as long as the attacker liked."""
    served, _ = small
    port = served.http_port
    body = json.dumps({"preset": "classic", "players": 2, "seat": None}).encode()
    body += b" " * (4000 - len(body))  # 4 KB: 1 s + 8 s at the minimum rate
    head = (
        f"POST /matches HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode()
    # the honest path: the same body at an honest pace (8 KB/s, so 0.5 s, in 20 pieces)
    # is answered, and so is one sent at a slow pace above the minimum (4 s in all, past
    # the first second): the bound is a rate, not a time for any body
    for pieces, pause in ((20, 0.025), (20, 0.2)):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(head)
        step = len(body) // pieces
        for offset in range(0, len(body), step):
            await asyncio.sleep(pause)
            writer.write(body[offset : offset + step])
            await writer.drain()
        async with asyncio.timeout(30):
            assert (await reader.readline()).startswith(b"HTTP/1.1 201"), pause
        writer.close()
    # the attack: the same head, then the body a byte every 0.2 s (5 B/s); it is let go
    # once its first second and what little came are used up, long before it ends
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(head)
    sent = 0
    try:
        async with asyncio.timeout(60):  # the server's deadline is about 1 s: a bound
            while not await _let_go(reader, 0.2):
                with contextlib.suppress(OSError):
                    writer.write(body[sent : sent + 1])
                    sent += 1
    finally:
        writer.close()
    assert sent < len(body) // 10  # cut well before its end
    assert served.alive
