"""Property-based tests of the whole REST API from its own OpenAPI schema
(schemathesis): no request, however odd, gets a 5xx, and every answer has a
documented status, content type and shape. The service runs for real in a
thread of its own; matches that exist are mixed into the generated ids."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from eventstore import RedisEventStore
from service.app.catalog import CatalogProjection
from service.app.keyring import Keyring
from service.app.projections import ResultsProjection
from service.app.service import GameService
from service.rest.app import create_app

from ..service_support import isolated_service
from .support import advance, new_match


@dataclass(frozen=True)
class LiveService:
    base_url: str
    match_ids: tuple[str, ...]  # a live match and a finished one


@pytest.fixture(scope="module")
def live_service(redis_url: str) -> Iterator[LiveService]:
    started: list[LiveService] = []
    failed: list[BaseException] = []
    ready = threading.Event()
    stop: list[asyncio.Event] = []
    loops: list[asyncio.AbstractEventLoop] = []

    async def serve() -> None:
        async with isolated_service(redis_url, grpc_port=0, http_port=0, timers=False) as running:
            live = await new_match(running, "torasobi", 3)
            await advance(running, live, 4)
            done = await new_match(running, "classic", 2)
            await advance(running, done, 500)  # to the end of its only game
            assert (await running.service.load(done.match_id)).over
            started.append(
                LiveService(f"http://127.0.0.1:{running.http_port}", (live.match_id, done.match_id))
            )
            stop.append(asyncio.Event())
            loops.append(asyncio.get_running_loop())
            ready.set()
            await stop[0].wait()

    def run() -> None:
        try:
            asyncio.run(serve())
        except BaseException as error:
            failed.append(error)
            ready.set()

    thread = threading.Thread(target=run, name="rest-schema-service", daemon=True)
    thread.start()
    ready.wait(120)
    if failed or not started:
        raise RuntimeError(f"the service did not start: {failed}")
    try:
        yield started[0]
    finally:
        loops[0].call_soon_threadsafe(stop[0].set)
        thread.join(30)


def app_schema() -> dict[str, Any]:
    """The OpenAPI schema the app serves (making the app connects to nothing)."""
    store = RedisEventStore.from_url("redis://127.0.0.1:1")
    service = GameService(store, Keyring(b"k" * 32))
    app = create_app(service, CatalogProjection(store), ResultsProjection(store))
    return app.openapi_schema.to_schema()


# an exported log (POST /audit) is text, one JSON object a line
schemathesis.serializer.alias("application/x-ndjson", "text/plain")
# the live stream never ends by itself: tests/rest/test_live.py covers it
schema = schemathesis.openapi.from_dict(app_schema()).exclude(path="/matches/{match_id}/live")


@schema.parametrize()
@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    database=None,
)
def test_the_api_answers_every_request_as_documented(
    case: schemathesis.Case, live_service: LiveService
) -> None:
    if case.path_parameters and "match_id" in case.path_parameters:
        # two of three cases ask about a match that exists
        generated = str(case.path_parameters["match_id"])
        known = [*live_service.match_ids, generated]
        case.path_parameters["match_id"] = known[len(generated) % 3]
    case.call_and_validate(
        base_url=live_service.base_url,
        checks=[
            not_a_server_error,
            status_code_conformance,
            content_type_conformance,
            response_schema_conformance,
        ],
        timeout=30,
    )
