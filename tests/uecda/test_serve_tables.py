"""`daifugo serve --uecda-port` as a real process: clients fill tables of five in connect
order, the sixth opens the next table (and waits there, seatless, for four more), and
each table is an open-seat uecda match."""

from __future__ import annotations

import asyncio
import re
import secrets
from pathlib import Path

import httpx
import pytest

from tests.serve_process import ServeProcess

from .support import RawClient

pytestmark = pytest.mark.asyncio


async def test_clients_fill_tables_in_connect_order(redis_url: str, tmp_path: Path) -> None:
    serve = ServeProcess(redis_url, tmp_path / "serve.log", "--uecda-port", "0")
    serve.wait_ready()
    try:
        found = re.search(r"UECda on (\d+)", serve.log_tail())
        assert found, serve.log_tail()
        port = int(found[1])
        run = secrets.token_hex(3)  # this run's clients, among whatever the store holds
        clients = [await RawClient.open(port, f"p{n}-{run}") for n in range(7)]
        for client in clients[:5]:
            client.player = await client.read_int()
        assert sorted(client.player for client in clients[:5]) == [0, 1, 2, 3, 4]
        for client in clients[:5]:
            start = await client.read_table()
            assert start[75] == 1  # the full table's match has started: [5][0] = 1
        seated = [sorted(f"p{n}-{run}" for n in range(5))]
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{serve.http_port}") as rest:
            for _ in range(100):  # the catalog follows the stream: wait until it shows every seat
                listed = (await rest.get("/matches", params={"preset": "uecda"})).json()
                names = sorted(
                    tuple(match["names"])
                    for match in listed["matches"]
                    if any(name.endswith(run) for name in match["names"])
                )
                if [sorted(table) for table in names] == seated:
                    break
                await asyncio.sleep(0.1)
        # the sixth and seventh wait for a table they can fill: no seat taken yet
        assert [sorted(table) for table in names] == seated
        assert all(client.reader.at_eof() is False for client in clients[5:])
        for client in clients:
            client.close()
    finally:
        serve.stop()
