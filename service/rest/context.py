"""What the REST handlers work with, handed to each as the ``ctx`` dependency,
and the one way they read a seat or host token."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Annotated, Any

from litestar import Request
from litestar.connection import ASGIConnection
from litestar.handlers.base import BaseRouteHandler
from litestar.params import HeaderParameter

from eventstore.quotas import QuotaStore

from ..app.analysis import Analyses
from ..app.arena import Arena
from ..app.catalog import CatalogProjection
from ..app.errors import ServiceCode
from ..app.players import Players, RegistrationLimits
from ..app.projections import ResultsProjection
from ..app.queries import MatchQueries
from ..app.quotas import Caller, Proxies, network_of
from ..app.ratings import Ratings
from ..app.service import GameService, ServiceError
from ..records import KeySet
from .auditing import DEFAULT_MAX_BYTES, AuditPool
from .broadcast import Broadcasts
from .read_rate import ReadBuckets, ReadRate
from .streams import StreamGate

CONTEXT = "daifugo"  # the app's state key of the Context

Authorization = Annotated[
    str | None,
    HeaderParameter(name="Authorization", required=False, description="Bearer <seat token>"),
]


@dataclass(frozen=True, slots=True)
class Context:
    service: GameService
    catalog: CatalogProjection
    results: ResultsProjection
    signing_keys: KeySet  # the public keys, retired ones too
    queries: MatchQueries  # spectators' and replayers' reads
    analyses: Analyses  # finished matches' analyses
    audits: AuditPool = field(default_factory=AuditPool)
    keepalive_seconds: float | None = None  # the SSE keep-alive period (None: live's)
    audit_max_bytes: int = DEFAULT_MAX_BYTES  # the largest POST /audit body
    # set when the server stops: open event streams end (the page resumes them)
    closing: asyncio.Event = field(default_factory=asyncio.Event)
    broadcasts: Broadcasts = field(default_factory=Broadcasts)  # the live events' readers
    streams: StreamGate = field(default_factory=StreamGate)  # the event streams' bounds
    proxies: Proxies = field(default_factory=Proxies)  # whose X-Forwarded-For is believed
    players: Players | None = None  # registered players (None: not served)
    registration_limiter: QuotaStore | None = None
    registration_limits: RegistrationLimits = field(default_factory=RegistrationLimits)
    ratings: Ratings | None = None  # the ratings' fold, kept by this process
    arena: Arena | None = None  # the arena's queues (None: not served)
    reads: ReadBuckets = field(default_factory=lambda: ReadBuckets(ReadRate()))  # callers' reads

    def caller(self, request: ASGIConnection[Any, Any, Any, Any]) -> Caller:
        """Who sent ``request``: its peer, or the address a trusted proxy forwarded."""
        peer = request.client.host if request.client is not None else ""
        forwarded = request.headers.getall("x-forwarded-for", [])
        return self.proxies.caller(peer, forwarded)

    @contextlib.asynccontextmanager
    async def audit_slot(self, request: Request[Any, Any, Any]) -> AsyncIterator[None]:
        """One of the caller's audits at once, for the block's time (no quota: free)."""
        quotas = self.service.quotas
        if quotas is None:
            yield
            return
        async with quotas.audit(self.caller(request)):
            yield


def bearer(authorization: str | None) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header; None without a
    header; ServiceError(unauthenticated) for any other kind of header."""
    if authorization is None:
        return None
    scheme, _, token = authorization.strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise ServiceError(
            ServiceCode.UNAUTHENTICATED, "send a seat token as 'Authorization: Bearer <token>'"
        )
    return token.strip()


def limit_reads(connection: ASGIConnection[Any, Any, Any, Any], _: BaseRouteHandler) -> None:
    """The guard of the handlers that read a match: one of the caller's reads
    (ReadsTooFast past its rate)."""
    context: Context = connection.app.state[CONTEXT]
    context.reads.take(network_of(context.caller(connection).address))
