"""Rules engine speed: complete games per second with random legal players
(decide + evolve + legal actions on one core), and the cost of one
legal-actions call. Prints figures; asserts nothing.

    .venv/bin/python -m bench.engine [--seconds S] [--competitors]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from dataclasses import dataclass

from service.rules import Deal, MatchState, RuleSet, decide, fold, initial_state, rule_set
from service.rules.dealing import deck_for
from service.rules.legal import legal_actions
from service.rules.rulesets import all_local_rules_on
from service.rules.state import IN_GAME, MATCH_OVER


@dataclass
class Figures:
    games: int
    actions: int
    seconds: float
    legal_calls_ns: list[int]

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds


def play_random_games(rules: RuleSet, players: int, seconds: float, seed: int = 1,
                      time_legal: bool = False) -> Figures:  # fmt: skip
    """Random legal players play matches until ``seconds`` have passed."""
    rng = random.Random(seed)
    deck = list(deck_for(rules))
    games = actions = 0
    timings: list[int] = []
    started = time.perf_counter()
    clock = time.perf_counter_ns
    state: MatchState = initial_state(rules, players)
    while time.perf_counter() - started < seconds:
        if state.phase == MATCH_OVER:
            state = initial_state(rules, players)
        if state.phase != IN_GAME:
            rng.shuffle(deck)
            events = decide(state, Deal(tuple(deck)))
        else:
            if time_legal:
                before = clock()
                legal = legal_actions(state)
                timings.append(clock() - before)
            else:
                legal = legal_actions(state)
            events = decide(state, legal[rng.randrange(len(legal))])
            actions += 1
        assert isinstance(events, list)
        state = fold(state, events)
        if state.phase != IN_GAME and state.game_number and state.turn is None:
            games += state.phase in ("game_over", "match_over") and _just_ended(events)
    return Figures(games, actions, time.perf_counter() - started, timings)


def _just_ended(events: list[object]) -> bool:
    return any(type(event).__name__ == "GameEnded" for event in events)


def report(label: str, figures: Figures) -> None:
    print(f"{label:<44} {figures.games_per_second:>9.1f} games/s"
          f"   {figures.actions / figures.games:>6.1f} actions/game")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    federation = rule_set("federation")
    report("federation, 4 players", play_random_games(federation, 4, args.seconds))
    report("torasobi, 4 players", play_random_games(rule_set("torasobi"), 4, args.seconds))
    report("classic, 4 players", play_random_games(rule_set("classic"), 4, args.seconds))
    report("federation + all 26 local rules, 4 players",
           play_random_games(all_local_rules_on(federation), 4, args.seconds))  # fmt: skip
    timed = play_random_games(federation, 4, args.seconds / 2, seed=2, time_legal=True)
    median = statistics.median(timed.legal_calls_ns) / 1000
    p99 = statistics.quantiles(timed.legal_calls_ns, n=100)[98] / 1000
    print(f"legal_actions, federation: median {median:.1f} µs, p99 {p99:.1f} µs "
          f"over {len(timed.legal_calls_ns)} calls")  # fmt: skip


if __name__ == "__main__":
    main()
