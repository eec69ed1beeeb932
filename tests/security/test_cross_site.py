"""A page on another site cannot drive the service through its user's browser: a request
that changes state takes only a JSON body (a cross-site form or a no-preflight fetch
can send text/plain, and used to create tables) from the served origin, under a Host
the service is served as (no DNS rebinding). Every answer carries the page's security
headers."""

from __future__ import annotations

import httpx

from eventstore import RedisEventStore
from tests.serve_process import ServeProcess

TABLE = {"preset": "classic", "players": 3, "bots": 2, "seat": 0, "name": "host"}


def _origin(served: ServeProcess) -> str:
    return f"http://127.0.0.1:{served.http_port}"


async def test_a_cross_site_post_creates_nothing(
    served: ServeProcess, http: httpx.AsyncClient, store: RedisEventStore
) -> None:
    before = await store.stream_count()
    # the honest path: the page's own request, from its own origin, and a non-browser's
    own = await http.post("/matches", json=TABLE, headers={"Origin": _origin(served)})
    assert own.status_code == 201, own.text
    assert (await http.post("/matches", json=TABLE)).status_code == 201
    assert await store.stream_count() == before + 2
    # a form or fetch from another site: text/plain needs no preflight
    body = httpx.Request("POST", "/", json=TABLE).content
    for headers, status, code in [
        ({"Content-Type": "text/plain", "Origin": "https://evil.example"}, 403, "origin"),
        ({"Content-Type": "text/plain"}, 415, "unsupported_media_type"),
        ({"Content-Type": "application/x-www-form-urlencoded"}, 415, "unsupported_media_type"),
        ({"Content-Type": "multipart/form-data; boundary=x"}, 415, "unsupported_media_type"),
        ({"Content-Type": "application/json", "Origin": "https://evil.example"}, 403, "origin"),
        ({"Content-Type": "application/json", "Origin": "null"}, 403, "origin"),
    ]:
        answer = await http.post("/matches", content=body, headers=headers)
        assert answer.status_code == status, (headers, answer.status_code, answer.text)
        expected = "origin_not_allowed" if code == "origin" else code
        assert answer.json()["code"] == expected
    assert await store.stream_count() == before + 2
    # a seat's action from another site: refused before its token is even looked at
    created = own.json()
    act = await http.post(
        f"/matches/{created['match_id']}/actions",
        content=b'{"action": "pass"}',
        headers={"Content-Type": "text/plain", "Authorization": f"Bearer {created['seat_token']}"},
    )
    assert (act.status_code, act.json()["code"]) == (415, "unsupported_media_type")


async def test_only_the_served_host_names_are_answered(
    served: ServeProcess, http: httpx.AsyncClient, store: RedisEventStore
) -> None:
    port = served.http_port
    for host in (f"127.0.0.1:{port}", f"localhost:{port}"):
        assert (await http.get("/presets", headers={"Host": host})).status_code == 200
    before = await store.stream_count()
    # a name an attacker's page rebinds to 127.0.0.1, or the right name on another port
    for host in ("evil.example", f"evil.example:{port}", "127.0.0.1:1", "localhost"):
        for method, path in (("GET", "/"), ("GET", "/presets"), ("POST", "/matches")):
            answer = await http.request(method, path, json=TABLE, headers={"Host": host})
            assert answer.status_code == 421, (host, path, answer.status_code)
            assert answer.json()["code"] == "host_not_allowed"
    assert await store.stream_count() == before


async def test_every_answer_carries_the_security_headers(http: httpx.AsyncClient) -> None:
    answers = [
        await http.get("/"),
        await http.get("/static/main.js"),
        await http.get("/matches"),
        await http.get("/matches/nope"),  # an error
        await http.get("/no/such/path"),  # no route
        await http.post("/matches", content=b"x", headers={"Content-Type": "text/plain"}),
    ]
    assert [answer.status_code for answer in answers[:3]] == [200, 200, 200]
    for answer in answers:
        policy = answer.headers.get("content-security-policy", "")
        assert "script-src 'self'" in policy and "unsafe-inline" not in policy, answer.url
        assert "frame-ancestors 'none'" in policy
        assert answer.headers.get("x-content-type-options") == "nosniff"
        assert answer.headers.get("x-frame-options") == "DENY"
        assert answer.headers.get("referrer-policy") == "no-referrer"
    # the page itself holds no inline script or handler
    page = answers[0].text
    assert "<script" not in page.replace('<script type="module" src=', "")
    assert " onclick=" not in page and " onload=" not in page and "style=" not in page


async def test_the_auditor_still_takes_json_lines(http: httpx.AsyncClient) -> None:
    # POST /audit changes nothing: a log as JSON Lines, text or untyped, is still audited
    for content_type in ("application/x-ndjson", "text/plain", None):
        headers = {"Content-Type": content_type} if content_type else {}
        answer = await http.post("/audit", content=b'{"not": "a log"}\n', headers=headers)
        assert answer.status_code == 400 and answer.json()["code"] == "bad_request", answer.text
