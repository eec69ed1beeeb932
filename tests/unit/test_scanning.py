"""The look over the store the background workers start from: every stream's position
and each match's last event, page by page, made once for the workers that start
together and afresh for one that starts later."""

from __future__ import annotations

import asyncio

from eventstore import InMemoryEventStore, NewEvent
from service.app.scanning import SharedScan, scan_streams


class CountingStore(InMemoryEventStore):
    """Counts the pages of streams asked for: one scan asks until a short page."""

    def __init__(self) -> None:
        super().__init__()
        self.pages = 0

    async def streams(self, offset: int = 0, limit: int = 50) -> list[str]:
        self.pages += 1
        await asyncio.sleep(0.01)  # a round trip: the other workers ask meanwhile
        return await super().streams(offset, limit)


async def fill(store: InMemoryEventStore) -> None:
    for stream, types in {
        "m:live": ["MatchCreated", "CardsPlayed"],
        "m:ended": ["MatchCreated", "MatchEnded", "SeedRevealed"],
        "m:sealed": ["MatchCreated", "SeedRevealed", "MatchSealed"],
        "other": ["Tick", "Tick", "Tick", "Tick"],
        "m:open": ["MatchCreated"],
    }.items():
        await store.append(stream, [NewEvent(kind, {}) for kind in types], -1)


async def test_a_scan_reads_every_page_of_streams() -> None:
    store = InMemoryEventStore()
    await fill(store)
    scan = await scan_streams(store, page=2)
    # the sealed match is in the close log, within the watermark: no worker reads it
    assert scan.positions == {"m:live": 1, "m:ended": 2, "other": 3, "m:open": 0}
    assert scan.watermark == 1
    assert scan.last_types == {  # by match id: "other" is the stream of no match
        "live": "CardsPlayed",
        "ended": "SeedRevealed",
        "open": "MatchCreated",
    }
    assert scan.live() == ["live", "open"]


async def test_workers_that_start_together_share_one_scan_and_a_later_one_looks_again() -> None:
    store = CountingStore()
    await fill(store)
    shared = SharedScan(store)
    first, second, third = await asyncio.gather(shared.scan(), shared.scan(), shared.scan())
    assert first is second is third
    assert store.pages == 1  # five streams: one short page

    await store.append("m:new", [NewEvent("MatchCreated", {})], -1)
    later = await shared.scan()  # a start tried again: where the store is now
    assert store.pages == 2
    assert later.positions["m:new"] == 0 and "m:new" not in first.positions


async def test_a_scan_cut_short_leaves_the_others_one_of_their_own() -> None:
    store = CountingStore()
    await fill(store)
    shared = SharedScan(store)
    cut = asyncio.create_task(shared.scan())
    waiting = asyncio.create_task(shared.scan())
    await asyncio.sleep(0)  # the first holds the lock and waits on its page
    cut.cancel()
    scan = await waiting
    assert scan.positions["m:live"] == 1
    assert cut.cancelled()
