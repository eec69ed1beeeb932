"""The match catalog projection: follows the events exactly once, lists newest
first by state and preset, and rebuilds to the same listing."""

from __future__ import annotations

import asyncio
import secrets
import uuid
from collections.abc import AsyncIterator

import pytest

from eventstore import InMemoryStorage, RedisStorage, Storage
from service.app.catalog import CatalogProjection
from service.app.following import SharedFeed
from service.app.keyring import Keyring
from service.app.projections import ResultsProjection
from service.app.service import GameService, MatchOptions
from service.match import AbandonReason


@pytest.fixture(params=["memory", "redis"])
async def storage(request: pytest.FixtureRequest) -> AsyncIterator[Storage]:
    """Storage of its own: in memory, or in Redis under a fresh prefix (removed after)."""
    if request.param == "memory":
        yield InMemoryStorage()
        return
    prefix = f"catalog-{uuid.uuid4().hex[:8]}"
    redis_storage = RedisStorage.from_url(request.getfixturevalue("redis_url"), prefix=prefix)
    try:
        yield redis_storage
    finally:
        client = await redis_storage.events.raw_client()
        keys = [key async for key in client.scan_iter(match=f"{prefix}:*")]
        if keys:
            await client.delete(*keys)
        await redis_storage.close()


@pytest.fixture
def service(storage: Storage) -> GameService:
    return GameService(storage.events, Keyring(secrets.token_bytes(32)))


async def play_to_the_end(service: GameService, match_id: str, tokens: tuple[str, ...]) -> None:
    for _ in range(1000):
        match = await service.load(match_id)
        if match.over:
            return
        turn = match.game.turn
        assert turn is not None
        actions = (await service.seen(match_id, tokens[turn])).actions
        await service.act(match_id, tokens[turn], lambda seat, chosen=actions[0]: chosen)
    raise AssertionError("the match did not end")


async def listing(catalog: CatalogProjection) -> dict[str, list[tuple[str, str, int]]]:
    pages = {}
    for state in (None, "open", "live", "finished"):
        for preset in (None, "classic", "federation"):
            items, after = await catalog.page(state, preset, 100)
            assert after is None
            pages[f"{state} {preset}"] = [(i.match_id, i.state, i.game_number) for i in items]
    return pages


async def test_the_catalog_lists_follows_and_rebuilds(
    service: GameService, storage: Storage
) -> None:
    opened = await service.create(MatchOptions("classic", 3, {}, open_seats=True))
    live = await service.create(MatchOptions("federation", 4, {}, games_per_set=2))
    await service.start(live.match_id, live.host_token)
    done = await service.create(MatchOptions("classic", 2, {}, games_per_set=1))
    await service.start(done.match_id, done.host_token)
    await play_to_the_end(service, done.match_id, done.seat_tokens)

    catalog = CatalogProjection(storage)
    await catalog.catch_up()
    items, after = await catalog.page(limit=10)
    by_id = {item.match_id: item for item in items}
    assert by_id.keys() == {done.match_id, live.match_id, opened.match_id} and after is None
    # newest first; matches created in the same millisecond follow their ids
    newest_first = sorted(by_id.values(), key=lambda i: (i.created_at, i.match_id), reverse=True)
    assert items == newest_first
    assert by_id[opened.match_id].created_at <= by_id[live.match_id].created_at
    assert by_id[live.match_id].created_at <= by_id[done.match_id].created_at
    assert by_id[opened.match_id].state == "open" and by_id[opened.match_id].names == ("", "", "")
    assert by_id[live.match_id].state == "live" and by_id[live.match_id].game_number == 1
    assert by_id[live.match_id].games_per_set == 2 and by_id[live.match_id].players == 4
    assert by_id[done.match_id].state == "finished"
    assert by_id[done.match_id].names == ("seat 0", "seat 1")
    assert by_id[done.match_id].version == await service.store.version(f"m:{done.match_id}")

    # a page at a time: the cursor of one page starts the next
    first, cursor = await catalog.page(limit=2)
    second, end = await catalog.page(limit=2, cursor=cursor)
    assert [i.match_id for i in first + second] == [i.match_id for i in items] and end is None
    with pytest.raises(ValueError):
        await catalog.page(cursor="not a cursor")

    before = await listing(catalog)
    assert before["live federation"] == [(live.match_id, "live", 1)]
    assert before["open federation"] == [] and before["finished classic"][0][0] == done.match_id
    await catalog.catch_up()  # nothing new: nothing applied twice
    assert await listing(catalog) == before
    await catalog.rebuild()
    assert await listing(catalog) == before

    # running, it follows what happens next
    feed = SharedFeed(service.store, [catalog])
    following = asyncio.create_task(feed.run())
    try:
        await service.join(opened.match_id, "Ada")
        for _ in range(200):
            found = await catalog.listing(opened.match_id)
            if found is not None and found.names[0] == "Ada":
                break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError("the catalog did not follow the join")
    finally:
        feed.stop()
        await asyncio.wait_for(following, 5)


async def test_an_abandoned_match_leaves_the_open_and_live_lists_and_keeps_its_played_games(
    service: GameService, storage: Storage
) -> None:
    opened = await service.create(MatchOptions("classic", 3, {}, open_seats=True))
    # delayed: its games are counted at its end, which here is the abandonment
    live = await service.create(MatchOptions("classic", 2, {}, games_per_set=3, spectator_delay=60))
    await service.start(live.match_id, live.host_token)
    for _ in range(1000):  # play the first game out, then stop in the second
        match = await service.load(live.match_id)
        if match.game.game_number == 2:
            break
        turn = match.game.turn
        assert turn is not None
        actions = (await service.seen(live.match_id, live.seat_tokens[turn])).actions
        await service.act(live.match_id, live.seat_tokens[turn], lambda _s, a=actions[0]: a)
    for made in (opened, live):
        assert await service.abandon(made.match_id, AbandonReason.IDLE) is not None
        assert (await service.load(made.match_id)).sealed

    catalog, results = CatalogProjection(storage), ResultsProjection(storage)
    await catalog.catch_up()
    await results.catch_up()
    pages = await listing(catalog)
    assert pages["open None"] == [] and pages["live None"] == []
    abandoned, _ = await catalog.page("abandoned")
    assert {item.match_id for item in abandoned} == {opened.match_id, live.match_id}
    assert all(item.state == "abandoned" for item in abandoned)
    # the game played out counts; the one it stopped in counts for nobody
    ranking = await results.ranking(limit=100)
    assert sum(standing.games for standing in ranking) == 2  # one game, two seats
    assert sum(standing.points for standing in ranking) == 1
