"""A flood of connections to the gRPC port. grpc-core bounds them (past
``--grpc-max-connections`` a new one is closed at once) but evicts none for a newcomer
and has no bound per address, so while a flood fills the bound new callers are turned
away. What ends it: a connection that has not spoken HTTP/2 within 10 s is let go (the
handshake's time), and one that spoke but has no call under way after
``--grpc-idle-seconds`` (GOAWAY "connection idle"). So a flood that is held, and not
opened again and again, stops gRPC for a bounded time; REST and UECda are served
throughout (tests/security/test_connection_floods.py: the descriptors)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator

import grpc
import httpx
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from eventstore import RedisServer
from tests.serve_process import ServeProcess

BOUND = 16  # --grpc-max-connections
IDLE = 2  # --grpc-idle-seconds
RECOVERY = 60  # seconds: the handshake's 10 s, or IDLE, and a busy machine's margin
# an HTTP/2 client's preface and an empty SETTINGS frame: a connection that spoke
PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0])

Connection = tuple[asyncio.StreamReader, asyncio.StreamWriter]


@pytest.fixture(scope="module")
def served(
    redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ServeProcess]:
    log = tmp_path_factory.mktemp("serve") / "serve.log"
    options = ("--grpc-max-connections", str(BOUND), "--grpc-idle-seconds", str(IDLE))
    service = ServeProcess(redis_server.url, log, *options).wait_ready()
    try:
        yield service
    finally:
        service.stop()


async def grpc_serves(served: ServeProcess) -> bool:
    """Whether a new gRPC caller is answered (a fresh channel: a new connection)."""
    try:
        async with grpc.aio.insecure_channel(served.grpc_target) as channel:
            health = health_pb2_grpc.HealthStub(channel)
            checked = await health.Check(health_pb2.HealthCheckRequest(), timeout=2)
    except grpc.aio.AioRpcError:
        return False
    return checked.status == health_pb2.HealthCheckResponse.SERVING


async def rest_serves(served: ServeProcess) -> bool:
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{served.http_port}") as http:
        return (await http.get("/presets", timeout=30)).status_code == 200


async def closed_by_server(connection: Connection) -> bool:
    reader, _ = connection
    try:
        async with asyncio.timeout(0.05):
            while await reader.read(4096):
                pass  # (what it says first: SETTINGS, GOAWAY)
            return True
    except TimeoutError:
        return False
    except OSError:
        return True


async def held_until_served(served: ServeProcess, flood: list[Connection]) -> int:
    """Wait, the flood held open, until a new gRPC caller is answered; how many of the
    flood's connections the server let go by then (all the bound held: the others at once)."""
    async with asyncio.timeout(RECOVERY):
        while not await grpc_serves(served):
            assert await rest_serves(served)  # REST is served throughout
            await asyncio.sleep(0.5)
    return sum([await closed_by_server(connection) for connection in flood])


async def test_a_held_flood_of_silent_connections_stops_grpc_for_a_bounded_time(
    served: ServeProcess,
) -> None:
    assert await grpc_serves(served)  # the honest path
    flood = [await asyncio.open_connection("127.0.0.1", served.grpc_port) for _ in range(4 * BOUND)]
    try:
        # the bound is full of silent connections: the rest were closed at once, and
        # gRPC is back once the silent ones run out of handshake time, the attacker
        # still holding them open
        let_go = await held_until_served(served, flood)
        async with asyncio.timeout(RECOVERY):
            while let_go < len(flood):
                let_go = sum([await closed_by_server(connection) for connection in flood])
        assert await grpc_serves(served)
    finally:
        for _, writer in flood:
            writer.close()
    assert served.alive


async def test_connections_that_spoke_and_then_idle_are_let_go(served: ServeProcess) -> None:
    assert await grpc_serves(served)
    flood: list[Connection] = []
    try:
        for _ in range(BOUND):
            connection = await asyncio.open_connection("127.0.0.1", served.grpc_port)
            connection[1].write(PREFACE)
            flood.append(connection)
        await asyncio.gather(*(writer.drain() for _, writer in flood))
        # they fill the bound; they are let go for being idle, and gRPC serves again
        await held_until_served(served, flood)
        async with asyncio.timeout(RECOVERY):
            while not all([await closed_by_server(connection) for connection in flood]):
                await asyncio.sleep(0.2)
    finally:
        for _, writer in flood:
            with contextlib.suppress(Exception):
                writer.close()
