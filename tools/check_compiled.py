"""CI's check of a regular install, whose engine hatch_build.py compiles with mypyc:
the engine is compiled, and the expert's process pool takes searches and gives
their answers, pickled across processes, as one process would.

    venv/bin/python tools/check_compiled.py   # from outside the source tree
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import service.rules.decider
from clients import expert
from clients.bots import StrongerBot
from service.app.selfplay import play_match
from service.rules import rule_set
from service.rules.commands import SeatCommand
from service.rules.views import View


def searches(preset: str, playouts: int = 40) -> list[expert.Request]:
    """The searches an expert seat would make in a match of two games against
    stronger bots (the seat plays the stronger bot's choice)."""
    rules = rule_set(preset, {"games_per_set": 2})
    bot = expert.ExpertBot(rules, playouts=playouts, seed=b"compiled")
    found: list[expert.Request] = []

    def seat(view: View, actions: Sequence[SeatCommand]) -> SeatCommand:
        request, position, default = bot.request(view, actions)
        if request is not None:
            found.append(request)
        return bot.chose(view, position, default)

    play_match(rules, 5, b"check-compiled", [seat] + [StrongerBot(rules) for _ in range(4)])
    return found


async def answered_alike(requests: list[expert.Request]) -> None:
    for request in requests:
        assert await expert.think_in_pool(request) == expert.think(request)


def main() -> None:
    assert service.rules.decider.__file__.endswith(".so"), service.rules.decider.__file__
    for preset in ("torasobi", "uecda"):
        requests = searches(preset)[:10]
        asyncio.run(answered_alike(requests))
        print(f"compiled: {len(requests)} {preset} searches answered alike in the pool")
    expert.pool().shutdown()


if __name__ == "__main__":
    main()
