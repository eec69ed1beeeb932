"""The expert bot: with a seed and a budget in playouts its moves repeat exactly,
and every move is one of the legal actions it was offered."""

from __future__ import annotations

from clients.bots import StrongerBot
from clients.expert import ExpertBot
from service.app.selfplay import play_match
from service.rules import rule_set
from service.rules.commands import SeatCommand
from service.rules.views import View


def _expert_match(seed: bytes) -> tuple[list[SeatCommand], list[object]]:
    rules = rule_set("torasobi").with_options({"games_per_set": 2})
    expert = ExpertBot(rules, playouts=30, seed=seed)
    moves: list[SeatCommand] = []

    def watched(view: View, actions: list[SeatCommand]) -> SeatCommand:
        choice = expert.choose(view, actions)
        assert choice in actions
        moves.append(choice)
        return choice

    bots = [watched, StrongerBot(rules), StrongerBot(rules), StrongerBot(rules)]
    played = play_match(rules, 4, b"expert-determinism", bots)
    return moves, list(played.events)


def test_same_seed_and_playouts_repeat_every_move() -> None:
    first_moves, first_events = _expert_match(b"seed")
    again_moves, again_events = _expert_match(b"seed")
    assert first_moves and first_moves == again_moves
    assert first_events == again_events


def test_a_search_spends_its_playout_budget_exactly() -> None:
    rules = rule_set("federation").with_options({"games_per_set": 1})
    expert = ExpertBot(rules, playouts=25, seed=b"budget")
    spent: list[int] = []

    def watched(view: View, actions: list[SeatCommand]) -> SeatCommand:
        choice = expert.choose(view, actions)
        if expert.last is not None:
            spent.append(expert.last.playouts)
            expert.last = None
        return choice

    play_match(rules, 5, b"expert-budget", [watched] + [StrongerBot(rules) for _ in range(4)])
    assert spent and set(spent) == {25}
