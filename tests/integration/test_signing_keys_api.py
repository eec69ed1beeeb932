"""The public signing keys over real REST (GET /keys) and real gRPC (KeysService),
from an in-process service and from a `daifugo serve` process given a key file:
both list every key, retired ones too, and what the service signs verifies
against what it publishes."""

from __future__ import annotations

import asyncio
import base64
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from service.app.signing import Signer, create_key_file, load_key_file, now_ms, rotate
from service.app.signing import write_key_file as write_keys
from service.grpc.gen.daifugo.v1 import keys_service_pb2 as pb
from service.grpc.gen.daifugo.v1 import keys_service_pb2_grpc as pb_grpc
from service.records import KeySet, verify
from tests.serve_process import ServeProcess

from ..service_support import isolated_service

HEAD, DIGEST = "e" * 64, "f" * 64


def rotated_signer(tmp_path: Path) -> Signer:
    path = tmp_path / "signing-keys.json"
    now = now_ms()
    write_keys(path, rotate(create_key_file(path, now - 10_000), now - 5_000))
    return Signer(load_key_file(path))


async def rest_keys(http_port: int) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{http_port}", timeout=30) as http:
        response = await http.get("/keys")
        assert response.status_code == 200, response.text
        assert response.headers["content-type"].startswith("application/json")
        body: dict[str, Any] = response.json()
        return body


async def grpc_keys(grpc_port: int) -> list[dict[str, Any]]:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{grpc_port}") as channel:
        stub = pb_grpc.KeysServiceStub(channel)  # type: ignore[no-untyped-call]
        response = await stub.ListSigningKeys(pb.ListSigningKeysRequest(), timeout=20)
    return [
        {
            "key_id": key.key_id,
            "algorithm": "Ed25519" if key.algorithm == pb.SIGNING_ALGORITHM_ED25519 else "?",
            "public_key": base64.b64encode(key.public_key).decode(),
            "valid_from": key.valid_from_ms,
            "valid_to": key.valid_to_ms if key.HasField("valid_to_ms") else None,
        }
        for key in response.keys
    ]


async def test_rest_and_grpc_publish_every_key_and_signed_records_verify(
    tmp_path: Path,
) -> None:
    signer = rotated_signer(tmp_path)
    async with isolated_service(
        None, grpc_port=0, http_port=0, timers=False, signer=signer
    ) as running:
        assert running.http_port is not None
        body = await rest_keys(running.http_port)
        expected = [key.to_dict() for key in signer.keys.published]
        assert body == {"keys": expected}
        assert [key["valid_to"] is None for key in body["keys"]] == [False, True]
        assert await grpc_keys(running.grpc_port) == expected

        published = KeySet.from_dict(body)
        for record in (
            running.signer.receipt("m1", 4, 6, HEAD, DIGEST),
            running.signer.refusal("m1", 6, HEAD, "not_stronger", DIGEST),
            running.signer.seal("m1", 40, HEAD),
        ):
            checked = verify(record.to_dict(), published)
            assert checked.ok and checked.key == signer.keys.published[-1]


async def test_the_openapi_schema_documents_get_keys() -> None:
    async with isolated_service(None, grpc_port=0, http_port=0, timers=False) as running:
        url = f"http://127.0.0.1:{running.http_port}/schema/openapi.json"
        async with httpx.AsyncClient(timeout=30) as http:
            schema = (await http.get(url)).json()
    operation = schema["paths"]["/keys"]["get"]
    assert "200" in operation["responses"] and operation["summary"]
    key = schema["components"]["schemas"]["SigningKey"]
    assert set(key["required"]) == {
        "key_id", "algorithm", "public_key", "valid_from", "valid_to"
    }  # fmt: skip
    assert key["properties"]["algorithm"]["const"] == "Ed25519"


async def test_the_keys_service_is_healthy_reflected_and_needs_no_token() -> None:
    async with isolated_service(None, grpc_port=0, timers=False) as running:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.grpc_port}") as channel:
            health = health_pb2_grpc.HealthStub(channel)
            answer = await health.Check(
                health_pb2.HealthCheckRequest(service="daifugo.v1.KeysService"), timeout=20
            )
            assert answer.status == health_pb2.HealthCheckResponse.SERVING
            reflection = reflection_pb2_grpc.ServerReflectionStub(channel)
            request = reflection_pb2.ServerReflectionRequest(list_services="")
            services = set()
            async for reply in reflection.ServerReflectionInfo(iter([request]), timeout=20):
                services |= {service.name for service in reply.list_services_response.service}
            assert "daifugo.v1.KeysService" in services
        # an ephemeral key for a run that was given none: one open key
        (key,) = await grpc_keys(running.grpc_port)
        assert key["valid_to"] is None and key["key_id"] == running.signer.keys.published[0].key_id


async def test_a_garbled_request_is_refused_as_invalid_argument() -> None:
    async with (
        isolated_service(None, grpc_port=0, timers=False) as running,
        grpc.aio.insecure_channel(f"127.0.0.1:{running.grpc_port}") as channel,
    ):
        call = channel.unary_unary("/daifugo.v1.KeysService/ListSigningKeys")
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await call(b"\xff\xff\xff", timeout=20)
        assert refused.value.code() is grpc.StatusCode.INVALID_ARGUMENT


async def test_a_serve_process_publishes_the_key_file_it_is_given(
    redis_url: str, tmp_path: Path
) -> None:
    key_file = tmp_path / "secret" / "signing-keys.json"
    signer = rotated_signer(key_file.parent)
    service = ServeProcess(redis_url, tmp_path / "serve.log", key_file=key_file)
    try:
        await asyncio.to_thread(service.wait_ready)
        expected = {"keys": [key.to_dict() for key in signer.keys.published]}
        assert await rest_keys(service.http_port) == expected
        assert await grpc_keys(service.grpc_port) == expected["keys"]
    finally:
        await asyncio.to_thread(service.stop)
