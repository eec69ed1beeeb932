"""The hash chain check: the log is the store's chain from seq 0, unbroken and
unaltered (the same rules as ``RedisEventStore.verify``, on an exported log)."""

from __future__ import annotations

from collections.abc import Sequence

from eventstore.hashing import recompute_hash
from eventstore.model import GENESIS_HASH, StoredEvent

from .report import CheckResult, failed, passed

NAME = "hash_chain"


def check_hash_chain(events: Sequence[StoredEvent]) -> CheckResult:
    if not events:
        return failed(NAME, None, "no events")
    stream = events[0].stream
    previous = GENESIS_HASH
    for expected, event in enumerate(events):
        if event.stream != stream:
            return failed(NAME, expected, f"an event of stream {event.stream!r} in {stream!r}")
        if event.seq != expected:
            if isinstance(event.seq, int) and event.seq > expected:
                return failed(NAME, expected, f"seq {expected} is missing")
            return failed(NAME, expected, f"seq {event.seq!r} where seq {expected} belongs")
        if event.prev_hash != previous:
            link = "the genesis hash" if expected == 0 else "the hash of the event before"
            return failed(NAME, expected, f"prev_hash is not {link} (a link is broken)")
        try:
            actual = recompute_hash(event)
        except (TypeError, ValueError, RecursionError) as error:
            return failed(NAME, expected, f"the event cannot be hashed: {error}")
        if actual != event.hash:
            return failed(NAME, expected, "hash does not match the contents (altered)")
        previous = event.hash
    return passed(NAME, head_hash=previous)
