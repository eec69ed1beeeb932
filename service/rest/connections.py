"""Bounds on the REST server's connections: how many are open at once, in all and per
client address, and how long a connection may take to send a request's head.

uvicorn bounds none of these (its keep-alive timer starts only after a first response,
and a request head may trickle in forever: uvicorn issue #157), so a caller opening
thousands of silent connections took every file descriptor the process had, and gRPC,
UECda and Redis with it. Here the HTTP protocol is uvicorn's own (httptools), told by a
gate when a connection may stay:

- past the limit (in all, or for its address) a new connection takes the place of the
  oldest one that is waiting for a request head (silent, slow, or idle between
  requests): those lose their slot first; with none such it is closed at once;
- a request head must be whole within ``header_seconds`` of the connection or of the
  last response, and at most ``HEAD_BYTES`` long; else the connection is closed;
- a request body must keep coming: within ``body_seconds`` of its head, plus a second
  for every ``body_rate`` bytes that came (the rule of Apache's mod_reqtimeout, so a
  large body sent at an honest pace is never cut, a trickled one is); else closed.

The process never runs out of descriptors (the cap is kept below its limit, see
``fit_to_open_files``), so it never spins on accept errors."""

from __future__ import annotations

import asyncio
import logging
import os
import resource
import socket
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

log = logging.getLogger("daifugo.rest")
HEAD_BYTES = 64 * 1024  # a request line and headers, at most
# answered before its body was all in (refused: too large, over a quota), a request's body
# is read on and dropped only this far, then the connection is closed: nginx's lingering
# close, bounded by bytes. Past the largest body the server takes (an audit, 10 MB), so a
# client that sends all its body before it reads (httpx, requests) still gets the answer
LINGER_BYTES = 16 * 1024 * 1024
# asyncio accepts as many connections in one go as the backlog it listened with, before
# any gate sees them (uvicorn's 2,048: a flood queued while the loop was busy took more
# descriptors than the process had). Listeners start with ACCEPT_BURST, then the kernel's
# queue is deepened to LISTEN_QUEUE, so a burst waits there instead of having SYNs dropped
ACCEPT_BURST = 64
LISTEN_QUEUE = 2048
# descriptors kept for Redis's pool (64), files and the workers' pipes (64), and the accept
# bursts of REST and UECda: a burst, and the connections it displaced, close a turn later
RESERVED_FILES = 128 + 2 * 2 * ACCEPT_BURST
REPORT_SECONDS = 60.0  # at most one log line a minute about connections turned away


@dataclass(frozen=True, slots=True)
class ConnectionLimits:
    """``max_connections`` open at once, ``per_address`` of them from one client
    address; a request head within ``header_seconds``; an idle keep-alive connection
    closed after ``idle_seconds``; a request body within ``body_seconds`` of its head,
    and a second more for every ``body_rate`` bytes of it received; ``streams`` event
    streams, ``streams_per_address`` of them from one address."""

    max_connections: int = 1024
    per_address: int = 256
    header_seconds: float = 10.0
    idle_seconds: float = 5.0
    body_seconds: float = 10.0
    body_rate: int = 1024  # bytes a second a body must average past its first seconds
    # event streams (SSE) open at once, from one address and in all: each at most half
    # of the connections' bound (streams.py)
    streams_per_address: int = 32
    streams: int = 512

    def __post_init__(self) -> None:
        if min(self.max_connections, self.per_address, self.streams, self.streams_per_address) < 1:
            raise ValueError("connection limits are at least 1")
        if not (self.header_seconds > 0 and self.idle_seconds > 0 and self.body_seconds > 0):
            raise ValueError("connection times are positive")
        if self.body_rate < 1:
            raise ValueError("the body rate is at least 1 byte a second")


def deepen_listen_queue(listening: Iterable[socket.socket]) -> None:
    """Listen again with LISTEN_QUEUE, once asyncio listens with ACCEPT_BURST (through a
    duplicate: asyncio's sockets do not offer listen)."""
    for sock in listening:
        with socket.socket(fileno=os.dup(sock.fileno())) as same:
            same.listen(LISTEN_QUEUE)


