"""Everything `daifugo serve` runs, started and stopped together: Redis (the
given one, or an embedded redis-server), the event store, the game service,
the gRPC server, the REST server (uvicorn, same loop), the turn timers and the
projections (results and the match catalog)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass

import grpc

from eventstore import EmbeddedRedis, RedisEventStore, redis_url_or_embedded

from ..grpc.server import start_grpc_server
from ..rest.app import create_app, end_streams
from ..rest.server import HttpServer, start_http_server
from .catalog import CatalogProjection
from .keyring import Keyring, load_server_key
from .projections import ResultsProjection
from .service import GameService
from .timers import TurnTimers

log = logging.getLogger("daifugo")
STORE_PREFIX = "daifugo"


@dataclass
class Running:
    redis_url: str
    service: GameService
    grpc_server: grpc.aio.Server
    grpc_port: int
    results: ResultsProjection
    catalog: CatalogProjection
    http_port: int | None  # None: no REST server


@contextlib.asynccontextmanager
async def running_service(
    redis_url: str | None = None,
    grpc_port: int = 50051,
    host: str = "127.0.0.1",
    timers: bool = True,
    http_port: int | None = None,
    prefix: str = STORE_PREFIX,
) -> AsyncIterator[Running]:
    """Start the service; stop all of it (an embedded Redis too) on exit.
    ``http_port``: serve REST there too (0 picks a free port; None: no REST).
    ``prefix``: the store's key prefix (tests keep apart with their own)."""
    embedded: EmbeddedRedis | None = None
    if redis_url is None:
        # started from this thread: the server dies with the thread that made it
        url, embedded = redis_url_or_embedded({})
        if embedded is not None:
            log.info("embedded redis-server on %s, data in %s", url, embedded.data_dir)
    else:
        url = redis_url
    store = RedisEventStore.from_url(url, prefix=prefix)
    try:
        keyring = Keyring(await load_server_key(await store.raw_client()))
        service = GameService(store, keyring)
        server, port = await start_grpc_server(service, grpc_port, host)
        turn_timers = TurnTimers(service) if timers else None
        timer_task = asyncio.create_task(turn_timers.run()) if turn_timers else None
        results = ResultsProjection(store)
        catalog = CatalogProjection(store)
        projection_tasks = [asyncio.create_task(p.run()) for p in (results, catalog)]
        app = create_app(service, catalog, results) if http_port is not None else None
        http: HttpServer | None = None
        try:
            if app is not None and http_port is not None:
                http = await start_http_server(app, http_port, host)
            http_bound = http.port if http is not None else None
            yield Running(url, service, server, port, results, catalog, http_bound)
        finally:
            if app is not None and http is not None:
                end_streams(app)
                await http.stop()
            results.stop()
            catalog.stop()
            await _cancel(projection_tasks, timeout=5.0)
            if turn_timers is not None and timer_task is not None:
                turn_timers.stop()
                await asyncio.wait([timer_task], timeout=5.0)
                timer_task.cancel()
            await server.stop(grace=1.0)
            await service.fanout.close()
    finally:
        await store.close()
        if embedded is not None:
            embedded.stop()


async def _cancel(tasks: list[asyncio.Task[None]], timeout: float) -> None:
    """Cancel ``tasks`` and wait for them, cancelling again while one runs on: a
    cancellation that lands inside a Redis client call may not come out."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    pending = {task for task in tasks if not task.done()}
    while pending and loop.time() < deadline:
        for task in pending:
            task.cancel()
        _, pending = await asyncio.wait(pending, timeout=0.2)
    if pending:
        log.warning("%d background tasks did not stop", len(pending))
