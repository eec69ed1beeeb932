"""One action, one request id, sent more than once: to both replicas at the same
moment, and again after its reply was lost. Each time it is written once, and every
call answered OK answers the same outcome."""

from __future__ import annotations

import asyncio
import contextlib
import uuid

import grpc
import pytest

from clients.bots import GreedyBot
from clients.sdk import DaifugoClient, Refused, SeatSession
from eventstore import RedisEventStore
from tests.serve_process import ServeProcess

from .checks import assert_match_sound, stored_request_ids
from .lineup import seat_lineup
from .players import Acknowledged, Ledger
from .reply_dropper import ReplyDropper
from .table import Table, open_match

TWIN_SENDS = 12  # actions each sent to both replicas at once


async def test_one_request_sent_to_both_replicas_at_once_is_written_once(
    services: list[ServeProcess], store: RedisEventStore
) -> None:
    targets = [service.grpc_target for service in services]
    ledger = Ledger()
    choose = GreedyBot()
    async with contextlib.AsyncExitStack() as stack:
        replicas = [await stack.enter_async_context(DaifugoClient(t, retries=0)) for t in targets]
        table = await open_match(replicas[0])
        for _ in range(TWIN_SENDS):
            turn = await (await seat_to_act(replicas[0], table)).turn()
            assert turn.view.seat is not None
            token = table.seat_tokens[turn.view.seat]
            command, request_id = choose(turn.view, turn.actions), uuid.uuid4().hex
            first, second = await asyncio.gather(
                *(
                    replica.seat(table.match_id, token).act(command, request_id, include_turn=True)
                    for replica in replicas
                )
            )
            assert first == second  # the same version, events and turn after
            assert first.events[0]["seq"] == turn.version + 1
            assert await store.version(table.stream) == first.version  # written once
            ledger.acknowledged.append(Acknowledged.of(request_id, first))
        await play_out(stack, targets, table, ledger)

    await assert_match_sound(store, table, ledger)


async def test_an_action_whose_reply_was_lost_is_retried_and_written_once(
    services: list[ServeProcess], store: RedisEventStore
) -> None:
    targets = [service.grpc_target for service in services]
    ledger = Ledger()
    async with contextlib.AsyncExitStack() as stack:
        dropper = await stack.enter_async_context(ReplyDropper(targets[0]))
        replicas = [await stack.enter_async_context(DaifugoClient(t, retries=0)) for t in targets]
        lossy = await stack.enter_async_context(DaifugoClient(dropper.target, retries=0))
        table = await open_match(replicas[0])
        seat = await seat_to_act(lossy, table)
        turn = await seat.turn()
        command, request_id = GreedyBot()(turn.view, turn.actions), uuid.uuid4().hex

        dropper.armed = True
        with pytest.raises(Refused) as lost:
            await seat.act(command, request_id)
        assert dropper.dropped == 1
        assert lost.value.status == grpc.StatusCode.UNAVAILABLE
        # the service carried it out; only its reply was lost
        stored = await store.read(table.stream, turn.version + 1)
        stored_id = (await stored_request_ids(store))(request_id, {e.request_id for e in stored})
        written = await store.request_result(table.stream, stored_id)
        assert written is not None and written.first_seq == turn.version + 1
        assert [e.request_id for e in stored] == [stored_id] * len(stored)

        # sent again, on a new connection to the same replica and to the other one:
        # the first outcome each time, and nothing appended
        for client in (lossy, replicas[1]):
            again = await client.seat(table.match_id, seat.token).act(command, request_id)
            assert again.version == written.last_seq
            assert [(e["seq"], e["type"], e["at"]) for e in again.events] == [
                (e.seq, e.type, e.at) for e in stored
            ]
        assert await store.version(table.stream) == written.last_seq
        ledger.acknowledged.append(Acknowledged.of(request_id, again, failed_attempts=1))
        await play_out(stack, targets, table, ledger)

    await assert_match_sound(store, table, ledger)


async def seat_to_act(client: DaifugoClient, table: Table) -> SeatSession:
    view = await client.seat(table.match_id, table.seat_tokens[0]).view()
    assert view.turn is not None
    return client.seat(table.match_id, table.seat_tokens[view.turn])


async def play_out(
    stack: contextlib.AsyncExitStack, targets: list[str], table: Table, ledger: Ledger
) -> None:
    """Bots finish the match (only a finished match audits valid)."""
    lineup = await seat_lineup(stack, targets, table, ledger)
    async with asyncio.timeout(60), asyncio.TaskGroup() as group:
        for player in lineup.players:
            group.create_task(player.play())