def raise_open_files_limit() -> int:
    """Raise this process's soft limit on open files to its hard one; returns the limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        soft = hard
    return soft if soft != resource.RLIM_INFINITY else 1 << 20


def share_open_files(rest: ConnectionLimits, grpc: int, uecda: int) -> tuple[ConnectionLimits, int]:
    """The REST limits and gRPC's connection bound, each lowered (with a warning) so that
    with ``uecda``'s connections and ``RESERVED_FILES`` they fit the open-files limit
    (raised to the hard one first): gRPC at most half of what UECda leaves, REST the rest."""
    budget = raise_open_files_limit() - RESERVED_FILES - uecda
    grpc_fitted = min(grpc, budget // 2)
    rest_budget = budget - grpc_fitted
    if grpc_fitted < 16 or rest_budget < 16:
        raise ValueError(f"the open-files limit leaves {budget} connections: raise it")
    if grpc_fitted < grpc:
        log.warning("gRPC connections capped at %d (not %d): open-files limit", grpc_fitted, grpc)
    if rest.max_connections <= rest_budget:
        return rest, grpc_fitted
    log.warning(
        "REST connections capped at %d (not %d): the open-files limit leaves no more",
        rest_budget,
        rest.max_connections,
    )
    fitted = replace(
        rest, max_connections=rest_budget, per_address=min(rest.per_address, rest_budget)
    )
    return fitted, grpc_fitted


class ConnectionGate:
    """The open connections of one server, in all and by address, and those waiting
    for a request head, oldest first (the first to go when a place is needed)."""

    def __init__(self, limits: ConnectionLimits) -> None:
        self.limits = limits
        self.open = 0
        self.by_address: Counter[str] = Counter()
        self.waiting: dict[GatedHttpProtocol, None] = {}
        self.turned_away = 0  # closed at once, or dropped for a newer one
        self._reported = 0.0

    def admit(self, connection: GatedHttpProtocol) -> bool:
        limits = self.limits
        address = connection.address
        if self.by_address[address] >= limits.per_address and not self._drop_one(address):
            return self._refuse()
        if self.open >= limits.max_connections and not self._drop_one(None):
            return self._refuse()
        self.open += 1
        self.by_address[address] += 1
        return True

    def release(self, connection: GatedHttpProtocol) -> None:
        self.waiting.pop(connection, None)
        self.open -= 1
        self.by_address[connection.address] -= 1
        if not self.by_address[connection.address]:
            del self.by_address[connection.address]

    def _drop_one(self, address: str | None) -> bool:
        """Close the oldest connection waiting for a head (of ``address``, if given)."""
        for waiting in self.waiting:
            if address is None or waiting.address == address:
                waiting.drop()
                self._note()
                return True
        return False

    def _refuse(self) -> bool:
        self._note()
        return False

    def _note(self) -> None:
        self.turned_away += 1
        now = time.monotonic()
        if now - self._reported >= REPORT_SECONDS:
            self._reported = now
            log.warning(
                "REST connection limits reached (%d open, at most %d, %d per address): "
                "%d connections turned away so far",
                self.open,
                self.limits.max_connections,
                self.limits.per_address,
                self.turned_away,
            )


class GatedHttpProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol, admitted by a ``ConnectionGate`` and given a
    deadline for each request head."""

    def __init__(self, *args: Any, gate: ConnectionGate, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.gate = gate
        self.address = ""
        self.admitted = False  # handed to uvicorn (its connection_lost is due)
        self.counted = False  # holding a place in the gate
        self._head_timer: asyncio.TimerHandle | None = None
        self._head_bytes = 0
        self._reading_body = False  # a request's head came, its body is still coming
        self._body_timer: asyncio.TimerHandle | None = None
        self._body_started = 0.0  # when the body's time began (its head, or a pause's end)
        self._body_bytes = 0  # received since then
        self._linger_bytes: int | None = None  # answered early: what may still be dropped

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        peer = transport.get_extra_info("peername")
        self.address = str(peer[0]) if isinstance(peer, tuple) and peer else str(peer)
        if not self.gate.admit(self):
            transport.abort()
            return
        self.admitted = self.counted = True
        super().connection_made(transport)
        self._await_head()

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.admitted:
            return
        self._release()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        waiting = self._head_timer is not None
        super().data_received(data)
        if waiting and self._head_timer is not None:  # the head is still not whole
            self._head_bytes += len(data)
            if self._head_bytes > HEAD_BYTES:
                self.drop()
        elif self._reading_body:
            # (a request without a body is complete within the call above: no timer)
            if self._linger_bytes is not None:
                self._linger_bytes -= len(data)
                if self._linger_bytes < 0:
                    self.drop()
                    return
            self._body_bytes += len(data)
            if self._body_timer is None:
                self._body_started = self.loop.time()
                self._body_bytes = 0
                self._body_timer = self.loop.call_later(
                    self.gate.limits.body_seconds, self._check_body
                )

    def on_headers_complete(self) -> None:
        self._stop_head_timer()
        self._reading_body = True
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        self._reading_body = False
        self._linger_bytes = None
        self._stop_body_timer()
        super().on_message_complete()
        if self.timeout_keep_alive_task is not None:  # answered before its body ended
            self._await_head()

    def on_response_complete(self) -> None:
        if self._reading_body:  # answered before its body came: the rest is not wanted
            self._linger_bytes = LINGER_BYTES
        super().on_response_complete()
        # idle: the next head's time starts, once this request's body is all in (a body
        # refused from its Content-Length is still read, and is no head)
        if self.timeout_keep_alive_task is not None and not self._reading_body:
            self._await_head()

    def drop(self) -> None:
        """Close at once (its place is wanted, or it is too slow): its place is free now."""
        if self.counted:
            self._release()
            self.transport.abort()

    def _release(self) -> None:
        self._stop_head_timer()
        self._stop_body_timer()
        if self.counted:
            self.counted = False
            self.gate.release(self)

    def _await_head(self) -> None:
        self._stop_head_timer()
        self._head_bytes = 0
        self.gate.waiting[self] = None  # the newest waiting: the last to be dropped
        self._head_timer = self.loop.call_later(self.gate.limits.header_seconds, self.drop)

    def _check_body(self) -> None:
        """The body's deadline: ``body_seconds`` after it began, a second more for every
        ``body_rate`` bytes since. Past it, the client is too slow: closed. While the
        server itself has paused reading (the app has not taken what came), the
        client is not to blame: the body's time starts again."""
        limits = self.gate.limits
        now = self.loop.time()
        if self.flow is not None and self.flow.read_paused:
            self._body_started, self._body_bytes = now, 0
            self._body_timer = self.loop.call_later(limits.body_seconds, self._check_body)
            return
        due = self._body_started + limits.body_seconds + self._body_bytes / limits.body_rate
        if now >= due:
            self._body_timer = None
            self.drop()
        else:
            self._body_timer = self.loop.call_later(due - now, self._check_body)

    def _stop_body_timer(self) -> None:
        if self._body_timer is not None:
            self._body_timer.cancel()
            self._body_timer = None

    def _stop_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None
        self.gate.waiting.pop(self, None)
