"""`daifugo health`: ask a running service's gRPC health service whether it serves.

For container health checks and probes that cannot speak gRPC themselves: the exit
status is 0 when the service answers SERVING within the timeout, 1 otherwise."""

from __future__ import annotations

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc


def check_health(target: str, service: str = "", timeout: float = 3.0) -> int:
    with grpc.insecure_channel(target) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        try:
            reply = stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=timeout)
        except grpc.RpcError as error:
            print(f"{target}: {error.code().name} {error.details() or ''}".rstrip())
            return 1
    status = health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)
    print(f"{target}: {status}")
    return 0 if reply.status == health_pb2.HealthCheckResponse.SERVING else 1
