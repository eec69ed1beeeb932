"""``daifugo demo``: bots play whole matches through the real gRPC API."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator

from service.rules import rule_set

from .bots import GreedyBot, RandomBot, StrongerBot
from .runner import Chooser, play_match
from .sdk import DaifugoClient


@contextlib.asynccontextmanager
async def service_target(grpc_target: str | None) -> AsyncIterator[str]:
    """The given service, or one started here (Redis: REDIS_URL or embedded)."""
    if grpc_target:
        yield grpc_target
        return
    import os

    from service.app.runtime import running_service

    async with running_service(os.environ.get("REDIS_URL"), grpc_port=0) as running:
        yield f"127.0.0.1:{running.grpc_port}"


class ProgressBar:
    """One line on stderr: games played out of all games."""

    def __init__(self, total: int, width: int = 30) -> None:
        self.total, self.done, self.width = total, 0, width

    def advance(self, games: int = 1) -> None:
        self.done += games
        filled = self.width * self.done // max(1, self.total)
        bar = "#" * filled + "-" * (self.width - filled)
        sys.stderr.write(f"\r[{bar}] {self.done}/{self.total} games")
        if self.done >= self.total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def table_of_bots(preset: str, players: int, seed: int) -> list[Chooser]:
    rules = rule_set(preset)
    kinds = [StrongerBot(rules), GreedyBot(), RandomBot(seed), GreedyBot(), StrongerBot(rules)]
    return list(kinds[:players])


async def demo_matches(
    grpc_target: str | None, matches: int, preset: str, players: int, games: int
) -> int:
    per_match = games or rule_set(preset).games_per_set
    progress = ProgressBar(matches * per_match)
    async with service_target(grpc_target) as target, DaifugoClient(target) as client:
        ids = await asyncio.gather(
            *(
                play_match(
                    client,
                    preset,
                    table_of_bots(preset, players, number),
                    games_per_set=games,
                    on_progress=progress.advance,
                )
                for number in range(matches)
            )
        )
    for match_id in ids:
        print(match_id)
    return 0
