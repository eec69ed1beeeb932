"""A TCP proxy in front of a gRPC server that can lose one reply on the wire.

Armed, it cuts the connection at the first response HEADERS frame instead of passing
it on. A unary call's reply starts with that frame, sent only once the handler has
returned: the server has done the work, and the client never hears of it."""

from __future__ import annotations

import asyncio
import contextlib

_FRAME_HEADER = 9  # HTTP/2: length (3 bytes), type, flags, stream id (4 bytes)
_HEADERS = 0x1


class ReplyDropper:
    def __init__(self, target: str) -> None:
        host, _, port = target.rpartition(":")
        self.upstream = (host, int(port))
        self.armed = False
        self.dropped = 0
        self.port = 0
        self._server: asyncio.Server | None = None
        self._connections: set[asyncio.Task[None]] = set()

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"

    async def __aenter__(self) -> ReplyDropper:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = int(self._server.sockets[0].getsockname()[1])
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        assert self._server is not None
        self._server.close()
        for task in list(self._connections):
            task.cancel()
        await asyncio.gather(*self._connections, return_exceptions=True)
        await self._server.wait_closed()

    async def _serve(
        self, client_in: asyncio.StreamReader, client_out: asyncio.StreamWriter
    ) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._connections.add(task)
        server_in, server_out = await asyncio.open_connection(*self.upstream)
        pumps = [
            asyncio.create_task(_pipe(client_in, server_out)),
            asyncio.create_task(self._replies(server_in, client_out)),
        ]
        try:
            await asyncio.wait(pumps, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for pump in pumps:
                pump.cancel()
            await asyncio.gather(*pumps, return_exceptions=True)
            for writer in (client_out, server_out):
                writer.close()
            self._connections.discard(task)

    async def _replies(
        self, server_in: asyncio.StreamReader, client_out: asyncio.StreamWriter
    ) -> None:
        """Pass the server's frames on, one whole frame at a time, until armed and a
        call's HEADERS comes: then stop (the connection is closed)."""
        with contextlib.suppress(asyncio.IncompleteReadError, ConnectionError):
            while True:
                header = await server_in.readexactly(_FRAME_HEADER)
                payload = await server_in.readexactly(int.from_bytes(header[:3], "big"))
                stream_id = int.from_bytes(header[5:], "big") & 0x7FFF_FFFF
                if self.armed and header[3] == _HEADERS and stream_id:
                    self.armed = False
                    self.dropped += 1
                    return
                client_out.write(header + payload)
                await client_out.drain()


async def _pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
    with contextlib.suppress(ConnectionError):
        while data := await source.read(65536):
            sink.write(data)
            await sink.drain()
