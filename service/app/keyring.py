"""Seat tokens, host tokens and dealing seeds, derived from one server key.

Nothing secret is stored per match: each token and seed is an HMAC of the
match id under the server key (a random 32-byte secret created once and kept
by the ``ServerKey`` port, eventstore/server_key.py), so a retried create
returns the same tokens, and a lost reply loses nothing. Tokens never enter events, logs or views.
"""

from __future__ import annotations

import base64
import hmac
import re
import secrets
from dataclasses import dataclass
from typing import Literal

from eventstore.cache import BoundedCache

TOKEN_CHARS = 43  # a token: 32 bytes of HMAC in unpadded URL-safe base64
# (a pattern: a tenth of a character-by-character test's cost, paid by every action)
_TOKEN_FORM = re.compile(f"[A-Za-z0-9_-]{{{TOKEN_CHARS}}}")
RECENT_MATCHES = 4096  # matches whose tokens are kept derived


def looks_like_token(text: str) -> bool:
    """Whether ``text`` has a token's form (any caller's string: of any length or
    characters); only ``identify`` says whose it is."""
    return _TOKEN_FORM.fullmatch(text) is not None


@dataclass(frozen=True, slots=True)
class Role:
    kind: Literal["host", "seat"]
    seat: int | None = None


HOST = Role("host")


class Keyring:
    def __init__(self, server_key: bytes) -> None:
        if len(server_key) < 32:
            raise ValueError("the server key needs at least 32 bytes")
        self._key = server_key
        self._recent = BoundedCache[tuple[str, int], tuple[tuple[Role, str], ...]](RECENT_MATCHES)
        self._seeds = BoundedCache[str, bytes](RECENT_MATCHES)

    def _derive(self, *parts: str) -> bytes:
        return hmac.digest(self._key, "\x1f".join(parts).encode(), "sha256")

    def token(self, match_id: str, role: Role) -> str:
        name = "host" if role.kind == "host" else f"seat:{role.seat}"
        return base64.urlsafe_b64encode(self._derive("token", match_id, name)).decode().rstrip("=")

    def invite(self, match_id: str, seat: int) -> str:
        """The secret of the invite link to open seat ``seat``: ``<seat>.<mac>``,
        exchanged once for the seat's token (the exchange seats someone, so a
        second use finds the seat taken)."""
        mac = self._derive("invite", match_id, str(seat))[:18]
        return f"{seat}.{base64.urlsafe_b64encode(mac).decode()}"

    def invited_seat(self, match_id: str, secret: str, players: int) -> int | None:
        """The seat an invite secret is for (compared in constant time), or None."""
        if not secret.isascii():  # every invite is ASCII; compare_digest takes no other str
            return None
        seat_text, dot, _ = secret.partition(".")
        if not dot or not seat_text.isascii() or not seat_text.isdigit() or len(seat_text) > 2:
            return None
        if int(seat_text) >= players:
            return None
        expected = self.invite(match_id, int(seat_text))
        return int(seat_text) if hmac.compare_digest(expected.encode(), secret.encode()) else None

    def rematch_request(self, match_id: str) -> str:
        """The request id of a finished match's one rematch: the service's secret, so no
        caller can open a table of that id first, and every seat's rematch is the same."""
        return base64.urlsafe_b64encode(self._derive("rematch", match_id)).decode().rstrip("=")

    def rematch_id(self, match_id: str) -> str:
        """The id the rematch of ``match_id`` has once opened (as a create of its request)."""
        return self.match_id(self.request_digest("create", self.rematch_request(match_id)))

    def seed(self, match_id: str) -> bytes:
        """The match's secret dealing seed (committed at start, revealed at the end)."""
        # asked on every action (its blinding of hidden fields): an HMAC once per match
        seed = self._seeds.get(match_id)
        if seed is None:
            seed = self._seeds.put(match_id, self._derive("seed", match_id))
        return seed

    def match_id(self, request_digest: str) -> str:
        """A new match's id: random, or derived from the create's request digest so a
        retried create lands on the same match."""
        if not request_digest:
            return secrets.token_hex(8)
        return self._derive("match", request_digest).hex()[:16]

    def request_digest(self, scope: str, request_id: str) -> str:
        """The id the store and the envelopes see for a caller's request id: keyed, so
        it reveals nothing of the raw id, and scoped (``seat:<n>``, ``host``, ``create``,
        ``join``), so no caller's id meets another's. Hex only: the service's own ids
        (``service:...``) are of a form no digest has."""
        return self._derive("request", scope, request_id).hex()[:32]

    def identify(self, match_id: str, token: str, players: int) -> Role | None:
        """Whose token this is (compared in constant time), or None: any string, of
        any length or characters (compare_digest refuses a str that is not ASCII)."""
        if not token.isascii():
            return None
        found = None
        for role, expected in self._tokens(match_id, players):
            if hmac.compare_digest(expected, token):
                found = role
        return found

    def _tokens(self, match_id: str, players: int) -> tuple[tuple[Role, str], ...]:
        # every call of a match asks: derive its tokens once (an HMAC per role)
        key = (match_id, players)
        tokens = self._recent.get(key)
        if tokens is None:
            roles = (HOST, *(Role("seat", seat) for seat in range(players)))
            tokens = self._recent.put(
                key, tuple((role, self.token(match_id, role)) for role in roles)
            )
        return tokens
