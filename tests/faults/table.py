"""Setting a match up for the fault tests and waiting on its progress."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass

from clients.bots import Bot, GreedyBot, RandomBot
from clients.sdk import DaifugoClient
from eventstore import RedisEventStore
from service.app.match import stream_of

SEATS = 4
GAMES = 1  # one game: a whole match in a second or two


@dataclass(frozen=True)
class Table:
    match_id: str
    host_token: str
    seat_tokens: tuple[str, ...]

    @property
    def stream(self) -> str:
        return stream_of(self.match_id)


async def open_match(client: DaifugoClient, games: int = GAMES) -> Table:
    """A started federation match of four seats."""
    created = await client.create_match(
        "federation", SEATS, games_per_set=games, request_id=uuid.uuid4().hex
    )
    await client.host(created.match_id, created.host_token).start()
    return Table(created.match_id, created.host_token, created.seat_tokens)


def quick_bots() -> list[Bot]:
    """Fast bots (the fault tests time their faults, not the bots' thinking)."""
    return [GreedyBot(), RandomBot(1), GreedyBot(), RandomBot(3)]


async def wait_for_version(
    store: RedisEventStore, table: Table, version: int, timeout: float = 30.0
) -> int:
    """Wait until the match's stream has reached ``version``; returns the version."""
    async with asyncio.timeout(timeout):
        while (now := await store.version(table.stream)) < version:
            await asyncio.sleep(0.01)
    return now
