"""A match's snapshots are only a cache: the match at every seq, and what a delayed
spectator sees at every cutoff, read from them is what a fold from event 0 gives, with
snapshots missing, made by other code, of another stream, or not snapshots at all;
and no read folds more than one block of events."""

from __future__ import annotations

import random
import secrets
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, replace

import pytest

from eventstore import (
    InMemoryArchive,
    InMemoryEventStore,
    InMemorySnapshots,
    Snapshot,
    StoredEvent,
    move_to_archive,
)
from service.app import snapshots as snapshots_module
from service.app.codec import decode
from service.app.keyring import Keyring
from service.app.match import Match, fold_match, stream_of
from service.app.service import GameService, MatchOptions
from service.app.snapshots import NEVER_DELAYED, Folded, MatchSnapshots, encode, shown_after
from service.rules.legal import legal_actions

EVERY = 8


@dataclass
class Played:
    store: InMemoryEventStore
    service: GameService
    match_id: str
    stored: list[StoredEvent]


async def play(service: GameService, games: int, seed: int) -> str:
    made = await service.create(MatchOptions("federation", 4, {}, games_per_set=games))
    await service.start(made.match_id, made.host_token)
    rng = random.Random(seed)
    while not (match := await service.load(made.match_id)).over:
        seat = match.game.turn
        assert seat is not None
        command = rng.choice(legal_actions(match.game))
        await service.act(made.match_id, made.seat_tokens[seat], lambda _, c=command: c)
    return made.match_id


@pytest.fixture
async def played() -> AsyncIterator[Played]:
    store = InMemoryEventStore()
    service = GameService(store, Keyring(secrets.token_bytes(32)), snapshots=InMemorySnapshots())
    service.snapshots.every = EVERY
    match_id = await play(service, 2, seed=7)
    await service.snapshots.written()
    try:
        yield Played(store, service, match_id, await store.read(stream_of(match_id)))
    finally:
        await service.snapshots.close()
        await service.fanout.close()
        await store.close()


def fresh(played: Played, snapshots: InMemorySnapshots | None = None) -> MatchSnapshots:
    return MatchSnapshots(played.store, snapshots or InMemorySnapshots(), decode, EVERY)


def folded_to(stored: Sequence[StoredEvent], seq: int) -> Match:
    return fold_match(None, stored[: seq + 1], decode)


def seen_by(stored: Sequence[StoredEvent], cutoff: int) -> int:
    """The last seq a spectator delayed to ``cutoff`` sees: the prefix rule, from 0."""
    last = -1
    for event in stored:
        if event.type not in NEVER_DELAYED and event.at > cutoff:
            break
        last = event.seq
    return last


async def check_every_seq(snapshots: MatchSnapshots, played: Played, bound: int = EVERY) -> None:
    for seq in range(len(played.stored)):
        before = snapshots.folded
        assert await snapshots.match_at(played.match_id, seq) == folded_to(played.stored, seq)
        assert snapshots.folded - before <= bound, seq


async def check_every_cutoff(snapshots: MatchSnapshots, played: Played, bound: int = EVERY) -> None:
    times = sorted({event.at for event in played.stored})
    for cutoff in [times[0] - 1, *times, *(at - 1 for at in times)]:
        before = snapshots.folded, snapshots.read
        seen = await snapshots.visible_by(played.match_id, cutoff)
        last = seen_by(played.stored, cutoff)
        assert seen.match == folded_to(played.stored, last), cutoff
        assert snapshots.folded - before[0] <= bound
        assert snapshots.read - before[1] <= bound + 1


async def test_the_match_at_every_seq_is_the_fold_from_0(played: Played) -> None:
    assert len(played.stored) > 20 * EVERY
    await check_every_seq(played.service.snapshots, played)


async def test_a_delayed_spectator_sees_at_every_cutoff_what_the_fold_from_0_shows(
    played: Played,
) -> None:
    await check_every_cutoff(played.service.snapshots, played)


async def check_written(snapshots: InMemorySnapshots, played: Played) -> None:
    stream = stream_of(played.match_id)
    for boundary in range(EVERY - 1, len(played.stored), EVERY):
        found = await snapshots.at_or_before(stream, boundary)
        assert found is not None and found.seq == boundary
        held = snapshots_module.decoded(found)
        assert held is not None and held.match == folded_to(played.stored, boundary)
        assert held.shown_at == shown_after(0, played.stored[: boundary + 1])


async def test_the_service_wrote_a_snapshot_at_every_block_as_it_played(played: Played) -> None:
    """From the match it held and its own appends: it appended every event, so it
    read none back to write them."""
    await check_written(played.service.snapshots.snapshots, played)
    assert played.service.snapshots.read == 0


async def test_a_replica_that_did_not_append_every_event_reads_the_block_back() -> None:
    """Two services on one store take turns acting: neither knows the other's events
    as its own, so each writes the snapshots of the blocks it completes from the
    stream, and they are the fold from 0 all the same."""
    store = InMemoryEventStore()
    key, kept = secrets.token_bytes(32), InMemorySnapshots()
    services = [GameService(store, Keyring(key), snapshots=kept) for _ in range(2)]
    for service in services:
        service.snapshots.every = EVERY
    made = await services[0].create(MatchOptions("federation", 4, {}, games_per_set=1))
    await services[0].start(made.match_id, made.host_token)
    rng = random.Random(11)
    try:
        while not (match := await (service := rng.choice(services)).load(made.match_id)).over:
            seat = match.game.turn
            assert seat is not None
            command = rng.choice(legal_actions(match.game))
            await service.act(made.match_id, made.seat_tokens[seat], lambda _, c=command: c)
        for service in services:
            await service.snapshots.written()
        stored = await store.read(stream_of(made.match_id))
        await check_written(kept, Played(store, services[0], made.match_id, stored))
        assert sum(service.snapshots.read for service in services) > 0
    finally:
        for service in services:
            await service.snapshots.close()
            await service.fanout.close()
        await store.close()


