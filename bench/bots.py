"""Bot strength: head-to-head matches played in-process with selfplay, two bots
of each kind at a four-player table, the seats rotated from match to match.
Prints figures; asserts nothing.

    .venv/bin/python -m bench.bots [--games N] [--jobs J] [--quick]

For each pairing and rule set it reports, per bot, the average place and the
share of games it finished 1st (大富豪), and the win rate: the share of games
where the first bot's seats' average place beats the second's (ties counted
apart). It also reports each bot's time per decision.
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from clients.bots import Bot, GreedyBot, RandomBot, StrongerBot
from service.app.selfplay import play_match
from service.rules import RuleSet, rule_set
from service.rules.commands import SeatCommand
from service.rules.rulesets import LOCAL_RULES
from service.rules.views import View
from service.rules.vocabulary import LocalRule

PLAYERS = 4
# where the first bot sits (the other two seats get the second bot), in turn
ARRANGEMENTS = ((0, 1), (1, 2), (2, 3), (3, 0), (0, 2), (1, 3))

BotFactory = Callable[[RuleSet, int], Bot]


def many_local_rules() -> RuleSet:
    """torasobi with every local rule on except those that end games early at
    random (gekokujō, tenpenchi), and eleven-back reading strength."""
    options: dict[str, Any] = {
        name: True for name in LOCAL_RULES if name not in (LocalRule.GEKOKUJO, LocalRule.TENPENCHI)
    }
    options["eleven_back"] = "strength"
    return rule_set("torasobi", options)


RULE_SETS: dict[str, Callable[[], RuleSet]] = {
    "federation": lambda: rule_set("federation"),
    "torasobi": lambda: rule_set("torasobi"),
    "classic": lambda: rule_set("classic"),
    "many-local-rules": many_local_rules,
}

FACTORIES: dict[str, BotFactory] = {
    "stronger": lambda rules, seed: StrongerBot(rules),
    "greedy": lambda rules, seed: GreedyBot(),
    "greedy+": lambda rules, seed: GreedyBot(avoid_forbidden=True, rules=rules),
    "random": lambda rules, seed: RandomBot(seed),
}


class Timed:
    """A bot as a selfplay policy, timing each decision."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.seconds = 0.0
        self.slowest = 0.0
        self.decisions = 0

    def __call__(self, view: View, actions: list[SeatCommand]) -> SeatCommand:
        started = time.perf_counter()
        choice = self.bot.choose(view, actions)
        spent = time.perf_counter() - started
        self.seconds += spent
        self.slowest = max(self.slowest, spent)
        self.decisions += 1
        return choice


@dataclass
class Tally:
    games: int = 0
    places: list[list[int]] = field(default_factory=lambda: [[], []])  # per side
    wins: int = 0  # side 0's seats' average place better
    ties: int = 0
    seconds: list[float] = field(default_factory=lambda: [0.0, 0.0])
    slowest: list[float] = field(default_factory=lambda: [0.0, 0.0])
    decisions: list[int] = field(default_factory=lambda: [0, 0])

    def add(self, other: Tally) -> None:
        self.games += other.games
        for side in (0, 1):
            self.places[side] += other.places[side]
            self.seconds[side] += other.seconds[side]
            self.slowest[side] = max(self.slowest[side], other.slowest[side])
            self.decisions[side] += other.decisions[side]
        self.wins += other.wins
        self.ties += other.ties


def play_one(args: tuple[str, str, str, int, int]) -> Tally:
    """One match of ``games_per_set`` games: bot ``first`` in two seats."""
    first, second, rules_name, match, games_per_set = args
    rules = RULE_SETS[rules_name]().with_options({"games_per_set": games_per_set})
    first_seats = ARRANGEMENTS[match % len(ARRANGEMENTS)]
    policies = []
    sides = []
    for seat in range(PLAYERS):
        side = 0 if seat in first_seats else 1
        name = first if side == 0 else second
        policies.append(Timed(FACTORIES[name](rules, match * PLAYERS + seat)))
        sides.append(side)
    seed = f"bench-bots/{rules_name}/{match}".encode()
    played = play_match(rules, PLAYERS, seed, policies)
    tally = Tally()
    for places in played.state.results:
        tally.games += 1
        mean = [0.0, 0.0]
        for seat, place in enumerate(places):
            tally.places[sides[seat]].append(place)
            mean[sides[seat]] += place / 2
        if mean[0] < mean[1]:
            tally.wins += 1
        elif mean[0] == mean[1]:
            tally.ties += 1
    for seat, policy in enumerate(policies):
        tally.seconds[sides[seat]] += policy.seconds
        tally.slowest[sides[seat]] = max(tally.slowest[sides[seat]], policy.slowest)
        tally.decisions[sides[seat]] += policy.decisions
    return tally


def head_to_head(
    first: str, second: str, rules_name: str, games: int, jobs: int, games_per_set: int = 5
) -> Tally:
    matches = max(1, math.ceil(games / games_per_set))
    work = [(first, second, rules_name, match, games_per_set) for match in range(matches)]
    total = Tally()
    if jobs > 1:
        with ProcessPoolExecutor(jobs) as pool:
            for tally in pool.map(play_one, work):
                total.add(tally)
    else:
        for item in work:
            total.add(play_one(item))
    return total


def report(first: str, second: str, rules_name: str, tally: Tally) -> str:
    lines = []
    for side, name in enumerate((first, second)):
        places = tally.places[side]
        mean = sum(places) / len(places)
        firsts = places.count(1) / len(places)
        ms = 1000 * tally.seconds[side] / max(1, tally.decisions[side])
        lines.append(
            f"  {name:>9}: average place {mean:.3f}, 1st {firsts:6.1%}, "
            f"{ms:.3f} ms/decision (slowest {1000 * tally.slowest[side]:.1f} ms; "
            f"{tally.decisions[side]} decisions)"
        )
    decided = tally.games - tally.ties
    rate = tally.wins / tally.games
    lines.append(
        f"  {first} seats beat {second} seats in {tally.wins}/{tally.games} games "
        f"({rate:.1%}; {tally.ties} ties; {tally.wins / max(1, decided):.1%} of decided games)"
    )
    return f"{first} vs {second} — {rules_name}, {tally.games} games\n" + "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=200, help="games per pairing and rule set")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("--quick", action="store_true", help="40 games each")
    parser.add_argument("--rules", nargs="*", default=list(RULE_SETS), choices=list(RULE_SETS))
    parser.add_argument(
        "--pairings",
        nargs="*",
        default=["stronger:greedy", "greedy:random", "stronger:greedy+"],
        help="first:second bot names (" + ", ".join(FACTORIES) + ")",
    )
    args = parser.parse_args(argv)
    games = 40 if args.quick else args.games
    for pairing in args.pairings:
        first, second = pairing.split(":")
        overall = Tally()
        for rules_name in args.rules:
            started = time.perf_counter()
            tally = head_to_head(first, second, rules_name, games, args.jobs)
            overall.add(tally)
            print(report(first, second, rules_name, tally))
            print(f"  ({time.perf_counter() - started:.1f} s)")
        if len(args.rules) > 1:
            print(report(first, second, "all rule sets", overall))
        print()


if __name__ == "__main__":
    main()
