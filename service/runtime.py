"""Everything `daifugo serve` runs, started and stopped together: the storage (Redis, the
given one or an embedded redis-server; or memory), the event store, the game service,
the gRPC server, the REST server (uvicorn, same loop), and the background work (the
projections and the turn timers) while this replica holds its lease."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from typing import Literal

import grpc

from clients.bots import bot_of_kind
from eventstore import (
    Archive,
    EmbeddedRedis,
    InMemoryArchive,
    RedisStorage,
    Storage,
    redis_url_or_embedded,
)
from eventstore.archive import configured_archive
from eventstore.embedded import URL_FILE

from .app import STORE_PREFIX
from .app.archiver import KEEP_LIVE_MS
from .app.arena import Arena, ArenaSettings
from .app.background import Background, stop_tasks
from .app.catalog import CatalogProjection
from .app.keyring import Keyring
from .app.lapsed_tables import TABLE_DEADLINES
from .app.listings import ArchivedListings
from .app.players import PlayerKind, Players, bot_player_name
from .app.projections import ResultsProjection
from .app.quotas import Limits, Quotas
from .app.ratings import Ratings
from .app.service import GameService
from .app.signing import Signer, ephemeral_signer
from .grpc.server import IDLE_SECONDS as GRPC_IDLE_SECONDS
from .grpc.server import MAX_CONNECTIONS as GRPC_MAX_CONNECTIONS
from .grpc.server import start_grpc_server
from .match import BotKind
from .rest.app import RestSettings, create_app, end_streams, stop_audits
from .rest.connections import ACCEPT_BURST, deepen_listen_queue, share_open_files
from .rest.perimeter import HostRules, Perimeter
from .rest.server import HttpServer, start_http_server
from .uecda.server import UecdaServer, UecdaSettings

log = logging.getLogger("daifugo")


@dataclass
class Running:
    redis_url: str | None  # None: the storage is in memory
    embedded: EmbeddedRedis | None  # the redis-server started for this service, if any
    service: GameService
    grpc_server: grpc.aio.Server
    grpc_port: int
    results: ResultsProjection
    catalog: CatalogProjection
    http_port: int | None  # None: no REST server
    background: Background
    signer: Signer
    storage: Storage
    uecda_port: int | None = None  # None: no UECda listener
    uecda: UecdaServer | None = None
    archive: Archive | None = None  # where sealed matches go (archiver.py)


def default_archive(storage: Storage, embedded: EmbeddedRedis | None) -> Archive | None:
    """Memory beside memory; the data folder's ``archive/`` beside the embedded Redis
    (whose data is there too); none beside a Redis of the operator's, whose replicas may
    run on several machines (``--archive`` names a folder they share)."""
    if not storage.durable:
        return InMemoryArchive()
    if embedded is not None:
        return configured_archive()
    return None


def tune_gc_for_serving() -> None:
    """For a process that only serves: what is loaded by now lives as long as it, so the
    collector need never scan it again (``freeze``); and a collection every 50,000 new
    objects rather than 700 (an action makes hundreds, nearly all freed at once by their
    counts): measured, the collector's share of the service's CPU falls from 2.7% to 0.4%."""
    gc.freeze()
    gc.set_threshold(50_000, 20, 20)


@contextlib.asynccontextmanager
async def running_service(
    redis_url: str | None = None,
    grpc_port: int = 50051,
    host: str = "127.0.0.1",
    timers: bool = True,
    http_port: int | None = None,
    prefix: str = STORE_PREFIX,
    signer: Signer | None = None,
    rest: RestSettings | None = None,
    uecda_port: int | None = None,
    uecda: UecdaSettings | None = None,
    uecda_host: str | None = None,
    limits: Limits | None = None,
    arena_settings: ArenaSettings | None = None,
    grpc_max_connections: int = GRPC_MAX_CONNECTIONS,
    grpc_idle_seconds: float = GRPC_IDLE_SECONDS,
    storage: Storage | None = None,
    archive: Archive | Literal["default"] | None = "default",
    keep_live: float = KEEP_LIVE_MS / 1000,
) -> AsyncIterator[Running]:
    """Start the service; stop all of it (an embedded Redis too) on exit.
    ``http_port``: serve REST there too (0 picks a free port; None: no REST).
    ``prefix``: the store's key prefix (tests keep apart with their own).
    ``uecda_port``: listen for UECda clients there too (0: a free port; None: not), on
    ``uecda_host`` (default ``host``), their tables as ``uecda`` says.
    ``signer``: the deployment's keys (``daifugo serve`` loads them); None: a key made
    for this run only, which nothing can check once it stops (tests, demos).
    ``rest``: the REST app's audit workers, keep-alive period and connection limits;
    ``grpc_max_connections``: gRPC connections open at once (``grpc_idle_seconds``: one
    with no call under way is let go after this). Both are lowered to fit
    the open-files limit (``share_open_files``).
    ``limits``: the callers' quotas and the idle limit (None: no quota, no idle limit:
    tests and tools that are their own only caller).
    ``storage``: where everything is kept (``InMemoryStorage``: nothing outlives the
    process); None: Redis at ``redis_url``, else an embedded one.
    ``archive``: where matches sealed ``keep_live`` seconds ago go (archiver.py);
    "default": in memory for a memory storage, the data folder's ``archive/`` beside an
    embedded Redis, none (matches stay in Redis) with a Redis of the caller's."""
    settings = rest or RestSettings()
    uecda_settings = uecda or UecdaSettings()
    connection_limits, grpc_max_connections = share_open_files(
        settings.connections,
        grpc_max_connections,
        uecda_settings.max_clients if uecda_port is not None else 0,
    )
    signer = ephemeral_signer() if signer is None else signer
    signing_keys = signer.key_set()
    embedded: EmbeddedRedis | None = None
    url: str | None = None
    if storage is None:
        if redis_url is None:
            # started from this thread: the server dies with the thread that made it
            url, embedded = redis_url_or_embedded({})
            if embedded is not None:
                where = embedded.data_dir / URL_FILE
                log.info("embedded redis-server on port %s, its URL in %s", embedded.port, where)
        else:
            url = redis_url
        storage = RedisStorage.from_url(url, prefix=prefix)
    if archive == "default":
        archive = default_archive(storage, embedded)
    if archive is not None:
        storage.events.use_archive(archive)
    if not storage.durable:
        log.warning("storage in %s: every match is lost when the service stops", storage.where)
    try:
        keyring = Keyring(await storage.server_key().load())
        quotas = Quotas(storage.quotas(), limits) if limits is not None else None
        service = GameService(storage.events, keyring, signer, quotas, storage.snapshots())
        trusted = limits.trusted_proxies if limits is not None else ()
        ratings = Ratings(
            storage.events
        )  # this process's fold of the ratings, for REST and the arena
        arena = Arena(service, ratings, arena_settings)
        server, port = await start_grpc_server(
            service,
            grpc_port,
            host,
            signing_keys=signing_keys,
            trusted_proxies=trusted,
            arena=arena,
            max_connections=grpc_max_connections,
            idle_seconds=grpc_idle_seconds,
        )
        idle_ms = round(limits.idle_abandon * 1000) if limits is not None else 0
        table_deadlines = storage.deadlines(TABLE_DEADLINES)
        background = Background(
            service,
            storage,
            timers=timers,
            make_bot=bot_of_kind,
            idle_ms=idle_ms,
            bot_min_pause=limits.bot_min_pause if limits is not None else 0.0,
            table_deadlines=table_deadlines,
            archive=archive,
            keep_live_ms=round(keep_live * 1000),
        )
        background_task = asyncio.create_task(background.run())
        # what REST reads of the projections, whichever replica writes them
        results = ResultsProjection(storage)
        catalog = CatalogProjection(storage, ArchivedListings.beside(archive) if archive else None)
        players = Players(storage.events)
        for kind in BotKind:  # our bots are players of their own, rated like any
            await players.ensure(bot_player_name(kind.value), PlayerKind.BOT)
        # every replica counts together
        limiter = storage.quotas()
        app = (
            create_app(
                service,
                catalog,
                results,
                signing_keys,
                replace(settings, connections=connection_limits),  # (streams fit them)
                trusted,
                players,
                limiter,
                ratings,
                arena,
                storage.analyses(),
            )
            if http_port is not None
            else None
        )
        http: HttpServer | None = None
        tables: UecdaServer | None = None
        try:
            if app is not None and http_port is not None:
                guarded = Perimeter(app, HostRules.of(host, settings.allowed_hosts))
                http = await start_http_server(guarded, http_port, host, connection_limits)
            http_bound = http.port if http is not None else None
            uecda_bound = None
            if uecda_port is not None:
                tables = UecdaServer(service, uecda_settings, table_deadlines)
                uecda_bound = await tables.start(uecda_host or host, uecda_port, ACCEPT_BURST)
                deepen_listen_queue(tables.sockets)
            yield Running(
                url,
                embedded,
                service,
                server,
                port,
                results,
                catalog,
                http_bound,
                background,
                signer,
                storage,
                uecda_bound,
                tables,
                archive,
            )
        finally:
            if tables is not None:
                await tables.stop()
            if app is not None and http is not None:
                end_streams(app)
                await http.stop()
            if app is not None:
                stop_audits(app)
            background.stop()
            arena.stop()
            await stop_tasks([background_task], timeout=10.0)
            await server.stop(grace=1.0)
            await service.fanout.close()
            await service.snapshots.close()
    finally:
        await storage.close()
        if embedded is not None:
            embedded.stop()
