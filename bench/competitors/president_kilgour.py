#!/usr/bin/env python3
"""Benchmark driver: richardkilgour/PresidentCardGame (President, Apache-2.0).

Plays N complete episodes (deal -> all 4 players ranked) with 4 uniformly random
legal players. The engine itself enumerates legal melds
(PlayValidator.possible_plays, passed to player.play(valid_plays)); the random
player just returns random.choice(valid_plays). Episodes are run through
GameMaster.start(number_of_rounds=N) / GameMaster.step(), so from the 2nd
episode on the engine's rank-based card swap (President<->Scumbag 2 cards,
VP<->Citizen 1 card) happens as in normal play.

Usage: python president_kilgour.py --src /path/to/PresidentCardGame-checkout [--games 1000] [--seed 1]
  (or set PRESIDENT_KILGOUR_SRC).  Needs numpy and termcolor importable.
"""

import argparse
import logging
import os
import random
import sys
import time

ap = argparse.ArgumentParser()
ap.add_argument("--src", default=os.environ.get("PRESIDENT_KILGOUR_SRC"))
ap.add_argument("--games", type=int, default=1000)
ap.add_argument("--seed", type=int, default=1)
a = ap.parse_args()
if not a.src:
    sys.exit("need --src or PRESIDENT_KILGOUR_SRC")
sys.path.insert(0, os.path.abspath(a.src))
logging.disable(logging.CRITICAL)  # engine logs at INFO/WARNING in places

from president.core.AbstractPlayer import AbstractPlayer
from president.core.GameMaster import GameMaster

random.seed(a.seed)


class RandomPlayer(AbstractPlayer):
    def play(self, valid_plays):
        return random.choice(valid_plays)


players = [RandomPlayer(f"R{i}") for i in range(4)]
gm = GameMaster()
for p in players:
    gm.add_player(p)

episodes = [0]
orig = GameMaster.on_round_completed


def _done(self):
    assert len(self.episode.ranks) == 4, self.episode.ranks
    episodes[0] += 1
    return orig(self)


GameMaster.on_round_completed = _done

steps = 0
t0 = time.perf_counter()
gm.start(number_of_rounds=a.games)
done = False
while not done:
    done = gm.step()
    steps += 1
dt = time.perf_counter() - t0
print(
    f"engine=president-kilgour players=4 games={episodes[0]} steps={steps} "
    f"seconds={dt:.3f} games_per_s={episodes[0] / dt:.2f}"
)
