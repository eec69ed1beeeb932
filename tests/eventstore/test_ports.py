"""The contract of the small ports beside the event store (eventstore/port.py): the
projection store with its checkpoints, the lease, the server key and the quotas. One
abstract case per port, run on memory, one Redis server and a Redis Cluster, as the
event store's contract suite (contract.py) is: what the application counts on, whichever
it is given.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator

import pytest

from eventstore import (
    CLOSING_TYPE,
    CheckpointGap,
    Closed,
    InMemoryStorage,
    NewEvent,
    Op,
    ProjectionStore,
    RedisStorage,
    Storage,
    StoredEvent,
)
from eventstore.quotas import Full, Gauge, QuotaStore, Window

from .conftest import Backend
from .contract import append_n

# --- the storages ---------------------------------------------------------------------


class Storages:
    """Makes the storages of one kind for one test: ``storage`` has data of its own,
    ``sharing`` another replica's view of the same data."""

    def storage(self) -> Storage:
        raise NotImplementedError

    def sharing(self, storage: Storage) -> Storage:
        raise NotImplementedError

    async def close(self) -> None:
        raise NotImplementedError


class MemoryStorages(Storages):
    def __init__(self) -> None:
        self.made: list[InMemoryStorage] = []

    def storage(self) -> Storage:
        self.made.append(InMemoryStorage())
        return self.made[-1]

    def sharing(self, storage: Storage) -> Storage:
        assert isinstance(storage, InMemoryStorage)
        self.made.append(storage.sharing())
        return self.made[-1]

    async def close(self) -> None:
        for storage in self.made:
            await storage.close()


class RedisStorages(Storages):
    def __init__(self, backend: Backend) -> None:
        self.backend = backend
        self.made: list[RedisStorage] = []
        self.server_key = f"test-server-key-{uuid.uuid4().hex[:8]}"  # its own, deleted after

    def storage(self) -> Storage:
        self.made.append(RedisStorage(self.backend.store(), self.server_key))
        return self.made[-1]

    def sharing(self, storage: Storage) -> Storage:
        assert isinstance(storage, RedisStorage)
        store = self.backend.store(prefix=storage.events.keys.prefix)
        self.made.append(RedisStorage(store, self.server_key))
        return self.made[-1]

    async def close(self) -> None:
        if self.made:
            client = await self.made[0].events.raw_client()
            await client.delete(self.server_key)
        for storage in self.made:
            await storage.close()
        self.backend.cleanup()


class InMemory:
    @pytest.fixture
    async def storages(self) -> AsyncIterator[Storages]:
        made = MemoryStorages()
        yield made
        await made.close()


class SingleRedis:
    @pytest.fixture
    async def storages(self, redis_url: str) -> AsyncIterator[Storages]:
        made = RedisStorages(Backend("single", redis_url, False))
        yield made
        await made.close()


class ClusterRedis:
    @pytest.fixture
    async def storages(self, cluster_url: str) -> AsyncIterator[Storages]:
        made = RedisStorages(Backend("cluster", cluster_url, True))
        yield made
        await made.close()


class PortCase:
    @pytest.fixture
    def storage(self, storages: Storages) -> Storage:
        return storages.storage()


# --- the projection store ------------------------------------------------------------------


async def events_of(storage: Storage, stream: str, count: int) -> list[StoredEvent]:
    await append_n(storage.events, stream, count)
    return await storage.events.read(stream)


