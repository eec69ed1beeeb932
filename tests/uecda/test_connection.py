"""One client's connection on its own: the messages of one step go out in one write,
whole and in order, and a table's last messages reach the client before it is closed."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import pytest

from service.uecda.connection import Connection
from service.uecda.wire import INT_BYTES, TABLE_BYTES, pack_int, pack_table, unpack_table

pytestmark = pytest.mark.asyncio


@asynccontextmanager
async def connected() -> AsyncIterator[tuple[Connection, list[bytes], asyncio.StreamReader]]:
    """A server-side Connection, the writes it made, and the client's reader."""
    accepted: asyncio.Future[Connection] = asyncio.get_running_loop().create_future()
    writes: list[bytes] = []

    async def accept(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        write: Callable[[bytes], None] = writer.write

        def recorded(data: bytes) -> None:
            writes.append(bytes(data))
            write(data)

        writer.write = recorded  # type: ignore[method-assign]
        accepted.set_result(Connection(reader, writer))

    server = await asyncio.start_server(accept, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        yield await accepted, writes, reader
    finally:
        writer.close()
        server.close()
        await server.wait_closed()


async def test_one_steps_messages_go_out_in_one_write_in_order() -> None:
    async with connected() as (connection, writes, reader):
        field = [1] * 120
        hand = [2] * 120
        connection.send_int(9)
        connection.send_table(field)
        connection.send_int(0)
        connection.send_bytes(pack_table(hand))
        assert writes == []  # nothing written while the step goes on
        await asyncio.sleep(0)
        assert writes == [pack_int(9) + pack_table(field) + pack_int(0) + pack_table(hand)]
        assert await reader.readexactly(INT_BYTES) == pack_int(9)
        assert unpack_table(await reader.readexactly(TABLE_BYTES)) == field
        assert await reader.readexactly(INT_BYTES) == pack_int(0)
        assert unpack_table(await reader.readexactly(TABLE_BYTES)) == hand
        connection.send_int(1)  # the next step: a write of its own
        await asyncio.sleep(0)
        assert writes[1:] == [pack_int(1)]


async def test_a_closed_table_still_delivers_its_last_messages() -> None:
    async with connected() as (connection, writes, reader):
        connection.send_table([3] * 120)
        connection.send_int(2)  # all games over
        connection.close()
        assert unpack_table(await reader.readexactly(TABLE_BYTES)) == [3] * 120
        assert await reader.readexactly(INT_BYTES) == pack_int(2)
        assert await reader.read() == b""  # then the end of the stream
        connection.send_int(5)  # a closed connection sends nothing more
        await asyncio.sleep(0)
        assert len(writes) == 1


async def test_a_dropped_client_is_not_sent_what_was_waiting() -> None:
    async with connected() as (connection, writes, reader):
        connection.send_int(7)
        connection.close("no table (TimeoutError)")  # dropped: out of step
        await asyncio.sleep(0)
        assert writes == []
        assert await reader.read() == b""


async def test_a_client_silent_past_its_time_is_dropped() -> None:
    async with connected() as (connection, writes, reader):
        connection.send_int(3)
        assert await connection.read_table(0.05) is None  # nothing came in time
        assert not connection.connected
        assert writes == [pack_int(3)]  # what it was sent went out before the wait
        assert await reader.readexactly(INT_BYTES) == pack_int(3)
        assert await reader.read() == b""
