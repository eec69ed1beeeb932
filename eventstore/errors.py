"""The errors the event store raises: one base class, one subclass per failure a caller handles."""

from __future__ import annotations


class EventStoreError(Exception):
    """Base class of every error raised by the event store."""


class ConcurrencyConflict(EventStoreError):
    """The stream's version is not the one the append expected; nothing was written."""

    def __init__(self, stream: str, expected_version: int, actual_version: int) -> None:
        super().__init__(
            f"stream {stream!r}: expected version {expected_version}, "
            f"actual version {actual_version}; nothing was written"
        )
        self.stream = stream
        self.expected_version = expected_version
        self.actual_version = actual_version


class RequestIdReused(EventStoreError):
    """The request_id was used before on this stream for a different request (another
    fingerprint): refused, nothing written."""

    def __init__(self, stream: str, request_id: str) -> None:
        super().__init__(
            f"stream {stream!r}: request id {request_id!r} was used for a different request; "
            "nothing was written"
        )
        self.stream = stream
        self.request_id = request_id


class StreamClosed(EventStoreError):
    """The stream ended with its closing event (model.CLOSING_TYPE, the seal): nothing is
    appended after it; nothing was written. A retry of an append that was stored (same
    request id and fingerprint) still returns that append, as a duplicate."""

    def __init__(self, stream: str, version: int) -> None:
        super().__init__(
            f"stream {stream!r} is closed at seq {version} by its seal; nothing was written"
        )
        self.stream = stream
        self.version = version


class StoreUnavailable(EventStoreError):
    """Redis could not be reached or did not answer in time.

    Raised before anything could be confirmed; an append that raised this may or may not
    have been applied (the reply may have been lost), so retry it with the same request_id:
    the store then writes it at most once.
    """


class CorruptEvent(EventStoreError):
    """A stored entry cannot be decoded (corrupt bytes, unknown format, bad id, a gap)."""

    def __init__(self, stream: str, seq: int, reason: str) -> None:
        super().__init__(f"stream {stream!r} seq {seq}: corrupt event: {reason}")
        self.stream = stream
        self.seq = seq
        self.reason = reason


class InvalidEvent(EventStoreError, ValueError):
    """An event (or stream id) given to the store is not storable: it is refused, not written."""


class CheckpointGap(EventStoreError):
    """A projection tried to apply an event past its checkpoint + 1: an event would be skipped."""

    def __init__(self, stream: str, position: int, seq: int) -> None:
        super().__init__(
            f"stream {stream!r}: checkpoint is at {position}, cannot apply seq {seq} "
            f"(seq {position + 1} would be skipped)"
        )
        self.stream = stream
        self.position = position
        self.seq = seq
