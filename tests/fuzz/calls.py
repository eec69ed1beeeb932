"""One fuzzed call over a raw channel: bytes in, the status and trailers out.
Streams are read to their first answer and then cancelled, so a live stream
does not keep the test waiting."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import grpc

from .methods import Method

# a method that waits by design gets a short deadline (running into it is an
# answer); any other gets a long one, so only a hang runs into it
WAITING_DEADLINE = 0.3
CALL_DEADLINE = 10.0

Metadata = tuple[tuple[str, str | bytes], ...]


@dataclass(frozen=True)
class Answer:
    code: grpc.StatusCode
    details: str
    trailers: Metadata
    responses: tuple[bytes, ...]

    def text(self) -> str:
        """Everything a refusal tells, for the leak checks."""
        values = [
            value.decode("latin-1") if isinstance(value, bytes) else value
            for _, value in self.trailers
        ]
        return "\n".join([self.details, *values])


def call(
    channel: grpc.Channel,
    method: Method,
    requests: Sequence[bytes],
    metadata: Metadata,
    timeout: float | None = None,
) -> Answer:
    """Send ``requests`` (one, unless the method streams requests) and answer."""
    if timeout is None:
        timeout = WAITING_DEADLINE if method.may_wait else CALL_DEADLINE
    try:
        if method.server_streaming:
            return _stream(channel, method, requests, metadata, timeout)
        if method.client_streaming:
            sent: Any = iter(requests)
            rpc: Any = channel.stream_unary(method.path)
        else:
            sent, rpc = requests[0], channel.unary_unary(method.path)
        response, done = rpc.with_call(sent, timeout=timeout, metadata=metadata)
        return Answer(done.code(), done.details() or "", _trailers(done), (response,))
    except grpc.RpcError as error:
        return _refused(error)


def _stream(
    channel: grpc.Channel,
    method: Method,
    requests: Sequence[bytes],
    metadata: Metadata,
    timeout: float,
) -> Answer:
    rpc: Any
    if method.client_streaming:
        sent: Any = iter(requests)
        rpc = channel.stream_stream(method.path)
    else:
        sent, rpc = requests[0], channel.unary_stream(method.path)
    stream = rpc(sent, timeout=timeout, metadata=metadata)
    try:
        first = next(stream)
    except StopIteration:
        return Answer(stream.code(), stream.details() or "", _trailers(stream), ())
    stream.cancel()  # it answered; a live stream would go on for ever
    return Answer(grpc.StatusCode.OK, "", (), (first,))


def _refused(error: grpc.RpcError) -> Answer:
    failed: Any = error  # a grpc.Call too, as every RpcError a call raises
    return Answer(failed.code(), failed.details() or "", _trailers(failed), ())


def _trailers(done: object) -> Metadata:
    trailers = getattr(done, "trailing_metadata", lambda: None)()
    return tuple((key, value) for key, value in trailers or ())
