"""What the REST handlers work with, handed to each as the ``ctx`` dependency,
and the one way they read a seat or host token."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Annotated

from litestar.params import HeaderParameter

from ..app.catalog import CatalogProjection
from ..app.projections import ResultsProjection
from ..app.queries import MatchQueries
from ..app.service import GameService, ServiceError
from ..records import KeySet
from .auditing import DEFAULT_MAX_BYTES, AuditPool
from .broadcast import Broadcasts

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
    audits: AuditPool = field(default_factory=AuditPool)
    keepalive_seconds: float | None = None  # the SSE keep-alive period (None: live's)
    audit_max_bytes: int = DEFAULT_MAX_BYTES  # the largest POST /audit body
    # set when the server stops: open event streams end (the page resumes them)
    closing: asyncio.Event = field(default_factory=asyncio.Event)
    broadcasts: Broadcasts = field(default_factory=Broadcasts)  # the live events' readers


def bearer(authorization: str | None) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header; None without a
    header; ServiceError(unauthenticated) for any other kind of header."""
    if authorization is None:
        return None
    scheme, _, token = authorization.strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise ServiceError(
            "unauthenticated", "send a seat token as 'Authorization: Bearer <token>'"
        )
    return token.strip()
