"""kill -9 one of two `daifugo serve` processes mid-match, while it holds a seat's
action: the seats it served fail over to the other (a channel given both addresses,
its own first), the action is retried there, event streams resume from their last
seq, and the match finishes with nothing lost or doubled."""

from __future__ import annotations

import contextlib

from clients.sdk import DaifugoClient, Turn
from eventstore import RedisEventStore, RedisServer
from tests.serve_process import ServeProcess

from .checks import assert_match_sound
from .lineup import seat_lineup
from .players import Ledger
from .processes import PauseBeforeAnAction
from .table import open_match

KILL_AT = 40  # a version well inside a one-game match (it has 150 events or so)
HOLD = 0.5  # seconds Redis is held: the action reaches the doomed service meanwhile
DOOMED_SEATS = (0, 2)  # the seats whose channels try the doomed service first


def doomed_seat_to_act(turn: Turn) -> bool:
    return turn.version >= KILL_AT and turn.view.seat in DOOMED_SEATS


def failover_target(first: ServeProcess, then: ServeProcess) -> str:
    """gRPC's pick_first takes the addresses in order and moves on when one fails."""
    return f"ipv4:{first.grpc_target},{then.grpc_target}"


async def test_seats_of_a_killed_service_fail_over_and_finish(
    redis_server: RedisServer, services: list[ServeProcess], store: RedisEventStore
) -> None:
    doomed, survivor = services
    # even seats try the doomed process first, odd seats the survivor
    targets = [failover_target(doomed, survivor), failover_target(survivor, doomed)]
    ledger = Ledger()
    # the action waits inside the doomed service (its Redis paused), is killed there
    hook = PauseBeforeAnAction(redis_server, doomed_seat_to_act, HOLD, then=doomed.kill)
    async with contextlib.AsyncExitStack() as stack:
        table = await open_match(
            await stack.enter_async_context(DaifugoClient(survivor.grpc_target))
        )
        lineup = await seat_lineup(stack, targets, table, ledger, before_act=hook)
        try:
            await lineup.play_out()
        finally:
            await hook.finish()

    assert hook.resuming is not None, "the match ended before the kill"
    assert not doomed.alive and survivor.alive, survivor.log_tail()
    await assert_match_sound(store, table, ledger, lineup.watchers)
    # the action held in the doomed service failed there and got through on the survivor
    assert any(ack.failed_attempts for ack in ledger.acknowledged)
    # the seats on the killed process saw it go (so they were on it); the others did not
    lost = [player.failures.total() for player in lineup.players]
    on_doomed = sum(lost[seat] for seat in DOOMED_SEATS)
    assert on_doomed > 0 and on_doomed == sum(lost), lost
