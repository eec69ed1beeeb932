"""The deterministic shuffle behind fair dealing (ARCHITECTURE.md, Fair dealing).

Each game's deck order comes from ``HMAC-SHA256(seed, game number)`` (with any
client-contributed seeds folded in), so anyone given the revealed seed can
recompute every deal. ``SHUFFLE_VERSION`` names this algorithm in events.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence

SHUFFLE_VERSION = "hmac-sha256-fisher-yates/1"


def game_key(seed: bytes, game_number: int, client_seeds: Sequence[bytes] = ()) -> bytes:
    message = b"daifugo/game/%d" % game_number
    for contribution in client_seeds:
        message += b"/" + hashlib.sha256(contribution).digest()
    return hmac.new(seed, message, hashlib.sha256).digest()


def _random_below(key: bytes, counter: list[int], bound: int) -> int:
    """An unbiased integer in [0, bound) from the HMAC stream (rejection sampling)."""
    limit = (1 << 64) - (1 << 64) % bound
    while True:
        block = hmac.new(key, counter[0].to_bytes(8, "big"), hashlib.sha256).digest()
        counter[0] += 1
        value = int.from_bytes(block[:8], "big")
        if value < limit:
            return value % bound


def shuffled(
    cards: Sequence[int], seed: bytes, game_number: int, client_seeds: Sequence[bytes] = ()
) -> tuple[int, ...]:
    """``cards`` in the order the game ``game_number`` deals them."""
    key = game_key(seed, game_number, client_seeds)
    order = list(cards)
    counter = [0]
    for index in range(len(order) - 1, 0, -1):
        other = _random_below(key, counter, index + 1)
        order[index], order[other] = order[other], order[index]
    return tuple(order)


def commitment(seed: bytes) -> str:
    """What ``MatchCreated`` publishes before any client seed: sha256 of the secret seed."""
    return hashlib.sha256(seed).hexdigest()
