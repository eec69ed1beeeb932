"""Rules engine speed: complete games per second with random legal players
(decide + evolve + legal actions on one core), the cost of one legal-actions
call, and greedy self-play with the bots deciding from the position (the expert's
playout path) beside the same bots given a View each action. Prints figures;
asserts nothing.

    .venv/bin/python -m bench.engine [--seconds S] [--compare]

Pin it to one core for a fair figure: ``taskset -c 1 .venv/bin/python -m bench.engine``.
``--compare`` also runs other public engines (bench/competitors/README.md).
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from clients.bots import GreedyBot
from clients.playouts import apply, play_out
from service.rules import (
    Deal,
    Folded,
    MatchState,
    RuleSet,
    decide,
    decide_and_fold,
    fold,
    initial_state,
    rule_set,
)
from service.rules import decider as decider_module
from service.rules.commands import Command
from service.rules.dealing import deck_for
from service.rules.events import GameEnded
from service.rules.legal import legal_actions
from service.rules.rulesets import LOCAL_RULES, all_local_rules_on
from service.rules.views import Viewer, build_view
from service.rules.vocabulary import Phase


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
                      time_legal: bool = False, refold: bool = False) -> Figures:  # fmt: skip
    """Random legal players play matches until ``seconds`` have passed: each action
    through ``decide_and_fold``, as the service's self-play does, or (``refold``)
    through ``decide`` and then ``fold`` of its events."""
    rng = random.Random(seed)
    deck = list(deck_for(rules))
    games = actions = 0
    timings: list[int] = []
    started = time.perf_counter()
    clock = time.perf_counter_ns
    state: MatchState = initial_state(rules, players)
    while time.perf_counter() - started < seconds:
        if state.phase == Phase.MATCH_OVER:
            state = initial_state(rules, players)
        if state.phase != Phase.IN_GAME:
            rng.shuffle(deck)
            command: Command = Deal(tuple(deck))
        else:
            if time_legal:
                before = clock()
                legal = legal_actions(state)
                timings.append(clock() - before)
            else:
                legal = legal_actions(state)
            command = legal[rng.randrange(len(legal))]
            actions += 1
        if refold:
            decided = decide(state, command)
            assert isinstance(decided, list)
            events: Sequence[object] = decided
            state = fold(state, decided)
        else:
            folded = decide_and_fold(state, command)
            assert isinstance(folded, Folded)
            events, state = folded.events, folded.state
        if state.phase != Phase.IN_GAME and state.game_number and state.turn is None:
            games += state.phase in ("game_over", "match_over") and _just_ended(events)
    return Figures(games, actions, time.perf_counter() - started, timings)


def play_bot_games(rules: RuleSet, players: int, seconds: float, through_views: bool,
                   seed: int = 1) -> Figures:  # fmt: skip
    """Greedy bots in every seat play matches until ``seconds`` have passed: each
    game a playout (``clients.playouts``: the seats decide from the position and
    their own hand), or (``through_views``) each seat given a ``View`` built for
    it, as a client is."""
    rng = random.Random(seed)
    deck = list(deck_for(rules))
    bot = GreedyBot(avoid_forbidden=True, rules=rules)
    games = actions = 0
    started = time.perf_counter()
    state: MatchState = initial_state(rules, players)
    while time.perf_counter() - started < seconds:
        if state.phase == Phase.MATCH_OVER:
            state = initial_state(rules, players)
        rng.shuffle(deck)
        folded = decide_and_fold(state, Deal(tuple(deck)))
        assert isinstance(folded, Folded)
        state = folded.state
        if through_views:
            while state.phase == Phase.IN_GAME:
                seat = state.turn
                assert seat is not None
                view = build_view(state, Viewer.of_seat(seat))
                state = apply(state, bot.choose(view, legal_actions(state)))
                actions += 1
        else:
            state, played = play_out(state)
            actions += played
        games += 1
    return Figures(games, actions, time.perf_counter() - started, [])


def _just_ended(events: Sequence[object]) -> bool:
    return any(isinstance(event, GameEnded) for event in events)


def report(label: str, figures: Figures) -> None:
    print(f"{label:<44} {figures.games_per_second:>9.1f} games/s"
          f"   {figures.actions / figures.games:>6.1f} actions/game"
          f"   {figures.actions / figures.seconds:>9.0f} actions/s")  # fmt: skip


# (driver, variable naming its checkout (None: a PyPI package), games)
COMPETITORS = (
    ("president_kilgour.py", "PRESIDENT_KILGOUR_SRC", 3000),
    ("daihugou_rl.py", "DAIHUGOU_RL_SRC", 1500),
    ("chefshatgym.py", None, 300),
    ("ai_president.py", "AI_PRESIDENT_SRC", 60),
    ("oneonone_daifugo.py", "ONEONONE_DAIFUGO_SRC", 30),
)
# a driver may need an interpreter of its own (e.g. chefshatgym's old pins)
PYTHON_FOR = {"chefshatgym.py": "CHEFSHATGYM_PYTHON"}


def compare_with_competitors() -> None:
    """Run every other engine's driver (bench/competitors/) on the same core."""
    here = Path(__file__).parent / "competitors"
    default_python = os.environ.get("BENCH_COMPETITOR_PYTHON", sys.executable)
    pin = ["taskset", "-c", "1"] if shutil.which("taskset") and (os.cpu_count() or 1) > 1 else []
    for driver, variable, games in COMPETITORS:
        python = os.environ.get(PYTHON_FOR.get(driver, ""), default_python)
        command = [*pin, python, str(here / driver), "--games", str(games)]
        if variable is not None:
            source = os.environ.get(variable)
            if not source or not Path(source).is_dir():
                print(f"{driver:<44} skipped: set {variable} to its checkout")
                continue
            command += ["--src", source]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        figure = re.search(r"games_per_s=([0-9.]+)", done.stdout)
        players = re.search(r"players=(\d+)", done.stdout)
        if figure is None:
            reason = (done.stderr.strip().splitlines() or ["no output"])[-1]
            print(f"{driver:<44} failed: {reason[:80]}")
            continue
        label = f"{driver.removesuffix('.py')}, {players.group(1) if players else '?'} players"
        print(f"{label:<44} {float(figure.group(1)):>9.1f} games/s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--compare", action="store_true", help="run other engines too")
    args = parser.parse_args()
    compiled = decider_module.__file__ is not None and not decider_module.__file__.endswith(".py")
    print(f"engine: {'compiled with mypyc' if compiled else 'pure Python'}")
    federation = rule_set("federation")
    report("federation, 4 players", play_random_games(federation, 4, args.seconds))
    report("federation, 4 players, decide then fold",
           play_random_games(federation, 4, args.seconds, refold=True))  # fmt: skip
    report("torasobi, 4 players", play_random_games(rule_set("torasobi"), 4, args.seconds))
    report("classic, 4 players", play_random_games(rule_set("classic"), 4, args.seconds))
    report(f"federation + all {len(LOCAL_RULES)} local rules, 4 players",
           play_random_games(all_local_rules_on(federation), 4, args.seconds))  # fmt: skip
    timed = play_random_games(federation, 4, args.seconds / 2, seed=2, time_legal=True)
    median = statistics.median(timed.legal_calls_ns) / 1000
    p99 = statistics.quantiles(timed.legal_calls_ns, n=100)[98] / 1000
    print(f"legal_actions, federation: median {median:.1f} µs, p99 {p99:.1f} µs "
          f"over {len(timed.legal_calls_ns)} calls")  # fmt: skip
    # the bots' own path: what a playout costs (side by side with a view per action)
    report("greedy self-play, federation, 5 players",
           play_bot_games(federation, 5, args.seconds, through_views=False))  # fmt: skip
    report("  the same, a View built per action",
           play_bot_games(federation, 5, args.seconds, through_views=True))  # fmt: skip
    if args.compare:
        compare_with_competitors()


if __name__ == "__main__":
    main()
