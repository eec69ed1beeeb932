"""Matches for the REST tests: created, started and moved on through the game
service or played out by bots over gRPC, and readers of the REST answers."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from collections.abc import Iterable
from typing import Any

import httpx

from clients.bots import GreedyBot, RandomBot
from clients.runner import play_match, play_seat
from clients.sdk import DaifugoClient
from eventstore import StoredEvent
from service.app.match import Match, stream_of
from service.app.service import CreatedMatch, MatchOptions
from service.rules.cards import format_mask
from service.rules.commands import Pass
from service.rules.vocabulary import Phase
from service.runtime import Running


async def new_match(
    running: Running,
    preset: str = "classic",
    players: int = 3,
    *,
    start: bool = True,
    delay: float = 0.0,
    games_per_set: int = 1,
) -> CreatedMatch:
    service = running.service
    created = await service.create(
        MatchOptions(preset, players, {}, games_per_set=games_per_set, spectator_delay=delay)
    )
    if start:
        await service.start(created.match_id, created.host_token)
    return created


async def advance(running: Running, created: CreatedMatch, moves: int) -> Match:
    """Make ``moves`` actions (a play when there is one), staying inside game 1."""
    service = running.service
    for _ in range(moves):
        match = await service.load(created.match_id)
        if match.game.phase != Phase.IN_GAME or match.game.turn is None:
            break
        token = created.seat_tokens[match.game.turn]
        actions = (await service.seen(created.match_id, token)).actions
        if not actions:
            break
        plays = [action for action in actions if not isinstance(action, Pass)]
        # a small play: the game goes on for a while
        chosen = plays[0] if plays else actions[0]
        await service.act(created.match_id, token, lambda seat, chosen=chosen: chosen)
    return await service.load(created.match_id)


async def play_out(client: DaifugoClient, created: CreatedMatch) -> None:
    """Bots play every seat of a started match to its end, over gRPC."""
    seats = [client.seat(created.match_id, token) for token in created.seat_tokens]
    bots = [GreedyBot() if index % 2 else RandomBot(index) for index in range(len(seats))]
    await asyncio.wait_for(
        asyncio.gather(*(play_seat(seat, bot) for seat, bot in zip(seats, bots, strict=True))),
        timeout=120,
    )


async def finished_match(client: DaifugoClient, preset: str = "classic", players: int = 3) -> str:
    bots = [GreedyBot() if index % 2 else RandomBot(index) for index in range(players)]
    return await play_match(client, preset, bots, games_per_set=1)


async def stored(running: Running, match_id: str) -> list[StoredEvent]:
    return await running.service.store.read(stream_of(match_id))


def hidden_cards(match: Match) -> set[str]:
    """Every card no spectator may see yet: in a hand, blind or unused. (Both jokers
    are "JK": while one of them is public, that code tells nothing.)"""
    game = match.game
    masks = [*game.hands, game.blind, game.unused]
    codes = [code for mask in masks for code in format_mask(mask)]
    hidden = set(codes)
    if codes.count("JK") < match.rules.jokers:
        hidden.discard("JK")
    return hidden


def cards_in(text: str, cards: Iterable[str]) -> set[str]:
    """Which of ``cards`` appear in ``text`` as card codes (not inside a word)."""
    return {code for code in cards if re.search(rf"(?<![0-9A-Za-z]){code}(?![0-9A-Za-z])", text)}


async def wait_listed(
    http: httpx.AsyncClient, match_id: str, state: str | None = None
) -> dict[str, Any]:
    """The match's listing once the catalog has caught up (it is eventually consistent)."""
    params = {"limit": "200", **({"state": state} if state else {})}
    for _ in range(200):
        page = (await http.get("/matches", params=params)).json()
        for item in page["matches"]:
            if item["match_id"] == match_id:
                return dict(item)
        await asyncio.sleep(0.05)
    raise AssertionError(f"{match_id} was never listed as {state}")


async def read_sse(
    http: httpx.AsyncClient,
    path: str,
    *,
    headers: dict[str, str] | None = None,
    until_seq: int | None = None,
    count: int | None = None,
    quiet: float | None = None,
) -> list[dict[str, Any]]:
    """Server-Sent Events from ``path``: each as {id, event, data}; stops after
    ``count`` events, at ``until_seq``, or after ``quiet`` seconds with none."""
    events: list[dict[str, Any]] = []

    async def read() -> None:
        async with http.stream("GET", path, headers=headers) as response:
            assert response.status_code == 200, await response.aread()
            assert response.headers["content-type"].startswith("text/event-stream")
            fields: dict[str, str] = {}
            async for line in response.aiter_lines():
                if line.startswith(":"):
                    continue
                if line:
                    name, _, value = line.partition(":")
                    fields[name] = value.removeprefix(" ")
                    continue
                if "data" not in fields:
                    continue
                event = {
                    "id": int(fields["id"]),
                    "event": fields["event"],
                    "data": json.loads(fields["data"]),
                }
                events.append(event)
                fields = {}
                if count is not None and len(events) >= count:
                    return
                if until_seq is not None and event["id"] >= until_seq:
                    return

    if quiet is None:
        await asyncio.wait_for(read(), 60)
    else:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(read(), quiet)
    return events
