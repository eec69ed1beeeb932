"""One UECda client's TCP connection: exact reads with a time limit, every message whole
in one write, and a bound on what may wait unsent (a client that stops reading is
dropped, not buffered for). A client that is gone stays gone: its seat is played by the
timer.

The messages of one step of the table (an action's accept int, field table and end
flag, the next turn's hand table) go out together, in one write once the table's task
waits: a send costs a system call and a wake-up of the client's process, so a turn costs
each client one write rather than three or four. Each table stays whole inside its
write, which is all the official client's single ``read(fd, buf, 480)`` needs (a read
returns what was written up to its size; a message is never split)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import Callable

from .wire import TABLE_BYTES, Table, pack_int, pack_table, unpack_table

log = logging.getLogger("daifugo.uecda")
WRITE_LIMIT = 1 << 20  # bytes a client may leave unread before it is dropped


class Connection:
    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        on_close: Callable[[], None] | None = None,
    ) -> None:
        self._on_close = on_close  # told once, when the connection closes
        self.reader = reader
        self.writer = writer
        self.peer = str(writer.get_extra_info("peername"))
        self.connected = True
        self._unsent: list[bytes] = []  # messages of this step, written once the loop turns
        # held: written only when ``flush`` is called (a table writes to a client when it
        # must answer, a game ends or the table waits on others), not once the loop turns
        self.held = False
        sock = writer.get_extra_info("socket")
        if sock is not None:
            # without it a table waits on delayed ACKs every turn (under 1 game/s)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    async def read_table(self, timeout: float) -> Table | None:
        """The next 480 bytes as a table; None when the client is gone, sent half a
        table and closed, or took longer than ``timeout`` (then it is dropped: what it
        sends later would be out of step)."""
        if not self.connected:
            return None
        # the deadline a timer that fails the read, not ``asyncio.timeout`` around it
        # (which cancels the task, at twice the cost): one a turn
        late = asyncio.get_running_loop().call_later(
            timeout, self.reader.set_exception, TimeoutError()
        )
        try:
            data = await self.reader.readexactly(TABLE_BYTES)
        except (TimeoutError, asyncio.IncompleteReadError, OSError) as error:
            self.close(f"no table ({type(error).__name__})")
            return None
        finally:
            late.cancel()
        if self.reader.exception() is not None:  # in, but with its time run out meanwhile
            self.close("no table (TimeoutError)")
            return None
        return unpack_table(data)

    def send_table(self, table: Table) -> None:
        self._send(pack_table(table))

    def send_int(self, value: int) -> None:
        self._send(pack_int(value))

    def send_bytes(self, data: bytes) -> None:
        """A message already packed (a table shared by several clients)."""
        self._send(data)

    def _send(self, data: bytes) -> None:
        if not self.connected:
            return
        if not self._unsent and not self.held:
            asyncio.get_running_loop().call_soon(self.flush)
        self._unsent.append(data)

    def flush(self) -> None:
        """Write the messages sent since the last flush, in one write."""
        if not self._unsent or not self.connected:
            self._unsent.clear()
            return
        data = b"".join(self._unsent) if len(self._unsent) > 1 else self._unsent[0]
        self._unsent.clear()
        if self.writer.is_closing():
            self.close("connection closed")
            return
        self.writer.write(data)
        if self.writer.transport.get_write_buffer_size() > WRITE_LIMIT:
            self.close("not reading")

    def close(self, why: str = "") -> None:
        if self.connected and not why:
            self.flush()  # a table's last messages (the end flag 2) before the close
        if self.connected and why:
            log.info("uecda client %s dropped: %s", self.peer, why)
        if self.connected and self._on_close is not None:
            self._on_close()
        self.connected = False
        with contextlib.suppress(Exception):
            self.writer.close()
