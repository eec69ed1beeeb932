"""Signed records' cost, side by side in one run: per record, the canonical JSON of a
receipt's payload, the raw Ed25519 sign and verify of those bytes, and the whole of
what the service and the auditor do (``Signer.receipt``: clock, key, encoding, sign;
``verify`` of the record's JSON: checks, encoding, Ed25519), and, for scale, the
hash chain's sha256 of one event envelope. Prints figures (median of the rounds, µs
per record); asserts nothing.

    .venv/bin/python -m bench.signing [--records N] [--rounds R]
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import time
from collections.abc import Callable, Sequence

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from eventstore.hashing import canonical_json, event_hash
from service.app.signing import Signer, generate_keys, now_ms
from service.records import KeySet, verify
from service.records.formats import payload_of

HEAD = hashlib.sha256(b"head").hexdigest()
DIGEST = hashlib.sha256(b"request").hexdigest()


def per_record_us(work: Callable[[int], object], records: int, rounds: int) -> float:
    """The median over rounds of µs per call of ``work(i)`` for i in range(records)."""
    samples = []
    for _ in range(rounds):
        started = time.perf_counter_ns()
        for number in range(records):
            work(number)
        samples.append((time.perf_counter_ns() - started) / records / 1000)
    return statistics.median(samples)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench.signing", description=__doc__)
    parser.add_argument("--records", type=int, default=5000, help="records per round")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    records, rounds = args.records, args.rounds

    signer = Signer(generate_keys(now_ms() - 1000))
    keys: KeySet = signer.key_set()
    private = signer.keys.signing_key(now_ms()).private_key
    public = Ed25519PublicKey.from_public_bytes(signer.keys.published[-1].public_key)
    signed = [signer.receipt("0123456789abcdef", n, n + 2, HEAD, DIGEST) for n in range(records)]
    wire = [record.to_dict() for record in signed]
    payloads = [canonical_json(payload_of(record.record)) for record in signed]
    signatures = [record.signature for record in signed]
    data = {"seat": 1, "cards": ["3S", "3H"], "jokers_as": [], "reason": "play"}

    match_id, stream = "0123456789abcdef", "m:0123456789abcdef"

    def encode(n: int) -> bytes:
        return canonical_json(payload_of(signed[n].record))

    def receipt(n: int) -> object:
        return signer.receipt(match_id, n, n + 2, HEAD, DIGEST)

    def chain_hash(n: int) -> str:
        return event_hash(stream, n, "CardsPlayed", 1, 1_700_000_000_000, "r", data, HEAD)

    figures: list[tuple[str, Callable[[int], object]]] = [
        ("canonical JSON of a receipt's payload", encode),
        ("Ed25519 sign of those bytes", lambda n: private.sign(payloads[n])),
        ("Signer.receipt (the service's whole cost)", receipt),
        ("Ed25519 verify of those bytes", lambda n: public.verify(signatures[n], payloads[n])),
        ("verify(record JSON) (the auditor's whole cost)", lambda n: verify(wire[n], keys)),
        ("sha256 of one event envelope (hash chain)", chain_hash),
    ]
    print(f"signed records: {records} records x {rounds} rounds, median µs per record")
    for name, work in figures:
        print(f"  {name:<48} {per_record_us(work, records, rounds):8.1f}")
    genuine = sum(verify(record, keys).ok for record in wire)
    print(f"  ({genuine} of {records} records verified)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