class ProjectionStoreCase(PortCase):
    async def test_an_events_writes_and_its_checkpoint_go_together_once(
        self, storage: Storage
    ) -> None:
        state = storage.projection("counts")
        first, second = await events_of(storage, "s-1", 2)
        ops = [("HINCRBY", state.key("seen"), "s-1", 1), ("RPUSH", state.key("log"), "a", "b")]
        assert await state.apply(first, ops)
        assert not await state.apply(first, ops)  # applied before: nothing done
        assert await state.hash(state.key("seen")) == {"s-1": "1"}
        assert await state.items(state.key("log")) == ["a", "b"]
        assert await state.length(state.key("log")) == 2
        assert await state.position("s-1") == 0 and await state.position("other") == -1
        assert await state.positions() == {"s-1": 0}
        assert await state.apply(second, [("SET", state.key("last"), 7), ("INCR", state.key("n"))])
        assert await state.get(state.key("last")) == "7"
        assert await state.get(state.key("n")) == "1"
        assert await state.get(state.key("nothing")) is None

    async def test_hdel_removes_the_fields_named_and_the_hash_with_its_last(
        self, storage: Storage
    ) -> None:
        state = storage.projection("counts")
        key = state.key("kept")
        await state.write([("HSET", key, "a", 1, "b", 2, "c", 3)])
        await state.write([("HDEL", key, "a", "c", "absent")])
        assert await state.hash(key) == {"b": "2"}
        await state.write([("HDEL", key, "b"), ("HDEL", state.key("none"), "x")])
        assert await state.hash(key) == {}

    async def test_an_event_past_a_missing_one_is_refused_with_nothing_written(
        self, storage: Storage
    ) -> None:
        state = storage.projection("gaps")
        _, second = await events_of(storage, "s-1", 2)
        with pytest.raises(CheckpointGap):
            await state.apply(second, [("SET", state.key("x"), 1)])
        assert await state.get(state.key("x")) is None
        assert await state.position("s-1") == -1

    async def test_ops_outside_the_vocabulary_or_its_keys_are_refused(
        self, storage: Storage
    ) -> None:
        state, other = storage.projection("mine"), storage.projection("theirs")
        (event,) = await events_of(storage, "s-1", 1)
        for ops in (
            [("FLUSHALL", state.key("x"))],  # not a projection's write
            [("SET", other.key("x"), 1)],  # another projection's key
            [("SET", "x", 1)],
            [("SET", state.key("ok"), 1), ("FLUSHALL", state.key("x"))],  # one bad op of two
        ):
            with pytest.raises(ValueError):
                await state.apply(event, ops)
        assert await state.get(state.key("ok")) is None
        assert await state.position("s-1") == -1

    async def test_passed_events_are_committed_with_the_next_write_or_commit_passed(
        self, storage: Storage
    ) -> None:
        state = storage.projection("passing")
        events = await events_of(storage, "s-1", 4)
        assert await state.apply_or_defer(events[0], [])
        assert await state.apply_or_defer(events[1], [])
        assert await state.position("s-1") == -1  # no write yet
        assert await state.apply_or_defer(events[2], [("SET", state.key("at"), 2)])
        assert await state.position("s-1") == 2
        assert await state.apply_or_defer(events[3], [])
        await state.commit_passed()
        assert await state.position("s-1") == 3

    async def test_passed_events_after_a_gap_are_not_committed(self, storage: Storage) -> None:
        state = storage.projection("passing-gap")
        events = await events_of(storage, "s-1", 3)
        assert await state.apply_or_defer(events[2], [])  # 0 and 1 never given
        await state.commit_passed()
        assert await state.position("s-1") == -1

    async def test_another_replica_sees_the_state_and_applies_nothing_twice(
        self, storage: Storage, storages: Storages
    ) -> None:
        state = storage.projection("shared")
        other = storages.sharing(storage).projection("shared")
        (event,) = await events_of(storage, "s-1", 1)
        ops = [("ZINCRBY", state.key("rank"), 3, "ada")]
        assert await state.apply(event, ops)
        assert not await other.apply(event, ops)
        assert await other.top_by_score(other.key("rank"), 0, 10) == [("ada", 3.0)]

    async def test_sorted_sets_read_as_redis_orders_them(self, storage: Storage) -> None:
        state = storage.projection("sorted")
        (event,) = await events_of(storage, "s-1", 1)
        rank, lex, times = state.key("rank"), state.key("lex"), state.key("times")
        ops = [
            ("ZINCRBY", rank, 5, "bo"),
            ("ZINCRBY", rank, 2, "al"),
            ("ZINCRBY", rank, 5, "cy"),  # a tie with bo: the greater member first
            ("ZINCRBY", rank, 1, "al"),
            ("ZADD", lex, 0, "0000000000001:a", 0, "0000000000002:b", 0, "0000000000003:c"),
            ("ZREM", lex, "0000000000002:b"),
            ("ZADD", times, 100, "1", 200, "2", 300, "3"),
        ]
        assert await state.apply(event, ops)
        assert await state.top_by_score(rank, 0, 10) == [("cy", 5.0), ("bo", 5.0), ("al", 3.0)]
        assert await state.top_by_score(rank, 1, 1) == [("bo", 5.0)]
        assert await state.top_by_score(rank, 0, 0) == []
        assert await state.members_before(lex, None, 10) == ["0000000000003:c", "0000000000001:a"]
        assert await state.members_before(lex, "0000000000003:c", 10) == ["0000000000001:a"]
        assert await state.members_before(lex, None, 1) == ["0000000000003:c"]
        assert await state.last_up_to(times, 250) == ("2", 200.0)
        assert await state.last_up_to(times, 99) is None
        assert await state.members_before(state.key("none"), None, 5) == []

    async def test_hashes_and_clear(self, storage: Storage) -> None:
        state = storage.projection("hashes")
        first, second = await events_of(storage, "s-1", 2)
        key = state.key("match:1")
        assert await state.apply(first, [("HSET", key, "a", "1", "b", "x y")])
        assert await state.apply(second, [("HSET", key, "a", 2), ("HINCRBY", key, "n", -3)])
        assert await state.hash(key) == {"a": "2", "b": "x y", "n": "-3"}
        assert await state.hash_values(key, ["b", "missing", "a"]) == ["x y", None, "2"]
        other = storage.projection("kept")
        assert await other.apply(first, [("SET", other.key("x"), 1)])
        await state.clear()
        assert await state.hash(key) == {} and await state.positions() == {}
        assert await state.apply(first, [("SET", state.key("again"), 1)])  # from nothing
        assert await other.get(other.key("x")) == "1"  # another projection's: untouched

    async def test_forget_drops_the_positions_named_and_what_was_passed_of_them(
        self, storage: Storage
    ) -> None:
        state: ProjectionStore = storage.projection("forgetting")
        events = await events_of(storage, "s-1", 3)
        assert await state.apply(events[0], [("SET", state.key("x"), 1)])
        assert await state.apply_or_defer(events[1], [])  # passed, not committed yet
        assert await state.commit("s-2", 4)
        await state.forget(["s-1", "s-none"])
        await state.commit_passed()  # what was passed of a forgotten stream stays out
        assert await state.positions() == {"s-2": 4}
        assert await state.get(state.key("x")) == "1"  # the state stays
        await state.forget([])

    async def test_forget_drops_the_keys_kept_for_those_streams_and_only_its_own(
        self, storage: Storage
    ) -> None:
        state: ProjectionStore = storage.projection("forgetting-keys")
        event = (await events_of(storage, "s-1", 1))[0]
        kept = [state.key(name) for name in ("games:s-1", "names:s-1", "rank:s-1", "bonus:s-1")]
        ops = [("RPUSH", kept[0], "a"), ("HSET", kept[1], "0", "ann"), ("ZADD", kept[2], 1, "m")]
        ops += [("SET", kept[3], 1), ("HINCRBY", state.key("all"), "ann", 1)]
        assert await state.apply(event, ops)
        other = storage.projection("another")
        with pytest.raises(ValueError):
            await state.forget(["s-1"], [other.key("games:s-1")])  # not its own: nothing
        assert await state.position("s-1") == 0
        await state.forget(["s-1"], kept)
        assert await state.positions() == {}
        assert await state.items(kept[0]) == [] and await state.hash(kept[1]) == {}
        assert await state.top_by_score(kept[2], 0, 10) == [] and await state.get(kept[3]) is None
        assert await state.hash(state.key("all")) == {"ann": "1"}  # what is for all stays

    async def test_a_write_of_its_own_runs_at_once_and_moves_no_checkpoint(
        self, storage: Storage
    ) -> None:
        state: ProjectionStore = storage.projection("writing")
        (event,) = await events_of(storage, "s-1", 1)
        listing, index = state.key("match:1"), state.key("idx")
        assert await state.apply(event, [("HSET", listing, "a", 1), ("ZADD", index, 0, "m1")])
        ops = [("DEL", listing), ("ZREM", index, "m1"), ("HSET", state.key("seg"), "s", "d")]
        await state.write([*ops, ("INCR", state.key("count"))])
        assert await state.hash(listing) == {} and await state.members_before(index, None, 9) == []
        assert await state.hash(state.key("seg")) == {"s": "d"}
        assert await state.get(state.key("count")) == "1"
        assert await state.positions() == {"s-1": 0}
        for refused in ([("SET", "x", 1)], [("HSET", state.key("y"), "a", 1), ("EVAL", "x")]):
            with pytest.raises(ValueError):
                await state.write(refused)
        assert await state.hash(state.key("y")) == {}  # one bad op of two: nothing written

    async def test_reset_forgets_positions_and_keeps_the_state(self, storage: Storage) -> None:
        state: ProjectionStore = storage.projection("resetting")
        (event,) = await events_of(storage, "s-1", 1)
        assert await state.apply(event, [("SET", state.key("x"), 1)])
        assert await state.commit("s-2", 4) and not await state.commit("s-2", 3)
        await state.reset()
        assert await state.positions() == {}
        assert await state.get(state.key("x")) == "1"

    async def test_retire_takes_closed_streams_applied_through_their_seals_in_close_order(
        self, storage: Storage
    ) -> None:
        state: ProjectionStore = storage.projection("retiring")
        events = {}
        for stream in ("s-a", "s-b", "s-c"):
            await storage.events.append(
                stream, [NewEvent("Tick", {}), NewEvent(CLOSING_TYPE, {})], -1
            )
            events[stream] = await storage.events.read(stream)
        for stream in ("s-a", "s-c"):  # s-b: only its first event
            for event in events[stream]:
                assert await state.apply(event, [("RPUSH", state.key(f"kept:{stream}"), event.seq)])
        assert await state.apply(events["s-b"][0], [])
        closed = await storage.events.closed_since(0)
        assert [(item.stream, item.number, item.last_seq) for item in closed] == [
            ("s-a", 1, 1),
            ("s-b", 2, 1),
            ("s-c", 3, 1),
        ]

        def kept(item: Closed) -> list[Op]:
            return [("DEL", state.key(f"kept:{item.stream}"))]

        def not_its_own(item: Closed) -> list[Op]:  # for the second
            if item.stream == "s-a":
                return kept(item)
            return [("DEL", storage.projection("another").key(f"kept:{item.stream}"))]

        with pytest.raises(ValueError):
            await state.retire(closed, not_its_own)
        assert await state.watermark() == 0  # refused: nothing done, for the first either
        assert await state.items(state.key("kept:s-a")) == ["0", "1"]
        assert await state.retire(closed, kept) == 1  # s-a; s-b is not through its seal
        assert await state.watermark() == 1
        assert await state.positions() == {"s-b": 0, "s-c": 1}
        assert await state.items(state.key("kept:s-a")) == []
        assert await state.items(state.key("kept:s-c")) == ["0", "1"]
        assert await state.retire(closed, kept) == 0  # the same again: nothing more
        assert await state.apply(events["s-b"][1], [])
        assert await state.retire(await storage.events.closed_since(1), kept) == 2
        assert await state.watermark() == 3 and await state.positions() == {}
        assert await state.items(state.key("kept:s-c")) == []
        await state.reset()
        assert await state.watermark() == 0


