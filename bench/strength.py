"""The expert bot's strength, on duplicate deals: every deal is played once per
rotation of the seats (the expert in each seat in turn, four ``stronger`` bots in
the others), so the luck of the deal cancels. Prints, with 95% confidence
intervals over the deals, the expert's mean place, first-place rate and points;
then its playouts per second on one core. Seeded: the same arguments deal the
same games. Prints figures; asserts nothing.

    .venv/bin/python -m bench.strength [--deals N] [--jobs J] [--playouts P] [--compare]
        [--variants WORD...] [--series-playouts 50 500 5000] [--bought 10 100 1000]

``--playouts P`` measures the headline figures at a fixed budget of P playouts a
move as well (what 100 ms gives on a free core): on a shared machine 100 ms buys
fewer, and a playout budget plays the same games whatever the load. ``--bought``
prints only what a search spends at those ms a move on this core (run it on a free
one to choose P: the compiled install bought a median of 145 stronger playouts a search
in torasobi and 125 in uecda at 100 ms in one process, 292 and 207 split over two,
otherwise idle). ``--compare`` plays the
search's variants side by side at that budget, on the same deals.
``--variants`` plays only the variants whose label holds one of the words given.
``--series-playouts`` adds the strength-with-time series at playout budgets.

Run it on the compiled install (README.md, Speed): the playouts are the engine's.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from clients.bots import Bot, StrongerBot
from clients.expert import ExpertBot, Memory, Search, sample_hands, sampled_state
from clients.playouts import Rollout, apply, play_out_with
from clients.strategy import Table
from service.app.selfplay import play_match
from service.rules import rule_set
from service.rules.commands import SeatCommand
from service.rules.legal import legal_actions
from service.rules.views import View
from service.rules.vocabulary import Phase

PLAYERS = 5


DEFAULT_SEARCH = Search()
# the search as it was (greedy rollouts over five candidates, no halving) and each
# change since, for --compare
VARIANTS = {
    "greedy rollouts, no halving": Search(Rollout.GREEDY, halving=False, confidence=None),
    "greedy rollouts, halving": Search(Rollout.GREEDY, confidence=None),
    "shedding rollouts, no halving": Search(Rollout.SHEDDING, halving=False, confidence=None),
    "shedding rollouts, halving": Search(Rollout.SHEDDING, confidence=None),
    "planning rollouts, halving": Search(Rollout.PLANNING, confidence=None),
    "stronger rollouts, halving": Search(Rollout.STRONGER, confidence=None),
    "planning rollouts, halving, confidence": Search(Rollout.PLANNING),
    "stronger rollouts, halving, confidence (default)": Search(),
}


@dataclass(frozen=True)
class Budget:
    """Thinking a move: ms, or a fixed number of playouts."""

    ms: int | None = None
    playouts: int | None = None

    def __str__(self) -> str:
        return f"{self.ms} ms a move" if self.ms is not None else f"{self.playouts} playouts a move"


@dataclass(frozen=True)
class Seating:
    preset: str
    deal: int
    seat: int  # where the expert sits
    budget: Budget
    games: int  # games a match (the deal seeds them all)
    search: Search = DEFAULT_SEARCH
    shards: int = 1  # processes a search is split over (the expert's pool)


def play_seating(seating: Seating) -> list[tuple[int, int, int]]:
    """One match: per game, (deal, place, points) of the expert."""
    rules = rule_set(seating.preset).with_options({"games_per_set": seating.games})
    bots: list[Bot] = [StrongerBot(rules) for _ in range(PLAYERS)]
    bots[seating.seat] = ExpertBot(
        rules,
        budget_ms=seating.budget.ms,
        playouts=seating.budget.playouts,
        seed=f"strength/{seating.deal}".encode(),
        search=seating.search,
        shards=seating.shards,
    )
    seed = f"bench-strength/{seating.preset}/{seating.deal}".encode()
    played = play_match(rules, PLAYERS, seed, bots)
    rows = []
    for places in played.state.results:
        place = places[seating.seat]
        rows.append((seating.deal, place, PLAYERS - place + rules.points_for_last))
    return rows


@dataclass
class Figures:
    places: list[float]  # per deal: the mean over its rotations and games
    firsts: list[float]
    points: list[float]

    def line(self, label: str) -> str:
        return (
            f"{label:<34} place {_ci(self.places)}   1st {_ci(self.firsts, percent=True)}"
            f"   points {_ci(self.points)}   ({len(self.places)} deals)"
        )


def _ci(values: Sequence[float], percent: bool = False) -> str:
    mean = statistics.fmean(values)
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0
    if percent:
        return f"{mean:6.1%} ± {half:5.1%}"
    return f"{mean:5.2f} ± {half:4.2f}"


def strength(
    preset: str,
    budget: Budget,
    deals: int,
    games: int,
    jobs: int,
    search: Search = DEFAULT_SEARCH,
    shards: int = 1,
) -> Figures:
    work = [
        Seating(preset, deal, seat, budget, games, search, shards)
        for deal in range(deals)
        for seat in range(PLAYERS)
    ]
    rows: list[tuple[int, int, int]] = []
    if jobs > 1:
        with ProcessPoolExecutor(jobs) as pool:
            for found in pool.map(play_seating, work):
                rows += found
    else:
        for seating in work:
            rows += play_seating(seating)
    by_deal: dict[int, list[tuple[int, int]]] = {}
    for deal, place, points in rows:
        by_deal.setdefault(deal, []).append((place, points))
    figures = Figures([], [], [])
    for results in by_deal.values():
        figures.places.append(statistics.fmean(p for p, _ in results))
        figures.firsts.append(statistics.fmean(p == 1 for p, _ in results))
        figures.points.append(statistics.fmean(q for _, q in results))
    return figures


def playouts_per_second(
    preset: str, seconds: float, rollout: Rollout, seed: int = 1
) -> tuple[float, int]:
    """Full games played out from sampled positions (what the expert's search does)
    on this core: positions met in a stronger bots' match, each seen from the seat
    to act, its unseen cards dealt at random, played out to the game's end."""
    rules = rule_set(preset).with_options({"games_per_set": 3})
    rng = random.Random(seed)
    seen: list[View] = []
    bots = [StrongerBot(rules) for _ in range(PLAYERS)]

    def collect(view: View, actions: Sequence[SeatCommand]) -> SeatCommand:
        if view.waiting_for is not None and len(seen) < 400 and rng.random() < 0.3:
            seen.append(view)
        return bots[view.seat or 0].choose(view, actions)

    play_match(rules, PLAYERS, b"bench-strength/playouts", [collect] * PLAYERS)
    starts = []
    for view in seen:
        position = Table.for_view(view, rules).position(view)
        knowledge = Memory().knowledge(view, position)
        hands, rest = sample_hands(knowledge, rng)
        starts.append(sampled_state(position, hands, rest, rng))
    played = 0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        state = starts[played % len(starts)]
        if state.phase == Phase.IN_GAME:
            play_out_with(apply(state, legal_actions(state)[0]), None, rollout)
        played += 1
    return played / (time.perf_counter() - started), len(starts)


def playouts_bought(preset: str, ms: int, deals: int = 2, shards: int = 1) -> list[int]:
    """The playouts each search of the expert spends at ``ms`` a move on this core,
    in matches against four stronger bots: what to pass as ``--playouts`` (measured
    on a free core, as the machine's load makes it fewer)."""
    rules = rule_set(preset).with_options({"games_per_set": 2})
    spent: list[int] = []
    for deal in range(deals):
        seats: list[Callable[[View, Sequence[SeatCommand]], SeatCommand]]
        seats = [StrongerBot(rules) for _ in range(PLAYERS)]
        seats[deal % PLAYERS] = Counted(ExpertBot(rules, budget_ms=ms, shards=shards), spent)
        play_match(rules, PLAYERS, f"bench-strength/{preset}/{deal}".encode(), seats)
    return spent


@dataclass
class Counted:
    """An expert seat that notes each search's playouts."""

    expert: ExpertBot
    spent: list[int]

    def __call__(self, view: View, actions: Sequence[SeatCommand]) -> SeatCommand:
        choice = self.expert.choose(view, actions)
        if self.expert.last is not None:
            self.spent.append(self.expert.last.playouts)
            self.expert.last = None
        return choice


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--deals", type=int, default=12, help="deals per figure (x5 seats)")
    parser.add_argument("--games", type=int, default=2, help="games a match")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("--presets", nargs="*", default=["torasobi", "uecda"])
    parser.add_argument("--budgets", type=int, nargs="*", default=[10, 100, 1000],
                        help="ms a move for the strength-with-time series")  # fmt: skip
    parser.add_argument("--series-deals", type=int, default=4, help="deals for the series")
    parser.add_argument("--series-playouts", type=int, nargs="*", default=[],
                        help="the series at these playouts a move too (50 500 5000: "
                        "10, 100, 1,000 ms on a free core)")  # fmt: skip
    parser.add_argument("--playouts", type=int, default=None,
                        help="also at this many playouts a move (100 ms, free core)")  # fmt: skip
    parser.add_argument("--compare", action="store_true",
                        help="only the search's variants side by side at --playouts")  # fmt: skip
    parser.add_argument("--variants", nargs="*", default=None, metavar="LABEL",
                        help="with --compare: only the variants whose label holds one "
                        "of these words (default: all)")  # fmt: skip
    parser.add_argument("--bought", type=int, nargs="*", default=None, metavar="MS",
                        help="only the playouts a search spends at these ms a move "
                        "(100 10 1000), per preset, on this core")  # fmt: skip
    parser.add_argument("--shards", type=int, default=1,
                        help="split each search over this many processes (the expert's "
                        "pool; the service uses one a core); with --jobs 1")  # fmt: skip
    parser.add_argument("--skip-ms", action="store_true", help="no figure by time")
    parser.add_argument("--quick", action="store_true", help="3 deals, the series at 10, 100")
    args = parser.parse_args(argv)
    if args.quick:
        args.deals, args.series_deals, args.budgets = 3, 2, [10, 100]
    for rollout in Rollout:
        per_second, starts = playouts_per_second("federation", 3.0, rollout)
        used = ", the expert's" if rollout == DEFAULT_SEARCH.rollout else ""
        print(f"playouts ({rollout} rollouts{used}), 5 players, federation: {per_second:,.0f}/s "
              f"on one core (full games from {starts} sampled positions)")  # fmt: skip
    if args.bought is not None:
        for preset in args.presets:
            for ms in args.bought or [100]:
                spent = playouts_bought(preset, ms, shards=args.shards)
                median, mean = statistics.median(spent), statistics.fmean(spent)
                print(f"  {preset}, {ms} ms a move: {median:,.0f} playouts a search "
                      f"(median of {len(spent)}; mean {mean:,.0f})")  # fmt: skip
        return
    fair = f"duplicate deals x {PLAYERS} seats, {args.games} games a match; a fair 1st is 20%"
    if args.compare:
        budget = Budget(playouts=args.playouts or 500)
        print(f"the search's variants at {budget}, against four stronger bots, {fair}")
        for preset in args.presets:
            for label, search in VARIANTS.items():
                if args.variants and not any(word in label for word in args.variants):
                    continue
                started = time.perf_counter()
                figures = strength(preset, budget, args.deals, args.games, args.jobs, search)
                line = figures.line(f"  {preset}: {label}")
                print(line, f"{time.perf_counter() - started:.0f} s", flush=True)
        return
    budgets = [] if args.skip_ms else [Budget(ms=100)]
    if args.playouts is not None:
        budgets.append(Budget(playouts=args.playouts))
    for budget in budgets:
        print(f"expert ({budget}) against four stronger bots, {fair}")
        for preset in args.presets:
            started = time.perf_counter()
            figures = strength(
                preset, budget, args.deals, args.games, args.jobs, shards=args.shards
            )
            print(figures.line(f"  {preset}"), f"{time.perf_counter() - started:.0f} s", flush=True)
    print("strength with thinking time (torasobi):")
    series = [Budget(ms=ms) for ms in args.budgets]
    series += [Budget(playouts=playouts) for playouts in args.series_playouts]
    for budget in series:
        started = time.perf_counter()
        figures = strength(
            "torasobi", budget, args.series_deals, args.games, args.jobs, shards=args.shards
        )
        print(figures.line(f"  {budget}"), f"{time.perf_counter() - started:.0f} s", flush=True)


if __name__ == "__main__":
    main()
