"""The gRPC KeysService: the public keys that sign receipts and seals (as GET /keys)."""

from __future__ import annotations

from typing import Any

from ..records import KeySet
from .gen.daifugo.v1 import keys_service_pb2 as pb
from .gen.daifugo.v1 import keys_service_pb2_grpc as pb_grpc


def signing_key_messages(keys: KeySet) -> list[pb.SigningKey]:
    messages = []
    for key in keys.oldest_first():
        message = pb.SigningKey(
            key_id=key.key_id,
            algorithm=pb.SIGNING_ALGORITHM_ED25519,
            public_key=key.public_key,
            valid_from_ms=key.valid_from,
        )
        if key.valid_to is not None:
            message.valid_to_ms = key.valid_to
        messages.append(message)
    return messages


class KeysServicer(pb_grpc.KeysServiceServicer):
    def __init__(self, keys: KeySet) -> None:
        # the keys are fixed for the life of the process: one answer for every call
        self._response = pb.ListSigningKeysResponse(keys=signing_key_messages(keys))

    async def ListSigningKeys(
        self, request: pb.ListSigningKeysRequest, context: Any
    ) -> pb.ListSigningKeysResponse:
        return self._response
