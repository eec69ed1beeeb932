"""Bounds on open event streams (SSE), apart from other requests.

A stream holds its connection for as long as its client likes and is never the
connection gate's to evict (it is no idle connection: it is being answered). Unbounded,
one address could hold all its connections (``--http-max-per-address``) with streams,
and a few addresses all of the server's, so nobody's requests or streams got in. So
streams have bounds of their own, lower than the connections': from one caller
(its network, as the quotas count it), and in all; each at most half of the matching
connection bound, so ordinary requests always keep the other half. Past a bound a new
stream is refused (429 with a reason code and ``Retry-After``), never one already open:
a browser's EventSource does not retry a refusal, where an evicted stream would come
back at once and evict the next (two tabs too many would take turns without end)."""

from __future__ import annotations

import weakref
from collections import Counter

from ..app.quotas import network_of
from .codes import RestCode
from .connections import ConnectionLimits

RETRY_AFTER_SECONDS = 30  # a stream ends when its viewer leaves: nobody knows when


class TooManyStreams(Exception):
    """A stream past a bound: 429 with ``code`` and ``Retry-After``."""

    def __init__(self, code: RestCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.retry_after = RETRY_AFTER_SECONDS


class StreamGate:
    """The event streams open now, in all and by caller's network."""

    def __init__(self, limits: ConnectionLimits | None = None) -> None:
        limits = limits or ConnectionLimits()
        self.per_caller = max(1, min(limits.streams_per_address, limits.per_address // 2))
        self.total = max(1, min(limits.streams, limits.max_connections // 2))
        self.open = 0
        self.by_network: Counter[str] = Counter()

    def take(self, address: str) -> StreamSlot:
        """A place for a stream from ``address``; TooManyStreams past a bound."""
        network = network_of(address)
        if self.by_network[network] >= self.per_caller:
            raise TooManyStreams(
                RestCode.TOO_MANY_STREAMS,
                f"{self.per_caller} event streams are open from this address: close one",
            )
        if self.open >= self.total:
            raise TooManyStreams(
                RestCode.STREAMS_FULL, f"{self.total} event streams are open: try again later"
            )
        self.open += 1
        self.by_network[network] += 1
        return StreamSlot(self, network)

    def _release(self, network: str) -> None:
        self.open -= 1
        self.by_network[network] -= 1
        if not self.by_network[network]:
            del self.by_network[network]


class StreamSlot:
    """One stream's place: given back by ``release`` (once, however often called)."""

    def __init__(self, gate: StreamGate, network: str) -> None:
        self._gate: StreamGate | None = gate
        self._network = network

    def tie(self, stream: object) -> None:
        """Give the place back when ``stream`` (its generator) is gone, too: a stream
        never started (its client left before the answer began) runs no ``finally``."""
        weakref.finalize(stream, self.release)

    def release(self) -> None:
        gate, self._gate = self._gate, None
        if gate is not None:
            gate._release(self._network)
