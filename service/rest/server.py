"""Serving the REST app with uvicorn in the running asyncio loop, beside the
gRPC aio server. The service owns the process's signals, and no access log is
written (a log line must never carry a token). Connections are bounded
(``connections``): how many, from one address, and how long a request head may take."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import socket
from collections.abc import Iterator
from typing import cast

import uvicorn

from .connections import (
    ACCEPT_BURST,
    ConnectionGate,
    ConnectionLimits,
    GatedHttpProtocol,
    deepen_listen_queue,
)
from .perimeter import ASGIApp

GRACE = 1  # seconds open streams (SSE) get to finish when the server stops


class _Server(uvicorn.Server):
    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        # `daifugo serve` handles SIGTERM/SIGINT and stops everything in order
        yield


class HttpServer:
    def __init__(self, server: uvicorn.Server, task: asyncio.Task[None], port: int) -> None:
        self._server = server
        self._task = task
        self.port = port

    async def stop(self) -> None:
        self._server.should_exit = True
        try:
            await asyncio.wait_for(asyncio.shield(self._task), GRACE + 5.0)
        except TimeoutError:
            self._server.force_exit = True
            self._task.cancel()
            await asyncio.wait([self._task], timeout=2.0)


async def start_http_server(
    app: ASGIApp, port: int, host: str = "127.0.0.1", limits: ConnectionLimits | None = None
) -> HttpServer:
    """Serve ``app``; returns once it accepts connections (port 0 picks one).
    Binding is done here so a port in use raises OSError to the caller."""
    limits = limits or ConnectionLimits()
    sock = _bound_socket(host, port)
    # uvicorn's httptools protocol (the C parser: cheaper per request and per streamed
    # write), admitted by the gate
    protocol = functools.partial(GatedHttpProtocol, gate=ConnectionGate(limits))
    config = uvicorn.Config(
        app,
        access_log=False,
        log_config=None,  # keep the process's logging as `daifugo serve` set it up
        lifespan="off",
        http=cast(type[asyncio.Protocol], protocol),
        timeout_keep_alive=limits.idle_seconds,  # type: ignore[arg-type]  # float is fine
        ws="none",
        server_header=False,
        # the caller's address is the peer's, or what a proxy the operator trusts says
        # (Context.caller, --trusted-proxy): never X-Forwarded-For from just anyone
        proxy_headers=False,
        timeout_graceful_shutdown=GRACE,
        backlog=ACCEPT_BURST,
    )
    # no access log at all, whoever adds handlers to it (tests capture every logger)
    logging.getLogger("uvicorn.access").disabled = True
    server = _Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:
        if task.done():
            sock.close()
            task.result()  # its error, if any
            raise RuntimeError(f"the HTTP server on {host}:{port} stopped at once")
        await asyncio.sleep(0.01)
    deepen_listen_queue([sock])
    return HttpServer(server, task, int(sock.getsockname()[1]))


def _bound_socket(host: str, port: int) -> socket.socket:
    family, kind, proto, _, address = socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
    except OSError:
        sock.close()
        raise
    return sock
