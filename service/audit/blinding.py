"""The blinding check: every event holding a hidden field carries the nonce the
revealed seed gives its seq, and no other event carries one. Then the heads and
receipts given out during play revealed nothing hidden, and the nonces hide no
second meaning (``records.blinding``)."""

from __future__ import annotations

from collections.abc import Sequence

from ..match import SeedRevealed
from ..records import BLINDING, blinding_nonce, is_blinded
from .decoding import Decoded
from .report import CheckResult, failed, not_run, passed

NAME = "blinding"


def check_blinding(events: Sequence[Decoded]) -> CheckResult:
    if not events:
        return failed(NAME, None, "no events")
    seed = _revealed_seed(events)
    if seed is None:
        return not_run(NAME, "the match is not over: the seed that checks the nonces is secret")
    blinded = 0
    for item in events:
        stored = item.stored
        nonce = stored.data.get(BLINDING)
        if is_blinded(stored.type):
            if nonce != blinding_nonce(seed, stored.seq):
                return failed(
                    NAME, stored.seq, f"{stored.type} does not carry the nonce the seed gives"
                )
            blinded += 1
        elif nonce is not None:
            return failed(NAME, stored.seq, f"{stored.type} carries a nonce it has no use for")
    return passed(NAME, blinded=blinded)


def _revealed_seed(events: Sequence[Decoded]) -> bytes | None:
    for item in events:
        if isinstance(item.event, SeedRevealed):
            try:
                return bytes.fromhex(item.event.seed)
            except (TypeError, ValueError):
                return None  # the commitment check names it
    return None
