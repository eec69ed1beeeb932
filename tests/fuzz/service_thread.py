"""The real service (gRPC and REST, real Redis) on an event loop of its own
thread, so hypothesis tests can stay synchronous: they call it over real sockets
and run coroutines on its loop when they need its view of a match."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from service.runtime import Running

from ..service_support import isolated_service

T = TypeVar("T")
START_TIMEOUT = 120.0


class ServiceThread:
    def __init__(self, running: Running, loop: asyncio.AbstractEventLoop) -> None:
        self.running = running
        self.loop = loop

    def run(self, work: Coroutine[Any, Any, T], timeout: float = 30.0) -> T:
        """Run ``work`` on the service's loop and wait for its result."""
        return asyncio.run_coroutine_threadsafe(work, self.loop).result(timeout)


@contextmanager
def service_thread(
    redis_url: str, set_up: Callable[[Running], Awaitable[T]]
) -> Iterator[tuple[ServiceThread, T]]:
    """The service started in a thread, ``set_up`` run on it; stopped on exit."""
    ready = threading.Event()
    started: list[tuple[ServiceThread, T]] = []
    failed: list[BaseException] = []
    stop: list[asyncio.Event] = []

    async def serve() -> None:
        # no turn timers: nothing but the fuzzed calls may change a match
        async with isolated_service(redis_url, grpc_port=0, http_port=0, timers=False) as running:
            prepared = await set_up(running)
            stop.append(asyncio.Event())
            started.append((ServiceThread(running, asyncio.get_running_loop()), prepared))
            ready.set()
            await stop[0].wait()

    def main() -> None:
        try:
            asyncio.run(serve())
        except BaseException as error:  # handed to the test thread
            failed.append(error)
        finally:
            ready.set()

    thread = threading.Thread(target=main, name="fuzzed-service", daemon=True)
    thread.start()
    ready.wait(START_TIMEOUT)
    if failed or not started:
        raise RuntimeError(f"the service did not start: {failed}")
    handle, prepared = started[0]
    try:
        yield handle, prepared
    finally:
        handle.loop.call_soon_threadsafe(stop[0].set)
        thread.join(30)
