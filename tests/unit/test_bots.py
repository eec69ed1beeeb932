"""The bots: they only ever answer with a legal action, under every preset and
random local rules; they are given a seat's View, never the MatchState; and
StrongerBot beats GreedyBot over a fixed sample of games."""

from __future__ import annotations

import ast
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from clients.bots import Bot, GreedyBot, RandomBot, StrongerBot
from service.app.selfplay import play_match
from service.rules import LOCAL_RULES, MatchState, RuleSet, rule_set
from service.rules.commands import SeatCommand
from service.rules.views import View
from tests.cores import map_on_cores

PRESETS = ("federation", "torasobi", "classic", "uecda")
CLIENTS = Path(__file__).resolve().parents[2] / "clients"


class Checked:
    """A bot as a policy that checks what it is given and what it answers."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.decisions = 0

    def __call__(self, view: View, actions: list[SeatCommand]) -> SeatCommand:
        assert type(view) is View
        assert view.viewer == f"seat {view.seat}" and view.hands is None
        assert not any(isinstance(a, MatchState) for a in (view, *actions))
        snapshot = list(actions)
        choice = self.bot(view, actions)
        assert actions == snapshot, f"{self.bot.name} changed the legal actions"
        assert any(choice is a for a in actions) or choice in actions, (
            f"{self.bot.name} answered {choice}, not one of {actions}"
        )
        self.decisions += 1
        return choice


def random_rules(rng: random.Random, preset: str) -> RuleSet:
    everything = rng.random() < 0.3
    options: dict[str, Any] = {
        name: everything or rng.random() < 0.5 for name in LOCAL_RULES if name != "eleven_back"
    }
    options["eleven_back"] = rng.choice([False, "strength", "order"])
    options["jokers"] = rng.choice([2, 2, 1, 0])
    options["games_per_set"] = rng.randint(1, 3)
    return rule_set(preset, options)


def make_bots(rng: random.Random, rules: RuleSet, players: int) -> list[Bot]:
    kinds: list[Bot] = []
    for seat in range(players):
        pick = rng.randrange(4)
        if pick == 0:
            kinds.append(RandomBot(seed=rng.randrange(1 << 30)))
        elif pick == 1:
            kinds.append(GreedyBot())
        elif pick == 2:
            # told the table's rules, or guessing from the preset's defaults
            known = rules if seat % 2 == 0 else None
            kinds.append(StrongerBot(known, safe=False))
        else:
            kinds.append(GreedyBot(avoid_forbidden=True, rules=rules))
    return kinds


@pytest.mark.parametrize("preset", PRESETS)
def test_bots_only_return_legal_actions(preset: str) -> None:
    rng = random.Random(f"bots-legal/{preset}")
    decided = {"random": 0, "greedy": 0, "stronger": 0}
    for match in range(40):
        rules = rule_set(preset, {"games_per_set": 2}) if match < 2 else random_rules(rng, preset)
        players = 4 if match < 2 else rng.randint(2, 5)
        bots = make_bots(rng, rules, players)
        policies = [Checked(bot) for bot in bots]
        play_match(rules, players, f"legal/{preset}/{match}".encode(), policies)
        for bot, policy in zip(bots, policies, strict=True):
            decided[bot.name] += policy.decisions
    assert all(decided.values()), decided


def _bot(kind: str, rules: RuleSet, seed: int) -> Bot:
    if kind == "random":
        return RandomBot(seed)
    if kind == "greedy":
        return GreedyBot()
    return StrongerBot(rules, safe=False)


def test_every_bot_plays_every_seat_alone() -> None:
    """A table of one kind of bot finishes its match (no bot stalls or errs)."""
    for preset in PRESETS:
        rules = rule_set(preset, {"games_per_set": 2})
        for kind in ("random", "greedy", "stronger"):
            policies = [Checked(_bot(kind, rules, seat)) for seat in range(4)]
            played = play_match(rules, 4, f"alone/{preset}".encode(), policies)
            assert len(played.state.results) == 2


def test_bots_are_policies_of_views_only() -> None:
    """The bot modules never import the decider, the legal actions generator or the
    dealing: what they know comes from the View they are given, and the public
    position it shows (``position_of``, no card in it), judged by the engine."""
    forbidden = {"decider", "legal", "dealing", "records", "shuffle", "app"}
    for name in ("bots.py", "strategy.py"):
        tree = ast.parse((CLIENTS / name).read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                parts = set(node.module.split("."))
                assert not parts & forbidden, f"{name} imports {node.module}"
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                assert node.func.id not in ("MatchState", "initial_state"), (
                    f"{name} makes a state of its own"
                )


def test_bots_reset_and_play_again() -> None:
    rules = rule_set("torasobi", {"games_per_set": 1})
    bots: list[Bot] = [StrongerBot(rules, safe=False), GreedyBot(), RandomBot(1), GreedyBot()]
    first = play_match(rules, 4, b"again", bots)
    for bot in bots:
        bot.reset()
    second = play_match(rules, 4, b"again", bots)
    assert first.state.results == second.state.results


def _mean(values: Sequence[int]) -> float:
    return sum(values) / len(values)


ARRANGEMENTS = ((0, 1), (1, 2), (2, 3), (3, 0), (0, 2), (1, 3))  # the StrongerBots' seats


def _strength_match(match: tuple[int, RuleSet, int]) -> tuple[tuple[int, ...], ...]:
    """Two StrongerBots (seated by the match's number) against two GreedyBots: the places
    of each game."""
    index, rules, number = match
    seats = ARRANGEMENTS[number % len(ARRANGEMENTS)]
    bots: list[Bot] = [GreedyBot() for _ in range(4)]
    for seat in seats:
        bots[seat] = StrongerBot(rules, safe=False)
    return play_match(rules, 4, f"strength/{index}/{number}".encode(), bots).state.results


def test_stronger_beats_greedy() -> None:
    """Two StrongerBots against two GreedyBots, seats rotated, four rule sets,
    fixed seeds: 480 games. Measured: average place 2.08 against 2.92, the
    StrongerBot pair ahead in 291 games and behind in 54 (84% of the games
    not tied). The assertions leave a wide margin for noise (the difference of
    averages varies by about 0.06 over 480 games) but fail if it plays like the
    baseline (a difference near 0 and 50%). How long a decision takes is
    bench.bots' to say, not a test's."""
    everything: dict[str, Any] = {
        name: True for name in LOCAL_RULES if name not in ("gekokujo", "tenpenchi")
    }
    everything["eleven_back"] = "strength"
    rule_sets = [
        rule_set("federation"),
        rule_set("torasobi"),
        rule_set("classic"),
        rule_set("torasobi", everything),
    ]
    stronger: list[int] = []
    greedy: list[int] = []
    ahead = behind = 0
    matches = [
        (index, rules, match) for index, rules in enumerate(rule_sets) for match in range(24)
    ]
    # the matches are played side by side, and counted in their order
    for (_, _, match), results in zip(matches, map_on_cores(_strength_match, matches), strict=True):
        seats = ARRANGEMENTS[match % len(ARRANGEMENTS)]
        for places in results:
            ours = [places[seat] for seat in range(4) if seat in seats]
            theirs = [places[seat] for seat in range(4) if seat not in seats]
            stronger += ours
            greedy += theirs
            ahead += sum(ours) < sum(theirs)
            behind += sum(ours) > sum(theirs)
    games = len(stronger) // 2
    assert games == 480
    assert _mean(greedy) - _mean(stronger) > 0.5, (_mean(stronger), _mean(greedy))
    assert ahead / (ahead + behind) > 0.7, (ahead, behind)
