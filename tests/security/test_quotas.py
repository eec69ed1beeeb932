"""Row C against a real `daifugo serve`: an anonymous caller creating table after table
of bots is refused past its quota (429 with its reason code and Retry-After over REST,
RESOURCE_EXHAUSTED with ErrorInfo and RetryInfo over gRPC), a forged X-Forwarded-For
does not make it someone else, games per set past the limit are refused in every field
they can be given in, and the service still answers everyone. Outcomes only: the
stored matches are counted, never timed."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import grpc
import httpx
import pytest
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_status import rpc_status

from eventstore import RedisEventStore, RedisServer
from service.grpc.gen.daifugo.v1 import match_service_pb2 as pb
from service.grpc.gen.daifugo.v1 import match_service_pb2_grpc as pb_grpc
from tests.serve_process import ServeProcess

CREATES = 3  # per caller, in the window below
BOTS_PER_CALLER = 10  # two tables of five bots
ATTACK = 30  # the attack sent 200


@pytest.fixture(scope="module")
def served(
    redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ServeProcess]:
    log = tmp_path_factory.mktemp("serve") / "serve.log"
    service = ServeProcess(
        redis_server.url,
        log,
        *("--quota-creates", str(CREATES), "--quota-create-window", "3600"),
        *("--quota-bots-per-caller", str(BOTS_PER_CALLER), "--quota-bots", "40"),
        *("--max-games-per-set", "100"),
    ).wait_ready()
    try:
        yield service
    finally:
        service.stop()


@pytest.fixture
async def channel(served: ServeProcess) -> AsyncIterator[grpc.aio.Channel]:
    async with grpc.aio.insecure_channel(served.grpc_target) as opened:
        yield opened


def _bot_table(games: int = 100, **more: Any) -> dict[str, Any]:
    """The attack's table: five bots, nobody else, a hundred games."""
    return {"preset": "classic", "players": 5, "bots": 5, "seat": None, "games_per_set": games}


async def _stored_matches(store: RedisEventStore) -> int:
    return sum(1 for stream in await store.streams(0, 10_000) if stream.startswith("m:"))


async def _answers(http: httpx.AsyncClient, channel: grpc.aio.Channel) -> bool:
    health = health_pb2_grpc.HealthStub(channel)
    reply = await health.Check(health_pb2.HealthCheckRequest(), timeout=10)
    listed = await http.get("/matches")
    return reply.status == health_pb2.HealthCheckResponse.SERVING and listed.status_code == 200


def _details(error: grpc.aio.AioRpcError) -> tuple[str, int | None]:
    """The ErrorInfo reason and the RetryInfo delay (s) of a refusal."""
    status = rpc_status.from_call(error)  # type: ignore[arg-type]
    assert status is not None
    reason, delay = "", None
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            reason = info.reason
        elif detail.Is(error_details_pb2.RetryInfo.DESCRIPTOR):
            retry = error_details_pb2.RetryInfo()
            detail.Unpack(retry)
            delay = retry.retry_delay.seconds
    return reason, delay


async def test_tables_of_bots_past_the_quota_are_refused_and_the_service_answers(
    served: ServeProcess,
    http: httpx.AsyncClient,
    channel: grpc.aio.Channel,
    store: RedisEventStore,
) -> None:
    before = await _stored_matches(store)
    answers = [await http.post("/matches", json=_bot_table()) for _ in range(ATTACK)]
    created = [answer for answer in answers if answer.status_code == 201]
    refused = [answer for answer in answers if answer.status_code != 201]
    # two tables fill the caller's bots; nothing more is created
    assert len(created) == BOTS_PER_CALLER // 5
    assert await _stored_matches(store) - before == len(created)
    assert all(answer.status_code == 429 for answer in refused)
    assert {answer.json()["code"] for answer in refused} == {"quota_bots"}
    assert all(int(answer.headers["Retry-After"]) > 0 for answer in refused)
    # a forged X-Forwarded-For from an untrusted peer is not another caller
    forged = await http.post(
        "/matches", json=_bot_table(), headers={"X-Forwarded-For": "203.0.113.9"}
    )
    assert forged.status_code == 429 and forged.json()["code"] == "quota_bots"
    assert await _answers(http, channel)
    # a refusal is no fault: no traceback logged for each (it was, formatted on the loop)
    assert "QuotaExceeded" not in served.log_tail(1 << 22)


async def test_creates_past_the_quota_are_refused_over_grpc_with_when_to_retry(
    http: httpx.AsyncClient, channel: grpc.aio.Channel, store: RedisEventStore
) -> None:
    stub = pb_grpc.MatchServiceStub(channel)  # type: ignore[no-untyped-call]
    outcomes: list[str] = []
    for _ in range(CREATES + 3):
        try:
            await stub.CreateMatch(
                pb.CreateMatchRequest(preset=pb.PRESET_CLASSIC, seats=2), timeout=10
            )
            outcomes.append("created")
        except grpc.aio.AioRpcError as error:
            assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            reason, delay = _details(error)
            assert reason == "QUOTA_CREATES" and delay is not None and delay > 0
            outcomes.append("refused")
    # the bot tables above counted as creates too
    assert outcomes.count("created") <= CREATES and outcomes[-3:] == ["refused"] * 3
    refused = await http.post("/matches", json={"preset": "classic", "players": 2})
    assert refused.status_code == 429 and refused.json()["code"] == "quota_creates"
    assert int(refused.headers["Retry-After"]) > 0
    assert await _answers(http, channel)


@pytest.mark.parametrize(
    "body",
    [
        {"preset": "classic", "players": 2, "games_per_set": 1000},
        {"preset": "classic", "players": 2, "options": {"games_per_set": 1000}},
        {"preset": "classic", "players": 2, "options": {"games_per_set": 101}},
    ],
)
async def test_games_per_set_past_the_limit_are_refused_wherever_given(
    http: httpx.AsyncClient, store: RedisEventStore, body: dict[str, Any]
) -> None:
    before = await _stored_matches(store)
    refused = await http.post("/matches", json=body)
    assert refused.status_code == 400, refused.text
    assert refused.json()["code"] == "too_many_games"
    assert await _stored_matches(store) == before


async def test_games_per_set_past_the_limit_are_refused_over_grpc(
    channel: grpc.aio.Channel,
) -> None:
    stub = pb_grpc.MatchServiceStub(channel)  # type: ignore[no-untyped-call]
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await stub.CreateMatch(
            pb.CreateMatchRequest(preset=pb.PRESET_CLASSIC, seats=2, games_per_set=1000),
            timeout=10,
        )
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert _details(refused.value)[0] == "TOO_MANY_GAMES"
