"""deploy/nginx/nginx.conf run for real (Debian's `nginx`; these tests skip without it):
`nginx -t` on it, and nginx in front of two `daifugo serve` processes, with a match
played, streamed and watched through it over gRPC, SSE and REST.

The config is taken as compose mounts it, with only what ties it to compose rewritten in
a copy: the replicas' host name (`daifugo`, which compose's DNS resolves to every
replica) becomes one `server` line per local process, the listen ports become free local
ones, and pid, temp paths and an access log (upstream addresses only) go to a temp dir.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import httpx
import pytest

from clients.bots import GreedyBot, RandomBot, StrongerBot
from clients.runner import play_seat
from clients.sdk import DaifugoClient
from eventstore import RedisServer
from service.grpc.gen.daifugo.v1 import match_service_pb2 as pb
from service.grpc.gen.daifugo.v1 import match_service_pb2_grpc as pb_grpc
from service.rules import rule_set
from tests.serve_process import serve_processes

from .support import DEPLOY, free_port

CONFIG = DEPLOY / "nginx" / "nginx.conf"
NGINX = shutil.which("nginx") or next(
    (path for path in ("/usr/sbin/nginx",) if os.access(path, os.X_OK)), None
)
pytestmark = pytest.mark.skipif(
    NGINX is None, reason="nginx is not installed (Debian: apt-get install nginx)"
)


def rewrite(text: str, pattern: str, replacement: str) -> str:
    new, count = re.subn(pattern, lambda _: replacement, text)
    assert count == 1, f"nginx.conf no longer has exactly one {pattern!r}"
    return new


def local_config(
    work: Path, grpc_port: int, http_port: int, grpc_backends: list[int], http_backends: list[int]
) -> Path:
    """nginx.conf with compose's names and paths swapped for local ones, in ``work``."""
    text = CONFIG.read_text()
    for port, backends in ((50051, grpc_backends), (8080, http_backends)):
        found = re.search(rf"server daifugo:{port}([^;]*);", text)
        assert found, f"nginx.conf has no `server daifugo:{port}`"
        lines = " ".join(f"server 127.0.0.1:{backend}{found[1]};" for backend in backends)
        text = rewrite(text, re.escape(found[0]), lines)
    text = rewrite(text, r"listen 50051 ", f"listen 127.0.0.1:{grpc_port} ")
    text = rewrite(text, r"listen 8080;", f"listen 127.0.0.1:{http_port};")
    text = rewrite(text, r"\npid [^;]+;", f"\npid {work}/nginx.pid;")
    temp = " ".join(
        f"{kind}_temp_path {work}/{kind};"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    log = (
        f"log_format upstream '$server_port $upstream_addr'; access_log {work}/access.log upstream;"
    )
    text = rewrite(text, r"access_log off;", f"{log} {temp}")
    path = work / "nginx.conf"
    path.write_text(text)
    return path


def nginx_command(config: Path) -> list[str]:
    # one process in the foreground: no daemon, and no switch to another user when root
    assert NGINX is not None
    prefix = str(config.parent)
    return [
        NGINX,
        "-p",
        prefix,
        "-e",
        "stderr",
        "-c",
        str(config),
        "-g",
        "daemon off; master_process off;",
    ]


def test_nginx_accepts_the_config(tmp_path: Path) -> None:
    config = local_config(tmp_path, free_port(), free_port(), [free_port()], [free_port()])
    result = subprocess.run(
        [*nginx_command(config), "-t"], capture_output=True, text=True, timeout=30
    )
    assert result.returncode == 0, result.stderr


def wait_for_port(port: int, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"exited {process.returncode}: {log.read_text()}")
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listens on {port}: {log.read_text()}")


def stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@dataclass
class Balanced:
    grpc: str  # host:port of nginx for gRPC
    http: str  # base URL of nginx for REST
    grpc_backends: set[str]
    http_backends: set[str]
    access_log: Path


@contextlib.contextmanager
def nginx_in_front(
    redis_url: str, tmp_path: Path, *options: str, bind: str = ""
) -> Iterator[Balanced]:
    """Two `daifugo serve` processes (given ``options``) on the test Redis, nginx in
    front of them (``bind``: the address nginx calls them from)."""
    lb_grpc, lb_http = free_port(), free_port()
    # nginx passes the browser's Host on: the services are served under nginx's name
    served_as = ("--allowed-host", f"127.0.0.1:{lb_http}")
    with serve_processes(redis_url, tmp_path, 2, *served_as, *options) as services:
        grpc_ports = [service.grpc_port for service in services]
        http_ports = [service.http_port for service in services]
        config = local_config(tmp_path, lb_grpc, lb_http, grpc_ports, http_ports)
        if bind:
            text = rewrite(config.read_text(), r"\nhttp \{", f"\nhttp {{ proxy_bind {bind};")
            config.write_text(text.replace("proxy_bind", f"grpc_bind {bind}; proxy_bind", 1))
        log = tmp_path / "nginx.log"
        with log.open("wb") as output:
            nginx = subprocess.Popen(nginx_command(config), stdout=output, stderr=output)
        try:
            wait_for_port(lb_grpc, nginx, log)
            wait_for_port(lb_http, nginx, log)
            yield Balanced(
                f"127.0.0.1:{lb_grpc}",
                f"http://127.0.0.1:{lb_http}",
                {f"127.0.0.1:{port}" for port in grpc_ports},
                {f"127.0.0.1:{port}" for port in http_ports},
                tmp_path / "access.log",
            )
        finally:
            stop(nginx)


@pytest.fixture
def balanced(redis_url: str, tmp_path: Path) -> Iterator[Balanced]:
    with nginx_in_front(redis_url, tmp_path) as running:
        yield running


async def first_sse_event(http: httpx.AsyncClient, match_id: str) -> str:
    """The first `event:` line of the match's live stream."""
    async with http.stream("GET", f"/matches/{match_id}/live") as live:
        assert live.status_code == 200
        assert live.headers["content-type"].startswith("text/event-stream")
        async for line in live.aiter_lines():
            if line.startswith("event:"):
                return line.partition(":")[2].strip()
    raise AssertionError("the live stream ended without an event")


async def test_a_match_played_and_watched_through_the_load_balancer(
    balanced: Balanced,
) -> None:
    async with (
        DaifugoClient(balanced.grpc, timeout=20) as client,
        httpx.AsyncClient(base_url=balanced.http, timeout=20) as http,
    ):
        created = await client.create_match("federation", 4, games_per_set=1)
        # the live stream through nginx gives its first events at once
        first = await asyncio.wait_for(first_sse_event(http, created.match_id), timeout=10)
        assert first == "MatchCreated"

        await client.host(created.match_id, created.host_token).start()
        seats = [client.seat(created.match_id, token) for token in created.seat_tokens]
        bots = [StrongerBot(rule_set("federation")), GreedyBot(), RandomBot(5), GreedyBot()]
        plays = (play_seat(seat, bot) for seat, bot in zip(seats, bots, strict=True))
        await asyncio.wait_for(asyncio.gather(*plays), timeout=120)

        # the server stream through grpc_pass: every event, up to the last one (the seal)
        streamed = []
        async for event in seats[0].events():
            streamed.append(event["seq"])
            if event["type"] == "MatchSealed":
                break
        assert streamed == list(range(len(streamed)))

        watched = (await http.get(f"/matches/{created.match_id}")).json()
        assert watched["state"] == "finished" and watched["version"] == streamed[-1]
        page = await http.get("/")
        assert page.status_code == 200 and "text/html" in page.headers["content-type"]

    # every call went through nginx, and both replicas served some
    used: dict[str, set[str]] = {}
    for line in balanced.access_log.read_text().splitlines():
        port, addresses = line.split(" ", 1)
        used.setdefault(port, set()).update(addresses.split(", "))
    grpc_port, http_port = balanced.grpc.rsplit(":", 1)[1], balanced.http.rsplit(":", 1)[1]
    assert used[grpc_port] == balanced.grpc_backends
    assert used[http_port] == balanced.http_backends


async def test_the_caller_s_address_reaches_the_service_through_nginx(tmp_path: Path) -> None:
    """nginx appends the address it was called from to X-Forwarded-For, for REST and gRPC
    alike, and a service that trusts nginx (and nobody else) counts each caller's quota
    by that address. Every address here is a loopback one: nginx calls the services from
    127.0.0.2, the trusted proxy; the callers come from 127.0.0.1 and 127.0.0.5."""
    trusting = ("--trusted-proxy", "127.0.0.2", "--quota-creates", "1")
    with (
        RedisServer(tmp_path / "redis", appendonly=False) as redis,  # counts of its own
        nginx_in_front(redis.url, tmp_path, *trusting, bind="127.0.0.2") as balanced,
    ):
        async with grpc.aio.insecure_channel(balanced.grpc) as channel:
            stub = pb_grpc.MatchServiceStub(channel)  # type: ignore[no-untyped-call]
            request = pb.CreateMatchRequest(preset=pb.PRESET_CLASSIC, seats=2)
            await stub.CreateMatch(request, timeout=20)
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await stub.CreateMatch(request, timeout=20)
            assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        body = {"preset": "classic", "players": 2, "seat": None}
        # the same caller over REST: its create is used up, whatever it claims to be
        async with httpx.AsyncClient(base_url=balanced.http, timeout=20) as http:
            forged = {"X-Forwarded-For": "198.51.100.1"}
            again = await http.post("/matches", json=body, headers=forged)
            assert again.status_code == 429 and again.json()["code"] == "quota_creates"
        # another caller has its own
        other = httpx.AsyncHTTPTransport(local_address="127.0.0.5")
        async with httpx.AsyncClient(base_url=balanced.http, timeout=20, transport=other) as http:
            assert (await http.post("/matches", json=body)).status_code == 201


async def test_one_address_past_nginx_s_limits_is_refused_with_a_reason(
    balanced: Balanced,
) -> None:
    """The load balancer's per-address limits: a burst of REST requests past the rate
    (30 a second, 120 at once) gets the service's refusal shape from nginx itself, and
    gRPC calls at once past 128 get RESOURCE_EXHAUSTED; another address is served."""
    async with httpx.AsyncClient(
        base_url=balanced.http, timeout=30, limits=httpx.Limits(max_connections=50)
    ) as http:
        assert (await http.get("/matches")).status_code == 200  # the honest path
        answers = await asyncio.gather(*(http.get("/matches") for _ in range(400)))
    statuses = {answer.status_code for answer in answers}
    assert statuses == {200, 429}, statuses
    refused = next(answer for answer in answers if answer.status_code == 429)
    assert refused.json()["code"] == "rate_limited" and refused.headers["Retry-After"] == "1"
    other = httpx.AsyncHTTPTransport(local_address="127.0.0.5")
    async with httpx.AsyncClient(base_url=balanced.http, timeout=20, transport=other) as http:
        assert (await http.get("/matches")).status_code == 200

    async with DaifugoClient(balanced.grpc, timeout=20) as client:
        created = await client.create_match("classic", 3)
    # three connections (nginx takes 128 streams at once on one)
    own = [("grpc.use_local_subchannel_pool", 1)]
    channels = [grpc.aio.insecure_channel(balanced.grpc, options=own) for _ in range(3)]
    calls = []
    try:
        for channel in channels:
            stub = pb_grpc.MatchServiceStub(channel)  # type: ignore[no-untyped-call]
            request = pb.StreamEventsRequest(match_id=created.match_id)
            seat = (("authorization", f"Bearer {created.seat_tokens[0]}"),)
            calls += [stub.StreamEvents(request, timeout=30, metadata=seat) for _ in range(60)]
        codes = await asyncio.gather(*(_first_answer(call) for call in calls))
    finally:
        for call in calls:
            call.cancel()
        for channel in channels:
            await channel.close()
    assert grpc.StatusCode.RESOURCE_EXHAUSTED in codes, codes
    assert codes.count(grpc.StatusCode.OK) >= 100  # the streams under the limit were served


async def _first_answer(call: grpc.aio.UnaryStreamCall) -> grpc.StatusCode:  # type: ignore[type-arg]
    """OK once a server stream gives its first message, else the status it ended with."""
    try:
        await call.read()
    except grpc.aio.AioRpcError as error:
        return error.code()
    return grpc.StatusCode.OK
