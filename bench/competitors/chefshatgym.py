#!/usr/bin/env python3
"""Benchmark driver: chefshatgym (PyPI, MIT) -- Chef's Hat, a 4-player
President-family shedding game (not standard Daifugo: 11 ranks + 2 jokers,
"pizza" = trick end, chef/sous-chef card exchange).

Plays N complete matches (deal -> all 4 players finished) with uniformly random
legal players, driving ChefsHatGym.env.ChefsHatEnv directly (no room/asyncio
layer): each step picks uniformly among the engine's legal-action mask
(env.getPossibleActions). Between matches the engine's role-based card
exchange is done with random chef/sous-chef card choices; the optional joker
special actions are always declined.

Logging: saveLog=False, saveDataset=False, verbose=0 (an ExperimentManager is
still created because the engine requires a log directory).

Usage: python chefshatgym.py [--games 300] [--seed 1] [--logdir DIR]
  (imports ChefsHatGym from the current interpreter; needs gym, numpy, pandas)
"""

import argparse
import contextlib
import io
import os
import random
import tempfile
import time

ap = argparse.ArgumentParser()
ap.add_argument("--games", type=int, default=300)
ap.add_argument("--seed", type=int, default=1)
ap.add_argument(
    "--logdir", default=os.environ.get("CHEFSHAT_LOGDIR") or tempfile.mkdtemp(prefix="chefshat-")
)
a = ap.parse_args()

import warnings

warnings.filterwarnings("ignore")
with contextlib.redirect_stderr(io.StringIO()):
    import numpy
    from ChefsHatGym.env import ChefsHatEnv as CHE

random.seed(a.seed)
numpy.random.seed(a.seed)
os.makedirs(a.logdir, exist_ok=True)
env = CHE.ChefsHatEnv()
with contextlib.redirect_stdout(io.StringIO()):
    env.startExperiment(
        gameType=CHE.GAMETYPE["MATCHES"],
        stopCriteria=a.games,
        maxRounds=-1,
        playerNames=["p0", "p1", "p2", "p3"],
        logDirectory=os.path.join(a.logdir, "run"),
        verbose=0,
        saveLog=False,
        saveDataset=False,
    )

steps = matches = 0
t0 = time.perf_counter()
with contextlib.redirect_stdout(io.StringIO()):
    env.reset()
    while not env.gameFinished:
        mask = env.getPossibleActions(env.currentPlayer)
        legal = [i for i, v in enumerate(mask) if v == 1]
        act = numpy.zeros(200)
        act[random.choice(legal)] = 1
        _, _, match_over, _, info = env.step(act)
        steps += 1
        assert info["Action_Valid"]
        if match_over:
            matches += 1
            if not env.gameFinished:
                (dw, dw_cards, wa, wa_card, sc, sc_cards, ch, ch_cards) = (
                    env.get_chef_souschef_roles_cards()
                )
                sc_card = random.choice(list(sc_cards))
                chef_give = random.sample(list(ch_cards), 2)
                env.exchange_cards(chef_give, sc_card, wa_card, dw_cards, False, -1)
dt = time.perf_counter() - t0
print(
    f"engine=chefshatgym players=4 games={matches} steps={steps} seconds={dt:.3f} games_per_s={matches / dt:.2f}"
)
