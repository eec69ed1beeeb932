"""Pausing the private redis-server the fault tests share (SIGSTOP: it keeps its
connections open but answers nothing). The services are ``ServeProcess`` children."""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Iterator

from eventstore import RedisServer


def pause(server: RedisServer) -> None:
    """SIGSTOP: Redis keeps its connections open but answers nothing."""
    assert server.process is not None
    os.kill(server.process.pid, signal.SIGSTOP)


def resume(server: RedisServer) -> None:
    if server.process is not None and server.process.poll() is None:
        os.kill(server.process.pid, signal.SIGCONT)


@contextlib.contextmanager
def paused(server: RedisServer) -> Iterator[None]:
    pause(server)
    try:
        yield
    finally:
        resume(server)
