"""The ``daifugo`` command."""

from __future__ import annotations

import argparse
import secrets
import sys
from collections.abc import Sequence

from .rules import PRESETS, rule_set
from .rules.views import SPECTATOR, build_view


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="daifugo", description="Daifugō game service")
    commands = parser.add_subparsers(dest="command", required=True)

    scenario = commands.add_parser("scenario", help="run conformance scenario files")
    scenario.add_argument("paths", nargs="+", help="scenario files or folders")

    demo = commands.add_parser("demo", help="bots play whole matches")
    demo.add_argument("--matches", type=int, default=1)
    demo.add_argument("--preset", choices=sorted(PRESETS), default="federation")
    demo.add_argument("--players", type=int, default=4, choices=range(2, 6))
    demo.add_argument("--seed", help="hex seed for the deals (random if absent)")

    args = parser.parse_args(argv)
    if args.command == "scenario":
        from .scenarios import run_paths

        return 0 if run_paths(args.paths) else 1
    return _demo(args.matches, args.preset, args.players, args.seed)


def _demo(matches: int, preset: str, players: int, seed_hex: str | None) -> int:
    """Bots play in-process, through the same decider the service uses."""
    import random

    from .app.selfplay import play_match, random_policy

    rules = rule_set(preset)
    for number in range(1, matches + 1):
        seed = bytes.fromhex(seed_hex) if seed_hex else secrets.token_bytes(32)
        rng = random.Random(seed + bytes([number]))
        played = play_match(rules, players, seed, [random_policy(rng)] * players)
        view = build_view(played.state, SPECTATOR)
        print(f"match {number} ({preset}, {players} players): {played.actions} actions, "
              f"{len(played.events)} events")  # fmt: skip
        for game, places in enumerate(view.results, start=1):
            order = sorted(range(players), key=lambda seat: places[seat])
            print(f"  game {game}: " + " > ".join(f"seat {seat}" for seat in order))
    return 0


if __name__ == "__main__":
    sys.exit(main())
