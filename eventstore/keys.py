"""Redis key layout. Every key of one stream shares the hash tag ``{<stream id>}``.

=================================  ======================================================
``<prefix>:{<stream>}:events``     the stream: entry ``<seq>-1`` holds event ``seq``
``<prefix>:{<stream>}:meta``       hash: ``head`` = ``"<seq> <hash>"`` of the last event,
                                   ``r:<request_id>`` = ``"<first_seq> <last_seq>"``, forever
``<prefix>:{<stream>}:snap``       hash of snapshots: ``<seq>`` (12 digits) -> body
``<prefix>:{<stream>}:snap-seq``   sorted set of those seqs, score = seq
``<prefix>:{<stream>}:snap-at``    sorted set of those seqs, score = the snapshot's time
``<prefix>:{__global__}:index``    sorted set of the open streams, score = registration number
``<prefix>:{__global__}:index-n``  counter handing out registration numbers
``<prefix>:{__global__}:closed``   the close log: sealed streams not archived yet, sorted
                                   set, score = close number (1, 2, ... in close order)
``<prefix>:{__global__}:closed-n`` counter handing out close numbers
``<prefix>:{__global__}:feed``     stream of hints ``s=<stream> v=<last seq>``, trimmed
``<prefix>:{cp:<name>}:positions`` a projection's checkpoints: hash stream -> last seq
``<prefix>:{cp:<name>}:closed-through`` its watermark over the close log: every stream
                                   closed up to that number applied, its position dropped
``<prefix>:{cp:<name>}:<suffix>``  keys of that projection's own state (same slot)
=================================  ======================================================
"""

from __future__ import annotations

from .errors import InvalidEvent

GLOBAL_TAG = "__global__"


def check_stream_id(stream: str) -> None:
    """Refuse stream ids that would break the shared hash tag of a stream's keys."""
    if not isinstance(stream, str) or not stream:
        raise InvalidEvent(f"stream id must be a non-empty str, got {stream!r}")
    if "{" in stream or "}" in stream:
        raise InvalidEvent(f"stream id {stream!r} must not contain '{{' or '}}'")


class Keys:
    """The key names of one store (one prefix)."""

    __slots__ = ("close_counter", "close_log", "feed", "index", "index_counter", "prefix")

    def __init__(self, prefix: str) -> None:
        if not prefix or "{" in prefix or "}" in prefix:
            raise ValueError(f"prefix must be non-empty without braces, got {prefix!r}")
        self.prefix = prefix
        self.index = f"{prefix}:{{{GLOBAL_TAG}}}:index"
        self.index_counter = f"{prefix}:{{{GLOBAL_TAG}}}:index-n"
        self.feed = f"{prefix}:{{{GLOBAL_TAG}}}:feed"
        self.close_log = f"{prefix}:{{{GLOBAL_TAG}}}:closed"
        self.close_counter = f"{prefix}:{{{GLOBAL_TAG}}}:closed-n"

    def events(self, stream: str) -> str:
        return f"{self.prefix}:{{{stream}}}:events"

    def meta(self, stream: str) -> str:
        return f"{self.prefix}:{{{stream}}}:meta"

    def snapshots(self, stream: str) -> tuple[str, str, str]:
        """A stream's snapshots: their bodies, their seqs, their times (one slot)."""
        tag = f"{self.prefix}:{{{stream}}}"
        return f"{tag}:snap", f"{tag}:snap-seq", f"{tag}:snap-at"

    def checkpoints(self, name: str) -> str:
        return self.projection(name, "positions")

    def watermark(self, name: str) -> str:
        return self.projection(name, "closed-through")

    def projection(self, name: str, suffix: str) -> str:
        if not name or "{" in name or "}" in name:
            raise ValueError(f"projection name must be non-empty without braces: {name!r}")
        return f"{self.prefix}:{{cp:{name}}}:{suffix}"
