"""What every fault test ends with: the match's stream intact and audited valid,
every acknowledged action in it exactly once as it was answered, nothing in it
that no client was told about, and every streamed seq once."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Collection, Sequence

from eventstore import RedisEventStore, RedisStorage, StoredEvent
from service.app.keyring import Keyring
from service.audit import audit_events

from .players import Ledger
from .table import SEATS, Table
from .watchers import LAST_EVENT, StreamWatcher


async def assert_match_sound(
    store: RedisEventStore,
    table: Table,
    ledger: Ledger,
    watchers: Sequence[StreamWatcher] = (),
) -> list[StoredEvent]:
    events = await store.read(table.stream)
    verification = await store.verify(table.stream)
    assert verification.ok, verification
    report = audit_events(events)
    assert report.verdict == "valid", report.to_dict()
    assert events[-1].type == LAST_EVENT, "the match did not finish"

    appends = appends_by_request(events)
    for request_id, seqs in appends.items():
        assert seqs == list(range(seqs[0], seqs[-1] + 1)), f"{request_id} written twice: {seqs}"

    stored_ids = await stored_request_ids(store)
    answered = [stored_ids(ack.request_id, appends) for ack in ledger.acknowledged]
    assert len(answered) == len(set(answered)), "one request recorded twice"
    for ack, stored_id in zip(ledger.acknowledged, answered, strict=True):
        stored = [events[seq] for seq in appends.get(stored_id, [])]
        assert stored, f"acknowledged {ack.request_id} is not in the stream"
        assert [(e.seq, e.type, e.at) for e in stored] == list(ack.events), ack
        assert ack.version == stored[-1].seq, ack

    started = next(e.request_id for e in events if e.type == "MatchStarted")
    setup = {events[0].request_id, started}
    sealed = {rid for rid in appends if rid == "service:seal"}  # the service's own, last
    assert set(appends) - setup - sealed == set(answered), "an append no client was told about"

    expected = [(e.seq, e.type) for e in events]
    for watcher in watchers:
        assert watcher.seen == expected, "a streamed event missing or repeated"
    return events


async def stored_request_ids(store: RedisEventStore) -> Callable[[str, Collection[str]], str]:
    """How to find the id the store holds for a seat's request id among ``known`` ones:
    the service stores a digest scoped to the seat, and a request is of one seat."""
    keyring = Keyring(await RedisStorage(store).server_key().load())

    def stored_id(request_id: str, known: Collection[str]) -> str:
        scoped = [keyring.request_digest(f"seat:{seat}", request_id) for seat in range(SEATS)]
        found = [digest for digest in scoped if digest in known]
        assert len(found) <= 1, f"{request_id} stored for two seats"
        return found[0] if found else scoped[0]

    return stored_id


def appends_by_request(events: Sequence[StoredEvent]) -> dict[str, list[int]]:
    """The seqs written under each request id."""
    seqs: dict[str, list[int]] = defaultdict(list)
    for event in events:
        seqs[event.request_id].append(event.seq)
    return dict(seqs)
