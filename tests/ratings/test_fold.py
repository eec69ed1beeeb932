"""The ratings fold: rebuilding a pool from its stream gives the same numbers bit for
bit, however the stream was read (at once, or page by page as events came); and over
the store, the same after a fresh ``Ratings`` reads the log again."""

from __future__ import annotations

import asyncio

from hypothesis import given, settings
from hypothesis import strategies as st

from eventstore import InMemoryEventStore, NewEvent, StoredEvent
from service.app.ratings import PoolFold, RatedGame, Ratings, Seat, fold_events, pool_stream

PLAYERS = [Seat(f"id{n}", f"p{n}") for n in range(7)]


@st.composite
def games(draw: st.DrawFn) -> RatedGame:
    count = draw(st.integers(2, 5))
    # mostly distinct players; now and then one in two seats (two of our bots of a kind)
    seats = draw(st.lists(st.sampled_from(PLAYERS), min_size=count, max_size=count))
    places = draw(st.permutations(range(1, count + 1)))
    return RatedGame("m", draw(st.integers(0, 99)), tuple(seats), tuple(places))


def numbers(fold: PoolFold) -> list[tuple[str, str, str, int, str]]:
    """Each player's numbers as exact hex floats."""
    return sorted(
        (p.player_id, p.mu.hex(), p.sigma.hex(), p.games, p.last_change.hex())
        for p in fold.players.values()
    )


def stored(log: list[RatedGame]) -> list[StoredEvent]:
    return [
        StoredEvent("r:x", seq, "GameRated", 1, game.data(), "", 1000 + seq, "", "")
        for seq, game in enumerate(log)
    ]


@given(st.lists(games(), max_size=40), st.lists(st.integers(1, 7), max_size=10))
def test_folding_at_once_or_page_by_page_gives_the_same_numbers(
    log: list[RatedGame], pages: list[int]
) -> None:
    events = stored(log)
    whole = fold_events(events)
    stepwise, start = PoolFold(), 0
    for size in [*pages, len(events)]:
        fold_events(events[start : start + size], stepwise)
        start += size
    assert numbers(stepwise) == numbers(whole)
    distinct = [len({seat.player_id for seat in game.seats}) for game in log]
    assert sum(p.games for p in whole.players.values()) == sum(n for n in distinct if n > 1)
    assert whole.version == stepwise.version == len(log) - 1


@settings(max_examples=20, deadline=None)
@given(st.lists(games(), min_size=1, max_size=15))
def test_a_fresh_reader_of_the_log_rebuilds_the_same_numbers(log: list[RatedGame]) -> None:
    async def run() -> None:
        store = InMemoryEventStore()
        live = Ratings(store)
        stream = pool_stream("federation.4-5")
        for seq, game in enumerate(log):
            await store.append(stream, [NewEvent("GameRated", game.data(), 1)], seq - 1)
            await live.pool("federation.4-5")  # caught up game by game
        rebuilt = await Ratings(store).pool("federation.4-5")
        assert numbers(rebuilt) == numbers(await live.pool("federation.4-5"))

    asyncio.run(run())


def test_one_game_moves_the_winner_up_and_the_last_down() -> None:
    fold = fold_events(stored([RatedGame("m", 5, tuple(PLAYERS[:4]), (1, 2, 3, 4))]))
    first, last = fold.players["id0"], fold.players["id3"]
    assert first.last_change > 0 > last.last_change
    assert [p.name for p in fold.standings()] == ["p0", "p1", "p2", "p3"]