# --- the lease --------------------------------------------------------------------------------


class LeaseCase(PortCase):
    async def test_one_holder_at_a_time_and_a_released_lease_is_free_at_once(
        self, storage: Storage, storages: Storages
    ) -> None:
        first, second = storage.lease("work"), storages.sharing(storage).lease("work")
        assert await first.claim()
        assert not await second.claim()
        assert await first.claim()  # renewed
        await second.release()  # not its lease: changes nothing
        assert not await second.claim()
        await first.release()
        assert await second.claim()
        assert not await first.claim()
        assert await storage.lease("other work").claim()  # leases of other names: apart

    async def test_a_lease_its_holder_stops_renewing_lapses(
        self, storage: Storage, storages: Storages
    ) -> None:
        # a second of lease: a loaded machine may stall a few hundred ms between two claims
        gone = storage.lease("work", ttl_ms=1_000)
        waiting = storages.sharing(storage).lease("work", ttl_ms=1_000)
        assert await gone.claim()
        assert not await waiting.claim()
        await asyncio.sleep(1.2)
        assert await waiting.claim()
        assert not await gone.claim()


# --- the server key ------------------------------------------------------------------------


class ServerKeyCase(PortCase):
    async def test_made_once_then_the_same_for_every_replica(
        self, storage: Storage, storages: Storages
    ) -> None:
        key = await storage.server_key().load()
        assert len(key) == 32
        assert await storage.server_key().load() == key
        others = [storages.sharing(storage).server_key() for _ in range(5)]
        assert {await other.load() for other in others} == {key}

    async def test_replicas_starting_together_agree(self, storages: Storages) -> None:
        first = storages.storage()
        keys = await asyncio.gather(
            *(storages.sharing(first).server_key().load() for _ in range(10))
        )
        assert len(set(keys)) == 1


