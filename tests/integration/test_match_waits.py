"""Seats waiting for their turns share one listener per match and process: each is
woken at its own turn only, and the listener ends with its last waiter."""

from __future__ import annotations

import asyncio

import grpc
import pytest

from clients.sdk import DaifugoClient, Refused
from service.runtime import Running

from .conftest import arrange


async def test_each_waiting_seat_wakes_at_its_own_turn(
    running: Running, client: DaifugoClient
) -> None:
    table = await arrange(running, client, "federation", ["3D 9C", "4D TC", "5D JC"], 0)
    first, second, third = table.seats
    start = await first.turn()
    waiting_second = asyncio.create_task(second.next_turn(start.version))
    waiting_third = asyncio.create_task(third.next_turn(start.version))
    with pytest.raises(Refused) as gave_up:  # a third waiter's deadline passes first
        await first.next_turn(start.version, timeout=0.3)
    assert gave_up.value.status == grpc.StatusCode.DEADLINE_EXCEEDED
    waits = running.service.waits
    assert list(waits._watches) == [table.match_id]  # one listener for both seats

    played = await first.play("3D")
    turn = await waiting_second
    assert turn.version == played.version and turn.view.turn == 1 and turn.actions
    await asyncio.sleep(0.2)
    assert not waiting_third.done()  # not its turn yet

    answered = await second.play("4D")
    turn = await waiting_third
    assert turn.version == answered.version and turn.view.turn == 2 and turn.actions
    assert waits._watches == {}  # the last waiter took its listener with it
