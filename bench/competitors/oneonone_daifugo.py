#!/usr/bin/env python3
"""Benchmark driver: shinjimiki/1on1_DAIFUGO (2-player Daifugo RL env, MIT).

Plays N complete games with 2 uniformly random legal players using the engine's
own generator Daifugo1v1Env.legal_actions(state) (pass included when a meld is
on the table) and Daifugo1v1Env.step(action_id). Note step() re-validates the
action by regenerating legal_actions internally -- that cost is the engine's.
The engine is 2-player only (game ends when the first player empties a hand).

Usage: python oneonone_daifugo.py --src /path/to/1on1_DAIFUGO-checkout [--games 2000] [--seed 1]
  (or set ONEONONE_DAIFUGO_SRC).  Needs numpy importable.
"""

import argparse
import os
import random
import sys
import time

ap = argparse.ArgumentParser()
ap.add_argument("--src", default=os.environ.get("ONEONONE_DAIFUGO_SRC"))
ap.add_argument("--games", type=int, default=2000)
ap.add_argument("--seed", type=int, default=1)
ap.add_argument("--max-steps", type=int, default=5000)
a = ap.parse_args()
if not a.src:
    sys.exit("need --src or ONEONONE_DAIFUGO_SRC")
sys.path.insert(0, os.path.abspath(a.src))
from daifugo_env import Daifugo1v1Env

rng = random.Random(a.seed)
t_build = time.perf_counter()
env = Daifugo1v1Env(seed=a.seed)  # builds the static action table (not timed below)
t_build = time.perf_counter() - t_build

games = steps = capped = 0
t0 = time.perf_counter()
for _ in range(a.games):
    st = env.reset()
    n = 0
    while not st.done and n < a.max_steps:
        act = rng.choice(env.legal_actions(st))
        st, _, _, _ = env.step(env.action_index[env._canon(act)])
        n += 1
    steps += n
    if st.done:
        games += 1
    else:
        capped += 1
dt = time.perf_counter() - t0
print(
    f"engine=1on1_daifugo players=2 games={games} capped={capped} steps={steps} "
    f"seconds={dt:.3f} games_per_s={games / dt:.2f} (action-table build {t_build:.2f}s, untimed)"
)