async def test_an_archived_match_at_every_seq_folds_a_block_once_unpacked(played: Played) -> None:
    """Its snapshots left the store with it: the first read after unpacking folds the
    stream once, keeping snapshots with the unpacked stream, and every read after folds
    one block at most, in this reader and in a fresh one (nothing decoded in it)."""
    await played.service.seal(played.match_id)
    stream = stream_of(played.match_id)
    played.stored = await played.store.read(stream)
    archive = InMemoryArchive()
    played.store.use_archive(archive)
    kept = InMemorySnapshots(played.store)
    await move_to_archive(played.store, archive, stream)
    await kept.drop(stream)
    assert await played.store.read_as_stored(stream) == []  # only the archive holds it
    reader = fresh(played, kept)
    last = len(played.stored) - 1
    assert await reader.match_at(played.match_id, last) == folded_to(played.stored, last)
    assert reader.folded == last + 1  # once, from 0
    await check_every_seq(reader, played)
    await check_every_cutoff(reader, played)
    await check_every_seq(fresh(played, kept), played)
    await check_every_cutoff(fresh(played, kept), played)


async def test_without_snapshots_a_read_writes_them_on_the_way(played: Played) -> None:
    kept = InMemorySnapshots()
    snapshots = fresh(played, kept)
    last = len(played.stored) - 1
    assert await snapshots.match_at(played.match_id, last) == folded_to(played.stored, last)
    found = await kept.at_or_before(stream_of(played.match_id), last)
    assert found is not None and found.seq == (last + 1) // EVERY * EVERY - 1
    before = snapshots.folded
    await snapshots.match_at(played.match_id, last)
    assert snapshots.folded - before <= EVERY


async def test_a_read_up_to_a_boundary_whose_snapshot_does_not_fit_writes_it_anew(
    played: Played,
) -> None:
    """A read that folds a whole block writes the snapshot that ends it: else, when a
    finished match's last event ends a block, no read would (none goes past it), and
    every read of it would fold the block again."""
    stream = stream_of(played.match_id)
    kept = InMemorySnapshots()
    boundary = (len(played.stored) - 1) // EVERY * EVERY - 1  # a full block follows it
    before = boundary - EVERY
    shown_at = shown_after(0, played.stored[: before + 1])
    await kept.save(stream, encode(Folded(folded_to(played.stored, before), shown_at)))
    await kept.save(stream, Snapshot(boundary, 0, secrets.token_bytes(40)))
    snapshots = fresh(played, kept)
    assert await snapshots.match_at(played.match_id, boundary) == folded_to(played.stored, boundary)
    assert snapshots.folded == EVERY
    found = await kept.at_or_before(stream, boundary)
    assert found is not None and found.seq == boundary
    held = snapshots_module.decoded(found)
    assert held is not None and held.match == folded_to(played.stored, boundary)


async def test_snapshots_of_other_code_other_streams_or_garbage_are_passed_over(
    played: Played, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing but the service writes snapshots (no API does), from folds of its own
    store: what is checked is what an upgrade, a stream written again under its id or
    a damaged key would leave."""
    stream = stream_of(played.match_id)
    kept = InMemorySnapshots()
    rng = random.Random(3)
    other = fold_match(None, played.stored[:EVERY], decode)
    for boundary in range(EVERY - 1, len(played.stored), EVERY):
        right = Folded(folded_to(played.stored, boundary), 0)
        match rng.randrange(3):
            case 0:  # not a snapshot at all
                await kept.save(stream, Snapshot(boundary, 0, secrets.token_bytes(40)))
            case 1:  # another stream's match at this seq, with its own head
                await kept.save(stream, encode(Folded(replace(other, version=boundary), 0)))
            case _:  # made by other code
                with monkeypatch.context() as patched:
                    patched.setattr(snapshots_module, "fold_code", lambda: "older code")
                    await kept.save(stream, encode(right))
    # the first reads fold from the snapshot before one that does not fit, and write
    # that one anew on the way; then each read folds a block at most again
    await check_every_seq(fresh(played, kept), played, bound=2 * EVERY)
    await check_every_seq(fresh(played, kept), played)
    await check_every_cutoff(fresh(played, kept), played)


async def test_a_service_that_never_saw_the_match_loads_it_from_its_last_snapshot(
    played: Played,
) -> None:
    kept = played.service.snapshots.snapshots
    cold = GameService(played.store, Keyring(secrets.token_bytes(32)), snapshots=kept)
    cold.snapshots.every = EVERY
    try:
        loaded = await cold.load(played.match_id)
        assert loaded == folded_to(played.stored, len(played.stored) - 1)
        assert cold.snapshots.folded <= EVERY
    finally:
        await cold.snapshots.close()
        await cold.fanout.close()
