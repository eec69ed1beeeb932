"""Real matches for the audit tests: played by bots through ``GameService`` on
a real Redis (the store the CLI reads), then read back as stored."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from clients.bots import Bot, GreedyBot, RandomBot, StrongerBot
from eventstore import GENESIS_HASH, RedisEventStore, StoredEvent, event_hash
from service.app import STORE_PREFIX
from service.app.keyring import Keyring
from service.app.match import stream_of
from service.app.service import GameService, MatchOptions
from service.app.signing import ephemeral_signer
from service.records import KeySet
from service.rules.commands import SeatCommand
from service.rules.legal import legal_actions
from service.rules.rulesets import LOCAL_RULES
from service.rules.views import Viewer, build_view


@dataclass(frozen=True)
class PlayedLog:
    match_id: str
    events: list[StoredEvent]
    keys: KeySet = field(default_factory=lambda: KeySet([]))  # the keys that signed
    receipts: list[dict[str, Any]] = field(default_factory=list)  # every answer's, in order


# the torasobi room with every one of its local rules on
TORASOBI_ALL = {**{name: True for name in LOCAL_RULES}, "eleven_back": "order"}


async def play(
    redis_url: str,
    options: MatchOptions,
    bots: Sequence[Bot],
    joiner_seeds: Sequence[bytes] = (),
    time_out_every: int = 0,
) -> PlayedLog:
    """A whole match through the service: created (or joined, for open seats,
    each joiner contributing ``joiner_seeds``), started, and played by ``bots``;
    every ``time_out_every``-th turn is left to time out instead."""
    store = RedisEventStore.from_url(redis_url, prefix=STORE_PREFIX)
    try:
        signer = ephemeral_signer()
        service = GameService(store, Keyring(secrets.token_bytes(32)), signer)
        receipts: list[dict[str, Any]] = []
        made = await service.create(options)
        assert made.receipt is not None
        receipts.append(made.receipt.to_dict())
        match_id = made.match_id
        tokens = list(made.seat_tokens)
        for joiner in range(options.players if options.open_seats else 0):
            seed = joiner_seeds[joiner] if joiner < len(joiner_seeds) else b""
            seated = await service.join(match_id, f" player {joiner} ", seed)
            assert seated.token is not None
            tokens.append(seated.token)
            receipts += [receipt.to_dict() for receipt in seated.receipts]
        started = await service.start(match_id, made.host_token)
        assert started.receipt is not None
        receipts.append(started.receipt.to_dict())
        turns = 0
        while not (match := await service.load(match_id)).over:
            seat = match.game.turn
            assert seat is not None
            turns += 1
            if time_out_every and turns % time_out_every == 0:
                assert await service.time_out(match_id, match.version) is not None
                continue
            view = build_view(match.game, Viewer.of_seat(seat))
            action = bots[seat](view, legal_actions(match.game))
            outcome = await service.act(match_id, tokens[seat], _always(action))
            assert outcome.receipt is not None
            receipts.append(outcome.receipt.to_dict())
        events = await store.read(stream_of(match_id), 0)
        return PlayedLog(match_id, events, signer.key_set(), receipts)
    finally:
        await store.close()


def _always(action: SeatCommand) -> Callable[[int], SeatCommand]:
    return lambda _seat: action


async def play_all(redis_url: str) -> dict[str, PlayedLog]:
    """One finished match of each preset, between them: blind cards (federation
    with four), unused cards (two players), client seeds, open seats, timed-out
    turns, every local rule (torasobi) and seats drawn again (uecda)."""
    federation = await play(
        redis_url,
        MatchOptions("federation", 4, {}, games_per_set=3),
        [GreedyBot(), RandomBot(1), StrongerBot(), GreedyBot()],
    )
    torasobi = await play(
        redis_url,
        MatchOptions(
            "torasobi", 5, TORASOBI_ALL, games_per_set=3, turn_seconds=30, open_seats=True
        ),
        [GreedyBot(), RandomBot(2), GreedyBot(), RandomBot(3), GreedyBot()],
        joiner_seeds=[b"alice", b"", b"carol", b"dave", b"erin"],
        time_out_every=7,
    )
    classic = await play(
        redis_url,
        MatchOptions("classic", 2, {}, games_per_set=2, client_seeds=(b"one", b"two")),
        [GreedyBot(), RandomBot(4)],
    )
    # seven games: seats are drawn again before games 1, 4 and 7
    uecda = await play(
        redis_url,
        MatchOptions("uecda", 5, {}, games_per_set=7, turn_seconds=30),
        [StrongerBot(), GreedyBot(), RandomBot(5), GreedyBot(), StrongerBot()],
        time_out_every=11,
    )
    return {"federation": federation, "torasobi": torasobi, "classic": classic, "uecda": uecda}


def rechain(events: Sequence[StoredEvent], renumber: bool = False) -> list[StoredEvent]:
    """``events`` with the hash chain recomputed (and seqs renumbered 0..), as a
    forger who can rewrite the whole log would."""
    out: list[StoredEvent] = []
    previous = GENESIS_HASH
    for index, event in enumerate(events):
        seq = index if renumber else event.seq
        linked = replace(event, seq=seq, prev_hash=previous)
        digest = event_hash(
            linked.stream, seq, linked.type, linked.schema, linked.at, linked.request_id,
            linked.data, previous,
        )  # fmt: skip
        out.append(replace(linked, hash=digest))
        previous = digest
    return out


def edited(events: Sequence[StoredEvent], seq: int, **data: object) -> list[StoredEvent]:
    """``events`` with fields of event ``seq``'s data changed (the chain left as it was)."""
    return [
        replace(event, data={**event.data, **data}) if event.seq == seq else event
        for event in events
    ]
