"""Property-based tests of the whole REST API from its own OpenAPI schema
(schemathesis): no request, however odd, gets a 5xx, every answer has a
documented status, content type and shape, and none changes anything: every
stream in the store keeps its head, the matches' REST views stay as they were.
The service runs for real in a thread of its own; matches that exist are mixed
into the generated ids, and real tokens that may not act into the generated
Authorization headers."""

from __future__ import annotations

import asyncio
import threading
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
import redis
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from eventstore import RedisEventStore, RedisStorage
from service.app.catalog import CatalogProjection
from service.app.keyring import Keyring
from service.app.projections import ResultsProjection
from service.app.service import GameService
from service.app.signing import ephemeral_signer
from service.rest.app import create_app

from ..service_support import isolated_service
from .support import advance, new_match


@dataclass(frozen=True)
class LiveService:
    base_url: str
    match_ids: tuple[str, ...]  # a live match and a finished one
    redis_url: str
    prefix: str  # the store's key prefix: every stream of this service is under it
    # real tokens that may not act (and nothing acts): the live match's host's and its
    # seats' but the one to act, the finished match's seats'
    tokens: tuple[str, ...]


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
            turn = (await running.service.load(live.match_id)).game.turn
            waiting = [token for seat, token in enumerate(live.seat_tokens) if seat != turn]
            started.append(
                LiveService(
                    f"http://127.0.0.1:{running.http_port}",
                    (live.match_id, done.match_id),
                    redis_url,
                    running.service.store.keys.prefix,
                    (live.host_token, *waiting, *done.seat_tokens),
                )
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


Heads = dict[bytes, bytes | None]  # a stream's meta key -> its head, "<seq> <hash>"
# what a spectator sees of a match (formatted with its id)
VIEWS = ("/matches/{}", "/matches/{}/events", "/matches/{}/record?format=jsonl")


def stream_heads(service: LiveService) -> Heads:
    """The head of every stream under the service's prefix, read from Redis itself."""
    client = redis.Redis.from_url(service.redis_url)
    try:
        keys = sorted(client.scan_iter(match=f"{service.prefix}:*:meta", count=1000))
        pipeline = client.pipeline(transaction=False)
        for key in keys:
            pipeline.hget(key, "head")
        return dict(zip(keys, pipeline.execute(), strict=True))
    finally:
        client.close()


def known_heads(service: LiveService, baseline: Baseline) -> Heads:
    """The heads now of the streams there were before the generated requests."""
    heads = stream_heads(service)
    return {key: heads.get(key) for key in baseline.heads}


def rest_views(service: LiveService) -> dict[str, tuple[int, str]]:
    views = {}
    with httpx.Client(base_url=service.base_url, timeout=30) as http:
        for match_id in service.match_ids:
            for view in VIEWS:
                path = view.format(match_id)
                answer = http.get(path)
                views[path] = (answer.status_code, answer.text)
    return views


@dataclass(frozen=True)
class Baseline:
    heads: Heads
    views: dict[str, tuple[int, str]]


@pytest.fixture(scope="module")
def baseline(live_service: LiveService) -> Baseline:
    """The store and the views before the first generated request."""
    return Baseline(stream_heads(live_service), rest_views(live_service))


def app_schema() -> dict[str, Any]:
    """The OpenAPI schema the app serves (making the app connects to nothing)."""
    store = RedisEventStore.from_url("redis://127.0.0.1:1")
    service = GameService(store, Keyring(b"k" * 32))
    keys = ephemeral_signer().key_set()
    storage = RedisStorage(store)
    app = create_app(service, CatalogProjection(storage), ResultsProjection(storage), keys)
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
    case: schemathesis.Case, live_service: LiveService, baseline: Baseline
) -> None:
    # a number from what was generated, to pick by (the same for the same case)
    body = case.body if isinstance(case.body, dict | list | str) else None
    picker = zlib.crc32(repr((case.path_parameters, case.query, case.headers, body)).encode())
    if case.path_parameters and "match_id" in case.path_parameters:
        # two of three cases ask about a match that exists
        generated = str(case.path_parameters["match_id"])
        known = [*live_service.match_ids, generated]
        case.path_parameters["match_id"] = known[len(generated) % 3]
    if "authorization" in {header.name.lower() for header in case.operation.headers}:
        # most cases send a token: a real one of a role that may not act, or junk
        generated = str(case.headers.get("Authorization", ""))
        tokens = [f"Bearer {token}" for token in live_service.tokens]
        choices = [generated, f"Bearer {generated}", *tokens]
        case.headers["Authorization"] = choices[picker % len(choices)]
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
    # no request schemathesis can make may act: it has no token that may (a new
    # match, from POST /matches, is a stream of its own)
    assert known_heads(live_service, baseline) == baseline.heads, (
        f"{case.method} {case.formatted_path}"
    )


def test_the_generated_requests_changed_nothing(
    live_service: LiveService, baseline: Baseline
) -> None:
    """After every request above (a module runs in order): the streams, and what a
    spectator sees of the matches, as they were."""
    assert known_heads(live_service, baseline) == baseline.heads
    assert rest_views(live_service) == baseline.views
