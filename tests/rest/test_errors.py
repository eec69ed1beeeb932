"""Errors are JSON {code, message} with the right status: unknown ids 404,
malformed input 400, the event store down 503; and the rest of the surface:
the rankings, the web page and the OpenAPI schema."""

from __future__ import annotations

import socket
import uuid
from collections.abc import AsyncIterator

import httpx
import pytest

from clients.sdk import DaifugoClient
from eventstore import RedisEventStore, RedisStorage
from service.app.catalog import CatalogProjection
from service.app.keyring import Keyring
from service.app.projections import ResultsProjection
from service.app.service import GameService
from service.app.signing import ephemeral_signer
from service.rest.app import create_app
from service.rest.server import start_http_server
from service.runtime import Running

from .support import finished_match

MATCH_PATHS = ["", "/events", "/state?seq=0", "/live", "/seat", "/record", "/audit"]


async def test_unknown_matches_are_404(http: httpx.AsyncClient) -> None:
    for match_id in (uuid.uuid4().hex[:16], "no{such}match", "x" * 300, "%00"):
        for path in MATCH_PATHS:
            answer = await http.get(f"/matches/{match_id}{path}")
            assert answer.status_code == 404, (match_id, path)
            assert answer.json()["code"] == "not_found" and answer.json()["message"]
        posted = await http.post(
            f"/matches/{match_id}/actions",
            json={"action": "pass"},
            headers={"Authorization": "Bearer t"},
        )
        assert posted.status_code == 404


async def test_malformed_input_is_400_with_what_was_wrong(
    http: httpx.AsyncClient, grpc_client: DaifugoClient
) -> None:
    match_id = await finished_match(grpc_client)
    for path in [
        "/matches?state=over",
        "/matches?limit=0",
        "/matches?limit=lots",
        "/matches?preset=chess",
        "/matches?cursor=nope",
        f"/matches/{match_id}/events?from=-1",
        f"/matches/{match_id}/events?limit=100000",
        f"/matches/{match_id}/state",
        f"/matches/{match_id}/state?seq=x",
        f"/matches/{match_id}/record?format=pdf",
        "/rankings?limit=-3",
    ]:
        answer = await http.get(path)
        assert answer.status_code == 400, path
        body = answer.json()
        assert body["code"] == "bad_request" and body["message"], path
    answer = await http.get(f"/matches/{match_id}/live", headers={"Last-Event-ID": "x"})
    assert answer.status_code == 400 and answer.json()["code"] == "bad_request"
    assert "limit" in (await http.get("/matches?limit=0")).json()["message"]
    wrong_method = await http.delete(f"/matches/{match_id}")
    assert wrong_method.status_code == 405 and wrong_method.json()["code"] == "method_not_allowed"


async def test_rankings_page_by_points(
    served: Running, http: httpx.AsyncClient, grpc_client: DaifugoClient
) -> None:
    await finished_match(grpc_client)
    await served.results.catch_up()
    page = (await http.get("/rankings", params={"limit": 500})).json()
    points = [standing["points"] for standing in page["rankings"]]
    assert points == sorted(points, reverse=True) and points
    assert set(page["rankings"][0]) == {"name", "points", "games", "firsts", "places"}
    assert sum(page["rankings"][0]["places"]) == page["rankings"][0]["games"]
    top = await served.results.ranking(0, 3)
    first = (await http.get("/rankings", params={"limit": 2})).json()
    assert [s["name"] for s in first["rankings"]] == [s.name for s in top[:2]]
    if len(top) > 2:
        assert first["next"] == 2
        second = (await http.get("/rankings", params={"offset": 2, "limit": 1})).json()
        assert second["rankings"][0]["name"] == top[2].name


async def test_the_page_and_the_schema_are_served(http: httpx.AsyncClient) -> None:
    page = await http.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "<html" in page.text.lower()
    schema = (await http.get("/schema/openapi.json")).json()
    assert schema["openapi"].startswith("3.")
    paths = ["/matches", "/audit", "/rankings"]
    paths += [f"/matches/{{match_id}}{path}" for path in [*MATCH_PATHS, "/actions"]]
    for path in paths:
        assert path.split("?")[0] in schema["paths"], path
    view = schema["components"]["schemas"]["MatchView"]["properties"]["view"]
    assert view  # typed: the rules' View
    missing = await http.get("/static/no-such-file.js")
    assert missing.status_code == 404 and missing.json()["code"] == "not_found"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
async def no_store() -> AsyncIterator[httpx.AsyncClient]:
    """REST on a store whose Redis does not answer."""
    store = RedisEventStore.from_url(f"redis://127.0.0.1:{free_port()}", connect_timeout=0.5)
    service = GameService(store, Keyring(b"k" * 32))
    keys = ephemeral_signer().key_set()
    storage = RedisStorage(store)
    app = create_app(service, CatalogProjection(storage), ResultsProjection(storage), keys)
    server = await start_http_server(app, 0)
    try:
        async with httpx.AsyncClient(
            base_url=f"http://127.0.0.1:{server.port}", timeout=30
        ) as client:
            yield client
    finally:
        await server.stop()
        await store.close()


async def test_the_store_down_is_503(no_store: httpx.AsyncClient) -> None:
    for path in ["/matches", "/rankings", *(f"/matches/abc{path}" for path in MATCH_PATHS)]:
        answer = await no_store.get(path)
        assert answer.status_code == 503, path
        assert answer.json()["code"] == "unavailable", path
    posted = await no_store.post(
        "/matches/abc/actions", json={"action": "pass"}, headers={"Authorization": "Bearer t"}
    )
    assert posted.status_code == 503
    # an audit of a given log needs no store
    assert (await no_store.post("/audit", content=b"nope")).status_code == 400
