"""The UECda port holds a bounded number of connections, so a caller opening thousands
cannot take every file descriptor the process has (gRPC and REST accept from the same
ones); past the bound a new connection takes the place of the oldest that has sent no
profile, so silent connections cannot keep real clients out. And a seat goes only to a
client still connected when its table fills: one that sent its profile and left holds
none (four such used to hold a table's seats, its turns then played by the timer)."""

from __future__ import annotations

import asyncio
import contextlib
import re
import secrets
import time
from collections.abc import Iterator

import httpx
import pytest

from eventstore import RedisServer
from tests.serve_process import ServeProcess
from tests.uecda.support import RawClient

LIMIT = 8


def _uecda_port(service: ServeProcess) -> int:
    port = re.search(r"UECda on (\d+)", service.log_tail())
    assert port, service.log_tail()
    return int(port[1])


@pytest.fixture(scope="module")
def limited(
    redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[ServeProcess, int]]:
    """Tables of four bots and one client, at most ``LIMIT`` UECda connections."""
    log = tmp_path_factory.mktemp("serve") / "serve.log"
    options = ("--uecda-port", "0", "--uecda-max-clients", str(LIMIT), "--uecda-bots", "4")
    service = ServeProcess(redis_server.url, log, *options).wait_ready()
    try:
        yield service, _uecda_port(service)
    finally:
        service.stop()


@pytest.fixture(scope="module")
def tables_of_five(
    redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[ServeProcess, int]]:
    """Tables of five UECda clients, one game each."""
    log = tmp_path_factory.mktemp("serve") / "serve.log"
    options = ("--uecda-port", "0", "--uecda-games", "1")
    service = ServeProcess(redis_server.url, log, *options).wait_ready()
    try:
        yield service, _uecda_port(service)
    finally:
        service.stop()


async def closed_by_server(reader: asyncio.StreamReader) -> bool:
    """Whether the server has ended the connection (it sends nothing before a profile)."""
    try:
        async with asyncio.timeout(0.05):
            return await reader.read(1) == b""
    except TimeoutError:
        return False
    except OSError:
        return True


async def test_silent_connections_lose_their_place_to_a_real_client(
    limited: tuple[ServeProcess, int],
) -> None:
    served, port = limited
    # the honest path: a client is seated at a table of bots and told its number
    honest = await asyncio.wait_for(RawClient.connect(port, "first"), 30)
    assert honest.player in range(5)
    honest.close()
    silent: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []
    try:
        # the attack: many times the limit, never a byte sent
        for _ in range(4 * LIMIT):
            silent.append(await asyncio.open_connection("127.0.0.1", port))
        # a real client still gets in, at once: a silent one gives up its place
        real = await asyncio.wait_for(RawClient.connect(port, "real"), 30)
        assert real.player in range(5)
        real.close()
        # the limit held: all but the last few silent ones were let go
        async with asyncio.timeout(30):
            while True:
                dropped = [await closed_by_server(reader) for reader, _ in silent]
                if sum(dropped) >= len(silent) - LIMIT:
                    break
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{served.http_port}") as http:
            assert (await http.get("/presets", timeout=30)).status_code == 200
    finally:
        for _, writer in silent:
            with contextlib.suppress(Exception):
                writer.close()


async def test_clients_that_left_before_their_table_hold_no_seat(
    tables_of_five: tuple[ServeProcess, int],
) -> None:
    served, port = tables_of_five
    run = secrets.token_hex(3)
    # four clients send their profile and leave
    for number in range(4):
        quitter = await RawClient.open(port, f"q{number}-{run}")
        quitter.close()
    # (the server notices each; waiting for its log keeps this test's order plain)
    deadline = time.monotonic() + 10
    while served.log_tail(1 << 20).count("left before its table") < 4:
        if time.monotonic() > deadline:
            break
        await asyncio.sleep(0.05)
    # five real clients: one table of theirs, numbered 0 to 4, none of the leavers in it
    real = [await RawClient.open(port, f"r{number}-{run}") for number in range(5)]
    try:
        async with asyncio.timeout(30):
            numbers = [await client.read_int() for client in real]
        assert sorted(numbers) == [0, 1, 2, 3, 4]
        start = await asyncio.wait_for(real[0].read_table(), 30)
        assert start[75] == 1  # the table started: [5][0] = 1
        # the list is a projection: it names the seats once it has followed them (a seat
        # it has not followed yet is listed without a name)
        expected = [sorted(f"r{number}-{run}" for number in range(5))]
        tables: list[list[str]] = []
        deadline = time.monotonic() + 30
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{served.http_port}") as http:
            while tables != expected and time.monotonic() < deadline:
                listed = (await http.get("/matches", params={"preset": "uecda"}, timeout=30)).json()
                tables = [
                    sorted(match["names"])
                    for match in listed["matches"]
                    if any(name.endswith(run) for name in match["names"])
                ]
                await asyncio.sleep(0.1)
        assert tables == expected, tables
    finally:
        for client in real:
            client.close()
