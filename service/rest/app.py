"""The REST app (Litestar): replays, spectators, a seat for the page, audit,
rankings, the signing keys, the web page, and its OpenAPI schema at /schema
(/schema/openapi.json)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from litestar import Litestar, MediaType, get
from litestar.datastructures import State
from litestar.di import Provide
from litestar.exceptions import NotFoundException
from litestar.logging.config import LoggingConfig
from litestar.openapi import OpenAPIConfig
from litestar.response import File
from litestar.static_files import create_static_files_router

from eventstore import StoreUnavailable
from eventstore.analyses import AnalysisStore, InMemoryAnalyses
from eventstore.quotas import InMemoryQuotas, QuotaStore

from ..app.analysis import Analyses
from ..app.arena import Arena
from ..app.catalog import CatalogProjection
from ..app.players import Players, RegistrationLimits
from ..app.projections import ResultsProjection
from ..app.queries import MatchQueries
from ..app.quotas import Network, Proxies, QuotaExceeded
from ..app.ratings import Ratings
from ..app.service import GameService, ServiceError
from ..records import KeySet
from . import actions, analysis, keys, live, matches, players, rankings, ratings, record, tables
from . import arena as arena_routes
from .auditing import DEFAULT_MAX_BYTES, DEFAULT_QUEUED, DEFAULT_WORKERS, AuditPool
from .connections import ConnectionLimits
from .context import CONTEXT, Context
from .errors import EXCEPTION_HANDLERS, BadInput, log_exception
from .read_rate import ReadBuckets, ReadRate, ReadsTooFast
from .streams import StreamGate, TooManyStreams

STATIC = Path(__file__).parent / "static"


@get("/", include_in_schema=False, media_type=MediaType.HTML)
async def index() -> File:
    page = STATIC / "index.html"
    if not page.is_file():
        raise NotFoundException("the web page is not installed")
    return File(page, content_disposition_type="inline", media_type=MediaType.HTML)


@dataclass(frozen=True, slots=True)
class RestSettings:
    """``audit_workers`` processes audit, ``audit_queue`` more audits may wait (past
    that: 503 audit_busy); an SSE keep-alive goes out every ``keepalive_seconds`` (None:
    ``live.KEEPALIVE``); a POST /audit body is at most ``audit_max_bytes`` (past it: 413
    too_large); the server's ``connections`` are bounded so; ``allowed_hosts``
    are served besides the address bound (``perimeter.HostRules``)."""

    audit_workers: int = DEFAULT_WORKERS
    audit_queue: int = DEFAULT_QUEUED
    keepalive_seconds: float | None = None
    registrations: RegistrationLimits = field(default_factory=RegistrationLimits)
    audit_max_bytes: int = DEFAULT_MAX_BYTES
    connections: ConnectionLimits = field(default_factory=ConnectionLimits)
    allowed_hosts: tuple[str, ...] = ()
    reads: ReadRate = field(default_factory=ReadRate)


def create_app(
    service: GameService,
    catalog: CatalogProjection,
    results: ResultsProjection,
    signing_keys: KeySet,
    settings: RestSettings | None = None,
    trusted_proxies: Sequence[Network] = (),
    registry: Players | None = None,
    limiter: QuotaStore | None = None,
    rating_folds: Ratings | None = None,
    arena: Arena | None = None,
    analyses: AnalysisStore | None = None,
) -> Litestar:
    """``trusted_proxies``: peers whose X-Forwarded-For names the caller (the quotas');
    ``registry``: the players (default: over the service's store); ``limiter``: the
    quotas sign-ups count in (default: this process's memory; ``daifugo serve`` shares
    the storage's); ``analyses``: where analyses are kept (default: this process's memory)."""
    settings = settings or RestSettings()
    folds = rating_folds or Ratings(service.store)
    if settings.keepalive_seconds is not None and not settings.keepalive_seconds > 0:
        raise ValueError("the keep-alive period must be positive")
    if settings.audit_max_bytes < 1:
        raise ValueError("an audit body limit is one byte or more")
    audits = AuditPool(settings.audit_workers, settings.audit_queue)
    queries = MatchQueries(service)
    context = Context(
        service,
        catalog,
        results,
        signing_keys,
        queries,
        Analyses(queries, analyses or InMemoryAnalyses()),
        audits,
        settings.keepalive_seconds,
        settings.audit_max_bytes,
        proxies=Proxies(trusted_proxies),
        players=registry or Players(service.store),
        registration_limiter=limiter or InMemoryQuotas(),
        registration_limits=settings.registrations,
        ratings=folds,
        arena=arena or Arena(service, folds),
        streams=StreamGate(settings.connections),
        reads=ReadBuckets(settings.reads),
    )

    def provide() -> Context:
        return context

    return Litestar(
        state=State({CONTEXT: context}),
        route_handlers=[
            *matches.HANDLERS,
            *tables.HANDLERS,
            *live.HANDLERS,
            *actions.HANDLERS,
            *record.HANDLERS,
            *analysis.HANDLERS,
            *rankings.HANDLERS,
            *players.HANDLERS,
            *ratings.HANDLERS,
            *arena_routes.HANDLERS,
            *keys.HANDLERS,
            index,
            create_static_files_router(
                "/static", directories=[STATIC], include_in_schema=False, send_as_attachment=False
            ),
        ],
        dependencies={"ctx": Provide(provide, sync_to_thread=False)},
        exception_handlers=EXCEPTION_HANDLERS,
        openapi_config=OpenAPIConfig(
            title="Daifugō spectators, replays and audit",
            version="1.0.0",
            description="Matches are played over gRPC (daifugo.v1); this API lists, watches, "
            "replays and audits them, and lets the web page play a seat. Card codes as in the "
            'events: "3S", "10H", "JK". Errors: {"code", "message"}.',
        ),
        logging_config=LoggingConfig(
            # keep the process's logging (`daifugo serve` sets it up): no root
            # handler of Litestar's; its logger goes to the root's handlers
            configure_root_logger=False,
            loggers={"litestar": {"level": "INFO", "handlers": [], "propagate": True}},
            # log what went wrong on the server, not every refusal
            log_exceptions="always",
            exception_logging_handler=log_exception,
            disable_stack_trace={
                *range(400, 500),
                503,
                ServiceError,
                QuotaExceeded,  # (Litestar matches the exact type: a traceback a refusal)
                BadInput,
                StoreUnavailable,
                TooManyStreams,
                ReadsTooFast,
            },
        ),
        debug=False,
    )


def end_streams(app: Litestar) -> None:
    """End the app's open event streams (before the server stops: else they are
    cut off mid-response)."""
    context: Context = app.state[CONTEXT]
    context.closing.set()


def stop_audits(app: Litestar) -> None:
    """Stop the app's audit workers (after the server has stopped)."""
    context: Context = app.state[CONTEXT]
    context.audits.shutdown()
    context.analyses.stop()
