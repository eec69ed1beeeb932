"""Between the API's messages and the service's values: actions, views,
events, and refusals as gRPC statuses with structured details."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, assert_never

import grpc
from google.protobuf import duration_pb2, struct_pb2
from google.rpc import error_details_pb2, status_pb2

from eventstore.cache import EncodedOnce

from ..app.errors import ErrorKind, ServiceError
from ..records import SignedRecord
from ..rules.commands import SeatCommand
from ..rules.refusals import Refused
from ..rules.views import View
from .actions import command_from_message
from .gen.daifugo.v1 import match_service_pb2 as pb
from .view_fields import message_fields

DOMAIN = "daifugo.v1"
MESSAGE_LIMIT = 300  # characters; each may take 12 bytes of trailer (UTF-8, %-encoded)
PRESETS = {
    pb.PRESET_FEDERATION: "federation",
    pb.PRESET_TORASOBI: "torasobi",
    pb.PRESET_CLASSIC: "classic",
    pb.PRESET_UECDA: "uecda",
}


def status_code(kind: ErrorKind) -> grpc.StatusCode:
    """The gRPC status of a kind of failure."""
    match kind:
        case ErrorKind.NOT_FOUND:
            return grpc.StatusCode.NOT_FOUND
        case ErrorKind.UNAUTHENTICATED:
            return grpc.StatusCode.UNAUTHENTICATED
        case ErrorKind.PERMISSION_DENIED:
            return grpc.StatusCode.PERMISSION_DENIED
        case ErrorKind.BAD_INPUT:
            return grpc.StatusCode.INVALID_ARGUMENT
        case ErrorKind.REFUSED:
            return grpc.StatusCode.FAILED_PRECONDITION
        case ErrorKind.BUSY:
            return grpc.StatusCode.ABORTED
        case ErrorKind.UNAVAILABLE:
            return grpc.StatusCode.UNAVAILABLE
        case ErrorKind.EXHAUSTED:
            return grpc.StatusCode.RESOURCE_EXHAUSTED
        case _:
            assert_never(kind)


def shortened(message: str) -> str:
    """A message that echoes huge input cut short: the status travels in trailers, and
    past their size limit the client sees RESOURCE_EXHAUSTED instead of the refusal."""
    if len(message) <= MESSAGE_LIMIT:
        return message
    return message[: MESSAGE_LIMIT - 1] + "…"


def receipt_json(receipt: SignedRecord | None) -> str:
    """A signed record as the API carries it: its JSON ("" for none)."""
    if receipt is None:
        return ""
    return json.dumps(receipt.to_dict(), sort_keys=True, separators=(",", ":"))


def rich_status(error: ServiceError) -> tuple[grpc.StatusCode, status_pb2.Status]:
    """The gRPC status of a refusal, with an ErrorInfo whose reason is the code (and a
    RetryInfo with when to try again, for a quota's)."""
    code = status_code(error.kind)
    metadata = {"code": error.code.value}
    if error.receipt is not None:
        metadata["receipt"] = receipt_json(error.receipt)
    info = error_details_pb2.ErrorInfo(reason=error.code.upper(), domain=DOMAIN, metadata=metadata)
    status = status_pb2.Status(code=code.value[0], message=shortened(error.message))
    status.details.add().Pack(info)
    if error.retry_after is not None:
        delay = duration_pb2.Duration(seconds=error.retry_after)
        status.details.add().Pack(error_details_pb2.RetryInfo(retry_delay=delay))
    return code, status


def command_maker(action: pb.Action) -> Callable[[int], SeatCommand]:
    """A function from the caller's seat to its command; bad notation raises
    ServiceError(bad_request) when it is called."""

    def make(seat: int) -> SeatCommand:
        try:
            return command_from_message(seat, action)
        except Refused as refused:
            raise ServiceError(refused.refusal.code, refused.refusal.message) from None

    return make


def struct_of(values: Mapping[str, Any]) -> struct_pb2.Struct:
    message = struct_pb2.Struct()
    message.update(values)
    return message


def _event_message(record: dict[str, Any]) -> pb.Event:
    data = {key: value for key, value in record.items() if key not in ("seq", "at", "type")}
    return pb.Event(
        seq=record["seq"], type=record["type"], data=struct_of(data), at_ms=record.get("at", 0)
    )


# An event as the API sends it, made once per shown record (GameService.visible: one per
# event and audience) for every answer and stream that sends it: its Struct is the dear
# part. Shared: read it or copy it into a message (a repeated field copies), never change it.
event_message = EncodedOnce(_event_message, 8192)


def view_message(
    view: View, turn_deadline_ms: int | None = None, into: pb.View | None = None
) -> pb.View:
    """The View message of ``view``, filled into ``into`` when given (an answer's own
    field: the answer then holds it without a copy of the whole), else a new one."""
    message = pb.View(**message_fields(view), turn_deadline_ms=turn_deadline_ms)
    # (an optional field given None is left unset: no seat, no turn, no deadline...)
    if into is not None:
        into.CopyFrom(message)  # cheap while the options are not in it yet
        message = into
    # A match's options never change and are the dear part of a View (a Struct of 41):
    # one Struct per options mapping (build_view shares one per rule set), copied in
    message.options.CopyFrom(_options_struct(view.options))
    return message


_options_struct = EncodedOnce(struct_of, 256)
