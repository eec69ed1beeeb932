#!/usr/bin/env python3
"""Benchmark driver: smessie/AI-President (President card game, GPL-3.0).

Plays N complete deals ("rounds" in that engine's terms) with 4 uniformly
random legal players, using the engine's own legal-move generator
(Player.get_all_possible_moves, called by agents.random_agent.RandomAgent).

Usage:
  python ai_president.py --src /path/to/AI-President-checkout [--games 200] [--seed 1]
  (or set AI_PRESIDENT_SRC).  Needs numpy, tqdm, colorama importable.
"""

import argparse
import asyncio
import os
import random
import sys
import time

ap = argparse.ArgumentParser()
ap.add_argument("--src", default=os.environ.get("AI_PRESIDENT_SRC"))
ap.add_argument("--games", type=int, default=200)
ap.add_argument("--players", type=int, default=4)
ap.add_argument("--seed", type=int, default=1)
a = ap.parse_args()
if not a.src:
    sys.exit("need --src or AI_PRESIDENT_SRC")
os.environ["TQDM_DISABLE"] = "1"  # silence the engine's progress bar
sys.path.insert(0, os.path.abspath(a.src))

from agents.random_agent import RandomAgent
from game.president import President

random.seed(a.seed)
game = President([RandomAgent() for _ in range(a.players)])

# count completed deals via the engine's round-end callback
done = [0]
orig = RandomAgent.round_end_callback


def _cb(self, order, table, _o=orig):
    if self is game.agents[0]:
        done[0] += 1
        assert len(order) == a.players, order  # every player ranked
    return _o(self, order, table)


RandomAgent.round_end_callback = _cb

t0 = time.perf_counter()
# one "game" of N "rounds": every round is a fresh deal played to the end;
# from the 2nd round on the engine does its president<->scum card exchange.
asyncio.run(game.play(1, a.games))
dt = time.perf_counter() - t0
print(
    f"engine=ai-president players={a.players} games={done[0]} seconds={dt:.3f} games_per_s={done[0] / dt:.2f}"
)
