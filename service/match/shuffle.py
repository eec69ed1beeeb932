"""The deterministic shuffle behind fair dealing (ARCHITECTURE.md, Fair dealing).

Each game's deck order comes from ``HMAC-SHA256(seed, game number)`` (with any
client-contributed seeds folded in), so anyone given the revealed seed can
recompute every deal. ``SHUFFLE_VERSION`` names this algorithm in events.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence

from ..rules import Deal, RuleSet
from ..rules.dealing import deck_for

SHUFFLE_VERSION = "hmac-sha256-fisher-yates/1"


def game_key(
    seed: bytes, game_number: int, client_seeds: Sequence[bytes] = (), draw: str = "game"
) -> bytes:
    """The key of one draw for one game: ``game`` the deck; the seating, the
    seat dealt first and the stalemate order have keys of their own."""
    message = b"daifugo/%s/%d" % (draw.encode(), game_number)
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
    cards: Sequence[int],
    seed: bytes,
    game_number: int,
    client_seeds: Sequence[bytes] = (),
    draw: str = "game",
) -> tuple[int, ...]:
    """``cards`` in the order the game ``game_number`` deals them (or, for
    another ``draw``, in the order that draw gives)."""
    key = game_key(seed, game_number, client_seeds, draw)
    order = list(cards)
    counter = [0]
    for index in range(len(order) - 1, 0, -1):
        other = _random_below(key, counter, index + 1)
        order[index], order[other] = order[other], order[index]
    return tuple(order)


def commitment(seed: bytes) -> str:
    """What ``MatchCreated`` publishes before any client seed: sha256 of the secret seed."""
    return hashlib.sha256(seed).hexdigest()


def game_deal(
    rules: RuleSet, players: int, seed: bytes, game_number: int, client_seeds: Sequence[str] = ()
) -> Deal:
    """The Deal of game ``game_number`` (``client_seeds`` in hex): its deck, and
    the other draws the rules use (docs/RULES.md §6), each from a key of its own so
    that none changes a deck. The service deals it; the auditor recomputes it."""
    contributions = [bytes.fromhex(seed_hex) for seed_hex in client_seeds]
    seats = range(players)

    def drawn(draw: str) -> tuple[int, ...]:
        return shuffled(seats, seed, game_number, contributions, draw)

    return Deal(
        shuffled(deck_for(rules), seed, game_number, contributions),
        seating=drawn("seating") if rules.seat_change_every else (),
        deal_start=drawn("deal_start")[0] if rules.deal_from_daifugo else 0,
        stalemate=drawn("stalemate") if rules.stalemate_passes else (),
    )
