"""``daifugo demo``: bots play whole matches through the real gRPC API."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from rich.console import Console
from rich.progress import MofNCompleteColumn, Progress

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

    from service.runtime import running_service

    async with running_service(os.environ.get("REDIS_URL"), grpc_port=0) as running:
        yield f"127.0.0.1:{running.grpc_port}"


DEFAULT_WEB = "http://127.0.0.1:8080"  # where `./serve` serves the page


def table_of_bots(preset: str, players: int, seed: int) -> list[Chooser]:
    rules = rule_set(preset)
    kinds = [StrongerBot(rules), GreedyBot(), RandomBot(seed), GreedyBot(), StrongerBot(rules)]
    return list(kinds[:players])


async def demo_matches(
    grpc_target: str | None,
    matches: int,
    preset: str,
    players: int,
    games: int,
    web: str = DEFAULT_WEB,
) -> int:
    """Play the matches; print each one's id, its page and the command that audits it."""
    per_match = games or rule_set(preset).games_per_set
    columns = (*Progress.get_default_columns(), MofNCompleteColumn())
    with Progress(*columns, console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task("games", total=matches * per_match)
        async with service_target(grpc_target) as target, DaifugoClient(target) as client:
            ids = await asyncio.gather(
                *(
                    play_match(
                        client,
                        preset,
                        table_of_bots(preset, players, number),
                        games_per_set=games,
                        on_progress=lambda done: progress.advance(task, done),
                    )
                    for number in range(matches)
                )
            )
    for match_id in ids:
        print(match_id)
        print(f"  watch or replay: {web.rstrip('/')}/#/match/{match_id}")
        print(f"  audit: daifugo audit {match_id}")
    note = links_note(own_service=grpc_target is None)
    if note:
        print(note)
    return 0


def links_note(own_service: bool) -> str | None:
    """What a person must know before following the links: a service the demo started
    itself stops with it, and its matches are gone unless its Redis keeps them."""
    if not own_service:
        return None
    return (
        "These links and audits need a service that has these matches: the one this demo "
        "started stops now. For links that stay live, start ./serve and run "
        "daifugo demo --grpc 127.0.0.1:50051."
    )
