"""The analysis of a finished match (clients/analysis.py): its searches are drawn from
each seat's own view only (the other seats' hidden cards dealt otherwise change
nothing), and the same match, game and playout budget always give the same analysis."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from typing import Any

import pytest

from clients import analysis
from clients.expert import Request
from service.app.match import stream_of
from service.app.service import MatchOptions
from service.rules.cards import add_cards, cards_of, mask_of
from service.rules.commands import Give
from service.rules.state import MatchState
from service.rules.views import View, Viewer, build_view
from service.rules.vocabulary import Phase

from ..service_support import isolated_service

PLAYOUTS = 24

Records = list[tuple[str, dict[str, Any]]]


async def _finished(players: int, seed: int, games: int = 1) -> Records:
    """A match played to its end through the service, each seat choosing at random
    among its legal actions."""
    rng = random.Random(seed)
    async with isolated_service(None, grpc_port=0, timers=False) as running:
        service = running.service
        created = await service.create(MatchOptions("classic", players, {}, games_per_set=games))
        await service.start(created.match_id, created.host_token)
        while True:
            match = await service.load(created.match_id)
            if match.over:
                break
            assert match.game.phase == Phase.IN_GAME and match.game.turn is not None
            token = created.seat_tokens[match.game.turn]
            actions = (await service.seen(created.match_id, token)).actions
            chosen = rng.choice(actions)
            await service.act(created.match_id, token, lambda seat, chosen=chosen: chosen)
        stored = await service.store.read(stream_of(created.match_id))
    return [(event.type, event.data) for event in stored]


@pytest.fixture(scope="module")
def records() -> Iterator[Records]:
    yield asyncio.run(_finished(4, 7))


def _requests(found: list[analysis.Decision]) -> list[tuple[int, Request | None]]:
    return [(decision.seq, decision.request) for decision in found]


def test_every_search_comes_from_the_seat_s_view_alone(
    records: Records, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Deal the cards of every seat but the viewer's otherwise (the same sizes) before
    each view is built: every decision's search is the same, samples, seed and all."""
    plain = analysis.decisions(records, None, PLAYOUTS)
    assert any(d.kind == analysis.Kind.JUDGED for d in plain)
    rng = random.Random(3)
    changed = 0

    def redealt(state: MatchState, viewer: Viewer, **options: Any) -> View:
        nonlocal changed
        seat = viewer.seat
        assert seat is not None  # only ever a seat's view: never a spectator's or the auditor's
        others = [s for s in range(state.players) if s != seat]
        pool = [card for s in others for card in cards_of(state.hands[s])]
        rng.shuffle(pool)
        hands = list(state.hands)
        for s in others:
            size = state.hands[s].bit_count()
            hands[s] = add_cards(0, mask_of(pool[:size]))
            pool = pool[size:]
        changed += tuple(hands) != state.hands
        other = state.copy()
        other.hands = tuple(hands)
        return build_view(other, viewer, **options)

    monkeypatch.setattr(analysis, "build_view", redealt)
    shuffled = analysis.decisions(records, None, PLAYOUTS)
    assert changed > 10  # the hidden cards really were dealt otherwise
    assert _requests(shuffled) == _requests(plain)


def test_the_same_budget_gives_the_same_analysis(records: Records) -> None:
    first = analysis.analyse(records, 1, PLAYOUTS)
    second = analysis.analyse(records, 1, PLAYOUTS)
    assert first == second
    assert first["code"] == analysis.code_digest() and first["playouts"] == PLAYOUTS
    judged = [move for move in first["moves"] if move["kind"] == "judged"]
    assert judged and all(move["loss"] >= 0 for move in judged)


def test_a_give_with_a_choice_is_judged_as_a_play_is() -> None:
    """In the second game's exchange the richer seats choose what to give: each such
    give is searched among the expert's candidate gives and the one given."""
    records = asyncio.run(_finished(4, 5, games=2))
    gives = [
        decision
        for decision in analysis.decisions(records, 2, PLAYOUTS)
        if isinstance(decision.taken, Give) and decision.legal > 1
    ]
    assert gives and all(decision.kind == analysis.Kind.JUDGED for decision in gives)
    for decision in gives:
        assert decision.request is not None
        candidates = decision.request.candidates
        assert decision.taken in candidates and all(isinstance(c, Give) for c in candidates)
        means = analysis.evaluate(decision.request)
        assert len(means) == len(candidates) and all(1 <= mean <= 4 for mean in means)


def test_labels_follow_the_documented_thresholds() -> None:
    assert analysis.label_of(0.0) is None
    assert analysis.label_of(0.249) is None
    assert analysis.label_of(0.25) == analysis.Label.INACCURACY
    assert analysis.label_of(0.5) == analysis.Label.MISTAKE
    assert analysis.label_of(1.0) == analysis.Label.BLUNDER
    assert analysis.label_of(3.0) == analysis.Label.BLUNDER
