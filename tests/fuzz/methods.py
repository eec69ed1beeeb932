"""Every method of every service the server registers (its own, health,
reflection), from their descriptors: a method added to one of them is fuzzed
without a change here; the served list from reflection must match it."""

from __future__ import annotations

from dataclasses import dataclass

import grpc
from google.protobuf.descriptor import Descriptor, ServiceDescriptor
from google.protobuf.descriptor_pool import DescriptorPool
from grpc_health.v1 import health_pb2
from grpc_reflection.v1alpha import reflection_pb2
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
    ProtoReflectionDescriptorDatabase,
)

from service.grpc.gen.daifugo.v1 import arena_service_pb2 as arena_pb
from service.grpc.gen.daifugo.v1 import keys_service_pb2 as keys_pb
from service.grpc.gen.daifugo.v1 import match_service_pb2 as pb

SERVICES: tuple[ServiceDescriptor, ...] = (
    pb.DESCRIPTOR.services_by_name["MatchService"],
    keys_pb.DESCRIPTOR.services_by_name["KeysService"],
    arena_pb.DESCRIPTOR.services_by_name["ArenaService"],
    health_pb2.DESCRIPTOR.services_by_name["Health"],
    reflection_pb2.DESCRIPTOR.services_by_name["ServerReflection"],
)
# unary methods documented to wait (AwaitTurn: until the seat is to act); every
# server stream may stay open for live data
WAITING_UNARY = frozenset({"/daifugo.v1.MatchService/AwaitTurn"})


@dataclass(frozen=True)
class Method:
    path: str  # "/package.Service/Method", as on the wire
    request: Descriptor
    client_streaming: bool
    server_streaming: bool

    @property
    def may_wait(self) -> bool:
        """Whether running into the deadline is an answer (it waits by design)."""
        return self.server_streaming or self.path in WAITING_UNARY


def fuzzed_methods() -> list[Method]:
    return [
        Method(
            f"/{service.full_name}/{method.name}",
            method.input_type,
            method.client_streaming,
            method.server_streaming,
        )
        for service in SERVICES
        for method in service.methods
    ]


def served_paths(address: str) -> set[str]:
    """Every method the server lists through its reflection service."""
    with grpc.insecure_channel(address) as channel:
        database = ProtoReflectionDescriptorDatabase(channel)
        pool = DescriptorPool(database)
        services = [pool.FindServiceByName(name) for name in database.get_services()]
        return {
            f"/{service.full_name}/{method.name}"
            for service in services
            for method in service.methods
        }
