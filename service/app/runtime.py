"""Everything `daifugo serve` runs, started and stopped together: Redis (the
given one, or an embedded redis-server), the event store, the game service,
the gRPC server and the turn timers."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass

import grpc

from eventstore import EmbeddedRedis, RedisEventStore, redis_url_or_embedded

from ..grpc.server import start_grpc_server
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


@contextlib.asynccontextmanager
async def running_service(
    redis_url: str | None = None,
    grpc_port: int = 50051,
    host: str = "127.0.0.1",
    timers: bool = True,
) -> AsyncIterator[Running]:
    """Start the service; stop all of it (an embedded Redis too) on exit."""
    embedded: EmbeddedRedis | None = None
    if redis_url is None:
        # started from this thread: the server dies with the thread that made it
        url, embedded = redis_url_or_embedded({})
        if embedded is not None:
            log.info("embedded redis-server on %s, data in %s", url, embedded.data_dir)
    else:
        url = redis_url
    store = RedisEventStore.from_url(url, prefix=STORE_PREFIX)
    try:
        keyring = Keyring(await load_server_key(await store.raw_client()))
        service = GameService(store, keyring)
        server, port = await start_grpc_server(service, grpc_port, host)
        turn_timers = TurnTimers(service) if timers else None
        timer_task = asyncio.create_task(turn_timers.run()) if turn_timers else None
        results = ResultsProjection(store)
        results_task = asyncio.create_task(results.run())
        try:
            yield Running(url, service, server, port, results)
        finally:
            results_task.cancel()
            await asyncio.wait([results_task], timeout=2.0)
            if turn_timers is not None and timer_task is not None:
                turn_timers.stop()
                await asyncio.wait([timer_task], timeout=5.0)
                timer_task.cancel()
            await server.stop(grace=1.0)
    finally:
        await store.close()
        if embedded is not None:
            embedded.stop()
