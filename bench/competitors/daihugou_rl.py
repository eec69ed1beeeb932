#!/usr/bin/env python3
"""Benchmark driver: s2257234/daihugou_rl (Daifugo / 大富豪 RL environment; no licence file).

Plays N complete games (deal -> every player ranked) with 4 uniformly random
legal players, using the engine's own legal-action generator
(game.environment.DaifugoSimpleEnv._generate_legal_actions) and its
agents.random_agent.RandomAgent (random.choice over legal actions incl. pass).

The engine print()s a log line for most events (field reset, 8-cut, revolution,
card exchange, per-stage DEBUG dumps); stdout is sent to os.devnull during the
timed loop, so formatting cost is included but terminal I/O is not.
Use --quiet-log to also stub the print-based logging (upper bound on speed).

Usage:
  python daihugou_rl.py --src /path/to/daihugou_rl-checkout [--games 300] [--seed 1]
  (or set DAIHUGOU_RL_SRC).  Needs numpy importable.
"""

import argparse
import builtins
import os
import random
import sys
import time

ap = argparse.ArgumentParser()
ap.add_argument("--src", default=os.environ.get("DAIHUGOU_RL_SRC"))
ap.add_argument("--games", type=int, default=300)
ap.add_argument("--players", type=int, default=4)
ap.add_argument("--seed", type=int, default=1)
ap.add_argument("--max-steps", type=int, default=5000, help="safety cap per game")
ap.add_argument(
    "--quiet-log", action="store_true", help="replace builtins.print by a no-op while timing"
)
a = ap.parse_args()
if not a.src:
    sys.exit("need --src or DAIHUGOU_RL_SRC")
sys.path.insert(0, os.path.abspath(a.src))

from agents.random_agent import RandomAgent
from game.environment import DaifugoSimpleEnv

random.seed(a.seed)
real_stdout, real_print = sys.stdout, builtins.print
sys.stdout = open(os.devnull, "w")
if a.quiet_log:
    builtins.print = lambda *x, **k: None
env = DaifugoSimpleEnv(num_players=a.players, agent_classes=[RandomAgent] * a.players)

games = capped = steps = 0
t0 = time.perf_counter()
for _ in range(a.games):
    env.reset()  # new deal (+ card exchange from 2nd game on)
    done, n = False, 0
    while not done and n < a.max_steps:
        _, _, done = env.step()
        n += 1
    steps += n
    if done:
        games += 1
        assert sorted(env.game.rankings) == list(range(a.players)), env.game.rankings
    else:
        capped += 1
dt = time.perf_counter() - t0
sys.stdout, builtins.print = real_stdout, real_print
print(
    f"engine=daihugou_rl players={a.players} games={games} capped={capped} "
    f"steps={steps} seconds={dt:.3f} games_per_s={games / dt:.2f}"
    + (" (print stubbed)" if a.quiet_log else "")
)
