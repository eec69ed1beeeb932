"""A one-game match played to its seal straight through the service (every seat acting
its first legal action), for the tests of what follows the seal: the followers'
retirement, the archive."""

from __future__ import annotations

import functools
import secrets

from eventstore import RedisEventStore
from service.app.keyring import Keyring
from service.app.service import GameService, MatchOptions
from service.rules.commands import SeatCommand
from service.rules.legal import legal_actions


def given(command: SeatCommand, seat: int) -> SeatCommand:
    return command


async def played_to_its_seal(service: GameService) -> str:
    """A one-game match played to its seal by ``service``."""
    made = await service.create(MatchOptions("federation", 4, {}, games_per_set=1))
    await service.start(made.match_id, made.host_token)
    while not (match := await service.load(made.match_id)).over:
        seat = match.game.turn
        assert seat is not None
        first_legal = functools.partial(given, legal_actions(match.game)[0])
        await service.act(made.match_id, made.seat_tokens[seat], first_legal)
    await service.seal(made.match_id)
    assert (await service.load(made.match_id)).sealed
    return made.match_id


async def sealed_match(store: RedisEventStore) -> str:
    """A one-game match played to its seal in ``store``, by a service of its own."""
    service = GameService(store, Keyring(secrets.token_bytes(32)))
    try:
        return await played_to_its_seal(service)
    finally:
        await service.snapshots.close()
        await service.fanout.close()
