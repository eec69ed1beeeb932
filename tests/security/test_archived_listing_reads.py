"""A page of a rare filter may read a segment of archived listings from the archive for
each of its matches (an object store's GET each): listing matches is one of the caller's
reads, and each segment read from the archive one more, so a caller cannot make the
service read the archive faster than its read rate. A segment kept decoded costs
nothing; another address has reads of its own."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator

import httpx
import pytest

from eventstore import InMemoryArchive, InMemoryStorage
from service.app.catalog import CatalogProjection
from service.app.keyring import Keyring
from service.app.listings import ArchivedListings
from service.app.match import stream_of
from service.app.projections import ResultsProjection
from service.app.service import GameService
from service.app.signing import ephemeral_signer
from service.rest.app import RestSettings, create_app
from service.rest.read_rate import ReadRate
from tests.unit.test_archived_listings import Made, catalog_over, listed

BURST = 8


@pytest.fixture
async def app_over_segments() -> AsyncIterator[tuple[object, CatalogProjection]]:
    storage, archive = InMemoryStorage(), InMemoryArchive()
    catalog = catalog_over(storage, archive, 1)  # a segment a match: the rarest filter
    made = [Made(f"m{i:02d}", "classic", 1_700_000_000_000 + i, "finished") for i in range(12)]
    await listed(catalog, made)
    await catalog.forget([stream_of(m.match_id) for m in made])
    assert len(archive.part("listings").objects) == 12
    reader = CatalogProjection(storage, ArchivedListings.beside(archive))  # REST's own
    service = GameService(storage.events, Keyring(secrets.token_bytes(32)))
    settings = RestSettings(reads=ReadRate(per_second=0.001, burst=BURST))
    app = create_app(
        service, reader, ResultsProjection(storage), ephemeral_signer().key_set(), settings
    )
    try:
        yield app, reader
    finally:
        await service.fanout.close()


def client_at(app: object, address: str) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=app, client=(address, 40000))  # type: ignore[arg-type]
    return httpx.AsyncClient(transport=transport, base_url="http://test")


async def test_each_segment_read_from_the_archive_is_a_read_of_the_caller_s(
    app_over_segments: tuple[object, CatalogProjection],
) -> None:
    app, _ = app_over_segments
    async with client_at(app, "192.0.2.7") as caller, client_at(app, "198.51.100.9") as other:
        first = await caller.get("/matches", params={"state": "finished", "limit": 5})
        assert first.status_code == 200, first.text  # 1 + 6 segments read: 7 of 8
        assert [m["match_id"] for m in first.json()["matches"]] == [
            f"m{i:02d}" for i in (11, 10, 9, 8, 7)
        ]
        again = await caller.get("/matches", params={"state": "finished", "limit": 5})
        assert again.json() == first.json()  # its segments kept decoded: one read, 8 of 8
        deeper = await caller.get(
            "/matches", params={"state": "finished", "cursor": first.json()["next"]}
        )
        assert deeper.status_code == 429 and deeper.json()["code"] == "rate_limited"
        assert int(deeper.headers["Retry-After"]) >= 1
        # another address reads on, the rest of the segments from the archive
        whole = await other.get("/matches", params={"state": "finished", "limit": 7})
        assert whole.status_code == 200
        rest = await other.get("/matches", params={"cursor": whole.json()["next"]})
        assert [m["match_id"] for m in rest.json()["matches"]] == [
            f"m{i:02d}" for i in range(4, -1, -1)
        ]


async def test_each_volume_read_from_the_archive_is_charged_as_a_segment_is(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    storage, archive = InMemoryStorage(), InMemoryArchive()
    writer = catalog_over(storage, archive, 1, volume_size=2)  # volumes three deep
    made = [Made(f"m{i:02d}", "classic", 1_700_000_000_000 + i, "finished") for i in range(12)]
    await listed(writer, made)
    await writer.forget([stream_of(m.match_id) for m in made])
    part = archive.part("listings")
    gets: list[str] = []
    original = part.get

    async def counted(name: str) -> bytes | None:
        gets.append(name)
        return await original(name)

    monkeypatch.setattr(part, "get", counted)
    reader = CatalogProjection(storage, ArchivedListings.beside(archive))
    charged = 0

    def reading() -> None:
        nonlocal charged
        charged += 1

    cursor: str | None = None
    shown: list[str] = []
    while True:
        page, cursor = await reader.page("finished", None, 2, cursor, reading)
        shown += [listing.match_id for listing in page]
        if cursor is None:
            break
    assert shown == [f"m{i:02d}" for i in range(11, -1, -1)]
    assert any(name.startswith("volume-") for name in gets)
    assert charged == len(gets) > 0  # every object read from the archive, and only those
