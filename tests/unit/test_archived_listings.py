"""The catalog lists archived matches as it listed them live: once their streams left the
store, their listings retire to segments in the archive, and every page of every filter
(state, preset, cursor, size) is the one it was, each match once. A crash between a
segment's write and its descriptor leaves the listings where they were."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eventstore import InMemoryArchive, InMemoryStorage, Op, Storage, StoredEvent
from service.app.catalog import CatalogProjection
from service.app.listings import (
    VOLUME_SIZE,
    ArchivedListings,
    Listing,
    MatchState,
    Segment,
    segment_of,
)
from service.app.match import stream_of

PRESETS = ("classic", "uecda")
FILTERS: list[tuple[MatchState | None, str | None]] = [
    (state, preset)
    for state in (None, "open", "live", "finished", "abandoned")
    for preset in (None, *PRESETS)
]


@dataclass(frozen=True)
class Made:
    match_id: str
    preset: str
    created_at: int
    ends: MatchState  # where its events leave it


def events_of(made: Made) -> list[StoredEvent]:
    """The listed events of a match that ends as ``made.ends`` says (a finished or
    abandoned one sealed: only those are archived)."""
    kinds: list[tuple[str, dict[str, object]]] = [
        ("MatchCreated", {"preset": made.preset, "players": 3, "match_id": made.match_id}),
        ("SeatJoined", {"seat": 0, "name": f"host of {made.match_id}"}),
    ]
    if made.ends in ("live", "finished"):
        kinds += [("MatchStarted", {}), ("GameDealt", {"game_number": 1})]
    if made.ends == "finished":
        kinds.append(("MatchEnded", {}))
    if made.ends == "abandoned":
        kinds.append(("MatchAbandoned", {}))
    if made.ends in ("finished", "abandoned"):
        kinds.append(("MatchSealed", {}))
    stream = stream_of(made.match_id)
    return [
        StoredEvent(stream, seq, type_, 1, data, f"r{seq}", made.created_at + seq, "", "")
        for seq, (type_, data) in enumerate(kinds)
    ]


async def listed(catalog: CatalogProjection, made: Sequence[Made]) -> None:
    for match in made:
        for event in events_of(match):
            await catalog.apply(event)


async def every_page(
    catalog: CatalogProjection, state: MatchState | None, preset: str | None, limit: int
) -> list[list[Listing]]:
    pages: list[list[Listing]] = []
    cursor: str | None = None
    while True:
        page, cursor = await catalog.page(state, preset, limit, cursor)
        pages.append(page)
        if cursor is None:
            return pages


async def all_pages(catalog: CatalogProjection, limit: int) -> dict[object, object]:
    return {
        (state, preset): await every_page(catalog, state, preset, limit)
        for state, preset in FILTERS
    }


def catalog_over(
    storage: Storage, archive: InMemoryArchive, size: int, volume_size: int = VOLUME_SIZE
) -> CatalogProjection:
    catalog = CatalogProjection(storage, ArchivedListings.beside(archive))
    catalog.segment_size = size
    catalog.volume_size = volume_size
    return catalog


async def descriptors(catalog: CatalogProjection) -> list[Segment]:
    """The descriptors Redis holds."""
    return [
        segment_of(text)
        for text in (await catalog.state.hash(catalog.state.key("segments"))).values()
    ]


@st.composite
def matches(draw: st.DrawFn) -> list[Made]:
    count = draw(st.integers(1, 25))
    # creation times may tie: the id breaks the tie, as the index orders them
    times = draw(st.lists(st.integers(0, 40), min_size=count, max_size=count))
    return [
        Made(
            f"m{index:02d}",
            draw(st.sampled_from(PRESETS)),
            1_700_000_000_000 + at,
            draw(st.sampled_from(["open", "live", "finished", "abandoned"])),
        )
        for index, at in enumerate(times)
    ]


@settings(max_examples=60, deadline=None)
@given(
    matches(),
    st.integers(1, 4),
    st.integers(2, 3),
    st.integers(1, 6),
    st.lists(st.integers(1, 5), max_size=6),
    st.booleans(),
)
def test_every_page_is_as_it_was_once_archived_matches_retire(
    made: list[Made], size: int, volume_size: int, limit: int, batches: list[int], the_rest: bool
) -> None:
    async def run() -> None:
        storage, archive = InMemoryStorage(), InMemoryArchive()
        catalog = catalog_over(storage, archive, size, volume_size)
        await listed(catalog, made)
        before = await all_pages(catalog, limit)
        sealed = [stream_of(m.match_id) for m in made if m.ends in ("finished", "abandoned")]
        start = 0
        for batch in [*batches, len(sealed)]:  # as the followers learn they left
            await catalog.forget(sealed[start : start + batch])
            start += batch
        if the_rest:
            await catalog.retire_listings(everything=True)
        assert await all_pages(catalog, limit) == before
        retiring = await catalog.state.members_before(catalog.state.key("retiring"), None, 100)
        retired = len(sealed) - len(retiring)
        assert retired == (len(sealed) if the_rest else len(sealed) // size * size)
        objects = archive.part("listings").objects
        assert len([name for name in objects if name.startswith("segment-")]) == -(-retired // size)
        # Redis holds at most volume_size descriptors of each depth; together they count
        # every retired listing once
        held = await descriptors(catalog)
        for depth in {segment.depth for segment in held}:
            assert len([s for s in held if s.depth == depth]) <= volume_size
        assert sum(sum(segment.counts.values()) for segment in held) == retired
        # nothing of a retired match is kept here but its segment's descriptor
        memory = storage.projection("catalog").memory  # type: ignore[attr-defined]
        indexed = set().union(*memory.sorted_sets.values())
        for match in made:
            here = f"{{cp:catalog}}:match:{match.match_id}" in memory.hashes
            member = f"{match.created_at:013d}:{match.match_id}"
            gone = stream_of(match.match_id) in sealed and match.match_id not in retiring
            assert here is not gone and (member in indexed) is not gone

    asyncio.run(run())


def test_a_crash_between_the_segment_and_its_descriptor_neither_loses_nor_doubles(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async def run() -> None:
        storage, archive = InMemoryStorage(), InMemoryArchive()
        catalog = catalog_over(storage, archive, 2)
        made = [Made(f"m{i}", "classic", 1_700_000_000_000 + i, "finished") for i in range(4)]
        await listed(catalog, made)
        before = await all_pages(catalog, 3)

        original = catalog.state.write

        async def crashed(ops: object) -> None:
            raise ConnectionError("the store went away")

        await catalog.forget([stream_of(made[0].match_id)])  # one retiring: no segment yet
        monkeypatch.setattr(catalog.state, "write", crashed)
        with pytest.raises(ConnectionError):  # before it was marked retiring
            await catalog.forget([stream_of(made[1].match_id)])
        monkeypatch.setattr(catalog.state, "write", original)
        assert archive.part("listings").objects == {}
        await catalog.forget([stream_of(made[1].match_id)])  # learnt again: two, a segment
        assert await all_pages(catalog, 3) == before
        assert len(archive.part("listings").objects) == 1

        await catalog.forget([stream_of(made[2].match_id)])
        writes = 0

        async def second_write_crashes(ops: Sequence[Op]) -> None:
            nonlocal writes
            writes += 1
            if writes == 2:  # the descriptor's, after the segment was written
                raise ConnectionError("the store went away")
            await original(ops)

        monkeypatch.setattr(catalog.state, "write", second_write_crashes)
        with pytest.raises(ConnectionError):
            await catalog.forget([stream_of(made[3].match_id)])
        monkeypatch.setattr(catalog.state, "write", original)
        assert len(archive.part("listings").objects) == 2
        assert await all_pages(catalog, 3) == before  # its listings are still here
        await catalog.retire_listings()  # the same listings: the same segment, written again
        assert len(archive.part("listings").objects) == 2
        assert await all_pages(catalog, 3) == before
        assert await catalog.state.members_before(catalog.state.key("retiring"), None, 9) == []
        assert len(await catalog.state.hash(catalog.state.key("segments"))) == 2

    asyncio.run(run())


def test_a_rebuild_keeps_the_archived_listings() -> None:
    async def run() -> None:
        storage, archive = InMemoryStorage(), InMemoryArchive()
        catalog = catalog_over(storage, archive, 2)
        made = [Made(f"m{i}", PRESETS[i % 2], 1_700_000_000_000 + i, "finished") for i in range(5)]
        await listed(catalog, made)
        before = await all_pages(catalog, 2)
        await catalog.forget([stream_of(m.match_id) for m in made])  # two segments, one left
        await catalog.rebuild()  # the store holds none of them: the fold finds nothing
        assert await all_pages(catalog, 2) == before
        assert len(archive.part("listings").objects) == 3  # the last retired before the fold

    asyncio.run(run())


def test_a_crash_between_a_volume_and_its_descriptor_neither_loses_nor_doubles(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async def run() -> None:
        storage, archive = InMemoryStorage(), InMemoryArchive()
        catalog = catalog_over(storage, archive, 1, volume_size=2)
        made = [Made(f"m{i}", PRESETS[i % 2], 1_700_000_000_000 + i, "finished") for i in range(5)]
        await listed(catalog, made)
        before = await all_pages(catalog, 2)
        await catalog.forget([stream_of(m.match_id) for m in made[:2]])  # two segments
        original = catalog.state.write

        async def volume_write_crashes(ops: Sequence[Op]) -> None:
            if ops[0][0] == "HDEL":  # the volume's descriptor for its segments'
                raise ConnectionError("the store went away")
            await original(ops)

        monkeypatch.setattr(catalog.state, "write", volume_write_crashes)
        with pytest.raises(ConnectionError):  # the third segment is one too many
            await catalog.forget([stream_of(made[2].match_id)])
        monkeypatch.setattr(catalog.state, "write", original)
        assert sorted(s.depth for s in await descriptors(catalog)) == [0, 0, 0]
        assert await all_pages(catalog, 2) == before  # the volume is named by nothing
        await catalog.forget([stream_of(m.match_id) for m in made[3:]])  # the same volume again
        volumes = [name for name in archive.part("listings").objects if name.startswith("volume")]
        assert len(volumes) == 2  # the first, written twice, then the next two segments'
        assert sorted(s.depth for s in await descriptors(catalog)) == [0, 1, 1]
        assert await all_pages(catalog, 2) == before
        reader = CatalogProjection(storage, ArchivedListings.beside(archive))  # nothing decoded
        reader.volume_size = 2
        assert await all_pages(reader, 2) == before

    asyncio.run(run())