# --- the quotas (every rate limit and gauge) ------------------------------------------------

CREATES = Window("creates:a", 2, 60_000)
BOTS = Gauge("bots", 5, 3)


class QuotaCase(PortCase):
    """Windows slide, gauges hold until released (or their hold runs out), a take is
    all or nothing, a token is taken once, and the clock is the caller's (no sleeping)."""

    @pytest.fixture
    def quotas(self, storage: Storage) -> QuotaStore:
        return storage.quotas()

    async def test_a_window_slides(self, quotas: QuotaStore) -> None:
        assert await quotas.take("m1", "t1", [CREATES], [], 1_000) is None
        assert await quotas.take("m2", "t2", [CREATES], [], 21_000) is None
        # full until the first take is a window old: then one slot frees
        assert await quotas.take("m3", "t3", [CREATES], [], 30_000) == Full("creates:a", 31_000)
        assert await quotas.take("m3", "t3", [CREATES], [], 61_000) is None
        assert await quotas.take("m4", "t4", [CREATES], [], 61_000) == Full("creates:a", 20_000)
        # another key has its own window
        assert await quotas.take("m4", "t4", [Window("creates:b", 2, 60_000)], [], 61_000) is None

    async def test_a_gauge_holds_until_released(self, quotas: QuotaStore) -> None:
        assert await quotas.take("m1", "t1", [], [BOTS], 0) is None
        assert await quotas.held("bots", 0) == 3
        assert await quotas.take("m2", "t2", [], [BOTS], 10**9) == Full("bots")
        assert await quotas.take("m2", "t2", [], [Gauge("bots", 5, 2)], 10**9) is None
        assert await quotas.held("bots", 10**9) == 5
        assert sorted(await quotas.holders()) == ["m1", "m2"]
        await quotas.release("m1")
        await quotas.release("m1")  # again: nothing
        assert await quotas.held("bots", 10**9) == 2
        assert await quotas.holders() == ["m2"]
        assert await quotas.take("m3", "t3", [], [BOTS], 10**9) is None

    async def test_a_take_is_all_or_nothing(self, quotas: QuotaStore) -> None:
        assert await quotas.take("m1", "t1", [], [Gauge("bots", 5, 4)], 0) is None
        # the gauge is full: the window's slot is not taken either
        assert await quotas.take("m2", "t2", [CREATES], [BOTS], 0) == Full("bots")
        assert await quotas.take("m2", "t2", [CREATES], [], 0) is None
        assert await quotas.take("m3", "t3", [CREATES], [], 0) is None
        # the window is full: no unit of the gauge is held
        assert await quotas.take("m4", "t4", [CREATES], [Gauge("bots", 5, 1)], 0) == Full(
            "creates:a", 60_000
        )
        assert await quotas.held("bots", 0) == 4

    async def test_a_token_is_taken_once_and_a_holder_adds_under_new_ones(
        self, quotas: QuotaStore
    ) -> None:
        for _ in range(3):  # a retried request
            assert await quotas.take("m1", "create", [CREATES], [BOTS], 0) is None
        assert await quotas.held("bots", 0) == 3
        assert await quotas.take("m2", "t", [CREATES], [], 0) is None  # one slot was left
        # the match seats one more bot later: held under the same holder
        assert await quotas.take("m1", "bot 4", [], [Gauge("bots", 5, 1)], 0) is None
        assert await quotas.held("bots", 0) == 4
        await quotas.release("m1")
        assert await quotas.held("bots", 0) == 0

    async def test_a_take_given_back_frees_its_units_and_its_token(
        self, quotas: QuotaStore
    ) -> None:
        seats = Gauge("seats:a", 2, 1)
        assert await quotas.take("m1", "join 1", [], [seats], 0) is None
        assert await quotas.take("m1", "join 2", [], [seats], 0) is None
        assert await quotas.take("m2", "join 3", [], [seats], 0) == Full("seats:a")
        await quotas.give_back("m1", "join 2")  # that join lost the race for its seat
        await quotas.give_back("m1", "join 2")  # again: nothing
        await quotas.give_back("m1", "never taken")
        await quotas.give_back("nobody", "join 1")
        assert await quotas.held("seats:a", 0) == 1
        assert await quotas.take("m2", "join 3", [], [seats], 0) is None
        # the token given back takes anew (and finds the gauge full now)
        assert await quotas.take("m1", "join 2", [], [seats], 0) == Full("seats:a")
        await quotas.release("m1")  # what it still held under its other token
        assert await quotas.held("seats:a", 0) == 1

    async def test_a_hold_runs_out_by_itself(self, quotas: QuotaStore) -> None:
        audits = Gauge("audits:a", 1, 1)
        assert await quotas.take("job1", "job1", [], [audits], 1_000, hold_ms=5_000) is None
        assert await quotas.take("job2", "job2", [], [audits], 5_999, hold_ms=5_000) == Full(
            "audits:a"
        )
        # the first job's process died without releasing: its unit lapses
        assert await quotas.take("job2", "job2", [], [audits], 6_000, hold_ms=5_000) is None
        assert await quotas.held("audits:a", 6_000) == 1

    async def test_a_count_takes_for_nobody_and_counts_every_time(self, quotas: QuotaStore) -> None:
        signups = [Window("signups:address:a", 2, 60_000), Window("signups:all", 3, 60_000)]
        assert await quotas.count(signups, 0) is None
        assert await quotas.count(signups, 1_000) is None  # the same again counts again
        assert await quotas.count(signups, 2_000) == Full("signups:address:a", 58_000)
        # refused by the first window: the second took nothing
        assert await quotas.count([signups[1]], 3_000) is None
        assert await quotas.count([signups[1]], 4_000) == Full("signups:all", 56_000)
        assert await quotas.holders() == []  # nothing held, nothing to release
        # the window slides: the takes at 0 are a window old
        assert await quotas.count(signups, 60_000) is None
        assert await quotas.count(signups, 60_500) == Full("signups:address:a", 500)
        assert await quotas.count(signups, 61_000) is None

    async def test_a_count_and_a_take_share_a_window(self, quotas: QuotaStore) -> None:
        assert await quotas.take("m1", "t1", [CREATES], [], 0) is None
        assert await quotas.count([CREATES], 0) is None
        assert await quotas.take("m2", "t2", [CREATES], [], 0) == Full("creates:a", 60_000)
        with pytest.raises(ValueError):
            await quotas.take("", "t3", [CREATES], [BOTS], 0)  # a take has a holder
        assert await quotas.held("bots", 0) == 0


# --- each case on each storage --------------------------------------------------------------


class TestProjectionStoreInMemory(InMemory, ProjectionStoreCase):
    pass


class TestProjectionStoreRedis(SingleRedis, ProjectionStoreCase):
    pass


class TestProjectionStoreCluster(ClusterRedis, ProjectionStoreCase):
    pass


class TestLeaseInMemory(InMemory, LeaseCase):
    pass


class TestLeaseRedis(SingleRedis, LeaseCase):
    pass


class TestLeaseCluster(ClusterRedis, LeaseCase):
    pass


class TestServerKeyInMemory(InMemory, ServerKeyCase):
    pass


class TestServerKeyRedis(SingleRedis, ServerKeyCase):
    pass


class TestServerKeyCluster(ClusterRedis, ServerKeyCase):
    pass


class TestQuotasInMemory(InMemory, QuotaCase):
    pass


class TestQuotasRedis(SingleRedis, QuotaCase):
    pass


class TestQuotasCluster(ClusterRedis, QuotaCase):
    pass
