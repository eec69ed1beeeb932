"""The UECda port holds a bounded number of connections: past it a new one is closed at
once, so a caller opening thousands cannot take every file descriptor the process has
(gRPC and REST accept from the same ones), and the others keep being served."""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from eventstore import RedisServer
from tests.serve_process import ServeProcess

LIMIT = 8


@pytest.fixture(scope="module")
def limited(
    redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[ServeProcess, int]]:
    log = tmp_path_factory.mktemp("serve") / "serve.log"
    options = ("--uecda-port", "0", "--uecda-max-clients", str(LIMIT))
    service = ServeProcess(redis_server.url, log, *options).wait_ready()
    try:
        port = re.search(r"UECda on (\d+)", Path(log).read_text())
        assert port, service.log_tail()
        yield service, int(port[1])
    finally:
        service.stop()


async def closed_at_once(reader: asyncio.StreamReader) -> bool:
    """Whether the server ends the connection before the client sends anything."""
    try:
        async with asyncio.timeout(1.0):  # the server waits 5 s for a profile
            return await reader.read(1) == b""
    except TimeoutError:
        return False


async def test_connections_past_the_limit_are_closed_and_the_rest_is_served(
    limited: tuple[ServeProcess, int],
) -> None:
    served, port = limited
    held: list[asyncio.StreamWriter] = []
    try:
        # the honest path: a connection is taken and waits for its profile
        readers = []
        for _ in range(LIMIT):
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            held.append(writer)
            readers.append(reader)
        assert not await closed_at_once(readers[0])
        # past the limit: each new connection is closed before it sends anything
        for _ in range(3 * LIMIT):
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            held.append(writer)
            async with asyncio.timeout(30):
                assert await reader.read(1) == b""
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{served.http_port}") as http:
            assert (await http.get("/presets", timeout=30)).status_code == 200
        # the silent ones are dropped after the profile's time; then the port takes more
        for writer in held:
            writer.close()
        async with asyncio.timeout(60):
            while True:
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
                held.append(writer)
                if not await closed_at_once(reader):
                    break
                await asyncio.sleep(0.5)
    finally:
        for writer in held:
            with contextlib.suppress(Exception):
                writer.close()
