"""An abandoned match ends like any match for the audit: its seed revealed and
its log sealed, so it audits valid, and a forged abandonment does not."""

from __future__ import annotations

import asyncio
import secrets

import pytest

from clients.bots import GreedyBot
from eventstore import RedisEventStore, StoredEvent
from service.app import STORE_PREFIX
from service.app.keyring import Keyring
from service.app.match import stream_of
from service.app.service import GameService, MatchOptions
from service.app.signing import ephemeral_signer
from service.audit import audit_events
from service.match import AbandonReason
from service.records import KeySet
from service.rules.legal import legal_actions
from service.rules.views import Viewer, build_view

from .matches import edited, rechain

Abandoned = tuple[list[StoredEvent], KeySet]


async def _abandoned(redis_url: str, *, actions: int, start: bool) -> Abandoned:
    """A match played ``actions`` actions into (``start``: started at all), then
    abandoned as idle, as stored."""
    store = RedisEventStore.from_url(redis_url, prefix=STORE_PREFIX)
    try:
        signer = ephemeral_signer()
        service = GameService(store, Keyring(secrets.token_bytes(32)), signer)
        options = MatchOptions("classic", 3, {}, games_per_set=2, open_seats=not start)
        made = await service.create(options)
        if start:
            await service.start(made.match_id, made.host_token)
            bot = GreedyBot()
            for _ in range(actions):
                match = await service.load(made.match_id)
                seat = match.game.turn
                assert seat is not None
                action = bot(
                    build_view(match.game, Viewer.of_seat(seat)), legal_actions(match.game)
                )
                await service.act(made.match_id, made.seat_tokens[seat], lambda _s, a=action: a)
        else:
            await service.join(made.match_id, "ann")
        before = await service.load(made.match_id)
        outcome = await service.abandon(made.match_id, AbandonReason.IDLE, "idle", before.version)
        assert outcome is not None
        # a second try (another replica) finds it abandoned already
        assert await service.abandon(made.match_id, AbandonReason.IDLE) is None
        events = await store.read(stream_of(made.match_id), 0)
        return events, signer.key_set()
    finally:
        await store.close()


@pytest.fixture(scope="module")
def mid_game(redis_url: str) -> Abandoned:
    return asyncio.run(_abandoned(redis_url, actions=5, start=True))


@pytest.fixture(scope="module")
def never_started(redis_url: str) -> Abandoned:
    return asyncio.run(_abandoned(redis_url, actions=0, start=False))


@pytest.mark.parametrize("which", ["mid_game", "never_started"])
def test_an_abandoned_match_ends_revealed_and_sealed_and_audits_valid(
    which: str, request: pytest.FixtureRequest
) -> None:
    events, keys = request.getfixturevalue(which)
    assert [event.type for event in events[-3:]] == [
        "MatchAbandoned",
        "SeedRevealed",
        "MatchSealed",
    ]
    abandoned = events[-3]
    assert abandoned.data["reason"] == "idle" and abandoned.data["last_seq"] == abandoned.seq - 1
    report = audit_events(events, keys)
    assert report.verdict == "valid", report.to_dict()
    for name in ("hash_chain", "seal", "seed_commitment", "blinding", "legality"):
        assert report.check(name).ok, report.check(name)
    blinded = report.check("blinding").detail["blinded"]
    assert blinded == 0 if which == "never_started" else blinded > 0  # the deal's


def test_an_abandonment_naming_another_seq_is_illegal(mid_game: Abandoned) -> None:
    events, _ = mid_game
    seq = events[-3].seq
    report = audit_events(rechain(edited(events, seq, last_seq=seq - 2)))
    legality = report.check("legality")
    assert not legality.ok and legality.first_bad_seq == seq
    assert legality.reason is not None and "last before it" in legality.reason


def test_an_abandonment_with_no_seed_revealed_is_illegal(mid_game: Abandoned) -> None:
    events, _ = mid_game
    report = audit_events(events[:-2])  # cut inside the append that abandoned it
    legality = report.check("legality")
    assert not legality.ok and legality.first_bad_seq == events[-2].seq
    assert legality.reason is not None and "written with MatchAbandoned" in legality.reason


def test_an_abandonment_of_unknown_reason_is_illegal(mid_game: Abandoned) -> None:
    events, _ = mid_game
    seq = events[-3].seq
    report = audit_events(rechain(edited(events, seq, reason="bored")))
    legality = report.check("legality")
    assert not legality.ok and legality.first_bad_seq == seq


def test_a_wrong_seed_revealed_at_an_unstarted_abandonment_fails_the_commitment(
    never_started: Abandoned,
) -> None:
    events, _ = never_started
    report = audit_events(rechain(edited(events, events[-2].seq, seed=secrets.token_hex(32))))
    commitment = report.check("seed_commitment")
    assert not commitment.ok and commitment.first_bad_seq == events[-2].seq
