"""``daifugo demo``: bots play whole matches through the real gRPC API."""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import AsyncIterator, Sequence

from rich.console import Console
from rich.progress import MofNCompleteColumn, Progress

from service.rules import rule_set

from .bots import GreedyBot, RandomBot, StrongerBot
from .runner import Chooser, play_match_to_the_end
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
    """Play the matches; print each one's id, its page, the command that audits it, and
    its results: the places of each game and the points, in words."""
    per_match = games or rule_set(preset).games_per_set
    columns = (*Progress.get_default_columns(), MofNCompleteColumn())
    tables = [table_of_bots(preset, players, number) for number in range(matches)]
    with Progress(*columns, console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task("games", total=matches * per_match)
        async with service_target(grpc_target) as target, DaifugoClient(target) as client:
            played = await asyncio.gather(
                *(
                    play_match_to_the_end(
                        client,
                        preset,
                        table,
                        games_per_set=games,
                        on_progress=lambda done: progress.advance(task, done),
                    )
                    for table in tables
                )
            )
    for (match_id, view), table in zip(played, tables, strict=True):
        print(match_id)
        print(f"  watch or replay: {web.rstrip('/')}/#/match/{match_id}")
        print(f"  audit: daifugo audit {match_id}")
        names = [f"{bot_words(chooser)} (seat {seat})" for seat, chooser in enumerate(table)]
        print("  places by game:")
        for line in places_in_words(view.results, names):
            print(f"    {line}")
        bonus = rule_set(preset).points_for_last
        points = points_in_words(view.results, names, bonus)
        print(f"  points ({points_rule(players, bonus)}): {points}")
    note = links_note(own_service=grpc_target is None)
    if note:
        print(note)
    return 0


def bot_words(chooser: Chooser) -> str:
    """A bot as a person calls it: ``StrongerBot`` is "stronger bot"."""
    return re.sub(r"(?<!^)(?=[A-Z])", " ", type(chooser).__name__).lower()


ORDINALS = ("", "1st", "2nd", "3rd", "4th", "5th")


def places_in_words(results: Sequence[Sequence[int]], names: Sequence[str]) -> list[str]:
    """Each game's places, first to last: ``game 1: 1st Aoi, 2nd you, …`` (``results``:
    per game, each seat's place)."""
    lines = []
    for number, places in enumerate(results, 1):
        order = sorted(range(len(places)), key=lambda seat: places[seat])
        said = ", ".join(f"{ORDINALS[places[seat]]} {names[seat]}" for seat in order)
        lines.append(f"game {number}: {said}")
    return lines


def points_rule(players: int, bonus: int = 0) -> str:
    """How a game scores: players − place (+ the rule set's ``points_for_last``)."""
    plus = f" + {bonus}" if bonus else ""
    return f"a game gives players − place{plus}: the 1st {players - 1 + bonus}, the last {bonus}"


def points_in_words(results: Sequence[Sequence[int]], names: Sequence[str], bonus: int = 0) -> str:
    """The points of the whole match, most first, as the rankings count them."""
    totals = [0] * len(names)
    for places in results:
        for seat, place in enumerate(places):
            totals[seat] += len(places) - place + bonus
    order = sorted(range(len(names)), key=lambda seat: (-totals[seat], seat))
    return ", ".join(f"{names[seat]} {totals[seat]}" for seat in order)


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
