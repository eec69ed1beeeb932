"""What the fuzzing aims at: a service with three matches in three states (live,
finished, not yet started) and every token of theirs, and what must not move:
each match's event stream head (its last seq and hash) in the store."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

import redis

from service.app.match import Match, stream_of
from service.app.service import CreatedMatch
from service.rules.cards import format_mask
from service.runtime import Running

from ..rest.support import advance, new_match
from .service_thread import ServiceThread

Heads = dict[str, bytes | None]  # match id -> its stream's "<seq> <hash>" head


async def set_up_matches(running: Running) -> tuple[CreatedMatch, CreatedMatch, CreatedMatch]:
    """A live torasobi match (4 seats, many local rules to reach), a finished
    classic one and a federation one created but not started."""
    live = await new_match(running, "torasobi", 4, games_per_set=10)  # rarely over
    await advance(running, live, 3)  # cards on the field: plays must beat them
    finished = await new_match(running, "classic", 2)
    await advance(running, finished, 500)
    assert (await running.service.load(finished.match_id)).over
    waiting = await new_match(running, "federation", 3, start=False)
    return live, finished, waiting


@dataclass
class FuzzTarget:
    service: ServiceThread
    live: CreatedMatch
    finished: CreatedMatch
    waiting: CreatedMatch  # its host token is never sent: starting it would be legitimate
    redis: redis.Redis

    @property
    def grpc_address(self) -> str:
        return f"127.0.0.1:{self.service.running.grpc_port}"

    @property
    def http_base(self) -> str:
        return f"http://127.0.0.1:{self.service.running.http_port}"

    @property
    def match_ids(self) -> tuple[str, ...]:
        return (self.live.match_id, self.finished.match_id, self.waiting.match_id)

    @property
    def offered_tokens(self) -> tuple[str, ...]:
        """Every real token the fuzzing may send: any seat, any host, any match."""
        return (
            self.live.host_token,
            *self.live.seat_tokens,
            self.finished.host_token,
            *self.finished.seat_tokens,
            *self.waiting.seat_tokens,
        )

    @property
    def secret_tokens(self) -> tuple[str, ...]:
        return (*self.offered_tokens, self.waiting.host_token)

    def heads(self) -> Heads:
        """Each match's stream head, read from Redis itself (not the service's cache)."""
        prefix = self.service.running.service.store.keys.prefix
        pipeline = self.redis.pipeline(transaction=False)
        for match_id in self.match_ids:
            pipeline.hget(f"{prefix}:{{{stream_of(match_id)}}}:meta", "head")
        return dict(zip(self.match_ids, pipeline.execute(), strict=True))

    def live_match(self) -> Match:
        return self.service.run(self.service.running.service.load(self.live.match_id))

    def seat_of(self, token: str | None) -> int | None:
        """The live match's seat whose token this is, if any."""
        if token in self.live.seat_tokens:
            return self.live.seat_tokens.index(token)
        return None


def hidden_from(match: Match, viewer_seat: int | None) -> set[str]:
    """Cards of ``match`` that ``viewer_seat`` may not see: other seats' hands, the
    blind and the unused cards (JK only while the viewer sees no joker: both are "JK")."""
    game = match.game
    if match.over:
        return set()  # everything is shown once the match is over
    others = [hand for seat, hand in enumerate(game.hands) if seat != viewer_seat]
    codes = [code for mask in (*others, game.blind, game.unused) for code in format_mask(mask)]
    hidden = set(codes)
    mine = format_mask(game.hands[viewer_seat]) if viewer_seat is not None else []
    if "JK" in mine or codes.count("JK") < match.rules.jokers:
        hidden.discard("JK")
    return hidden


OPAQUE_RUN = re.compile(r"[0-9A-Za-z+/=_-]{16,}")
MAX_CARD_CODE = 3


def leaked(text: str, secrets: Iterable[str], sent: bytes) -> set[str]:
    """Which ``secrets`` appear in ``text`` as whole words, unless the request itself
    carried them (a refusal may quote what it was sent)."""
    found = set()
    # a card code is a word of its own, never a piece of a signature, digest or token
    # (base64 runs hold "+AC/" by chance): those runs are opaque to the card check
    words = OPAQUE_RUN.sub(" ", text)
    for secret in secrets:
        if secret.encode() in sent:
            continue
        where = words if len(secret) <= MAX_CARD_CODE else text
        if re.search(rf"(?<![0-9A-Za-z_-]){re.escape(secret)}(?![0-9A-Za-z_-])", where):
            found.add(secret)
    return found
