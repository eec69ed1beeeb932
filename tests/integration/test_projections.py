"""Each match's places and points per game, and the ranking across matches,
rebuilt from events."""

from __future__ import annotations

import asyncio

from clients.bots import GreedyBot, RandomBot
from clients.runner import play_match, play_seat
from clients.sdk import DaifugoClient
from service.app.match import stream_of
from service.app.projections import ResultsProjection
from service.runtime import Running


class OwnResults(ResultsProjection):
    name = "results-own"  # keys of its own: the served one follows the same events and retires them


async def test_results_and_ranking_follow_the_events(
    running: Running, client: DaifugoClient
) -> None:
    match_id = await play_match(
        client, "classic", [GreedyBot(), RandomBot(2), GreedyBot()], games_per_set=2
    )
    results = OwnResults(running.storage)
    await results.state.reset()
    await take_all(running, results, match_id)
    match = await running.service.load(match_id)
    games = await results.games(match_id)
    assert games == [list(places) for places in match.game.results]
    points = await results.points(match_id)
    assert points == {seat: sum(3 - places[seat] for places in games) for seat in range(3)}
    ranking = {standing.name: standing for standing in await results.ranking(limit=10_000)}
    assert {"seat 0", "seat 1", "seat 2"} <= set(ranking)
    before = await results.ranking(limit=10_000)
    await results.catch_up()  # nothing new: nothing counted twice
    assert await results.ranking(limit=10_000) == before
    # the sealed match retired: what was kept for it alone went, its counts stay
    assert await results.games(match_id) == [] and await results.points(match_id) == {}
    await results.rebuild()
    assert await results.ranking(limit=10_000) == before


async def take_all(running: Running, results: OwnResults, match_id: str) -> None:
    """Give ``results`` a match's events one by one, as the shared feed does (its
    ``catch_up`` retires a sealed match, and what it kept for that match alone)."""
    for event in await running.service.store.read(stream_of(match_id)):
        await results.take(event)


async def delayed_match_played(running: Running, client: DaifugoClient) -> tuple[str, OwnResults]:
    """A match of two games with an hour's spectator delay, played out, and a results
    projection of its own that has counted nothing yet."""
    created = await client.create_match("classic", 3, games_per_set=2, spectator_delay=3600)
    await client.host(created.match_id, created.host_token).start()
    seats = [client.seat(created.match_id, token) for token in created.seat_tokens]
    await asyncio.gather(*(play_seat(seat, GreedyBot()) for seat in seats))
    results = OwnResults(running.storage)
    await results.state.reset()
    return created.match_id, results


async def test_a_delayed_matchs_games_are_counted_once_it_is_over(
    running: Running, client: DaifugoClient
) -> None:
    """The ranking moving at a game's end would tell the spectators of a match with a
    spectator delay who won before they may see it: its games count at its end."""
    match_id, results = await delayed_match_played(running, client)
    counted = []
    for event in await running.service.store.read(stream_of(match_id)):
        await results.take(event)
        counted.append((event.type, await results.points(match_id)))
    ended = [points for kind, points in counted if kind == "GameEnded"]
    assert len(ended) == 2 and all(not points for points in ended)
    match = await running.service.load(match_id)
    games = [list(places) for places in match.game.results]
    expected = {seat: sum(3 - places[seat] for places in games) for seat in range(3)}
    assert dict(counted)["MatchEnded"] == expected
    assert await results.games(match_id) == games
    ranking = await results.ranking(limit=100)
    assert sum(standing.games for standing in ranking) == 2 * 3


async def test_uecda_points_are_five_to_one(running: Running, client: DaifugoClient) -> None:
    bots = [GreedyBot(), RandomBot(3), GreedyBot(), RandomBot(4), GreedyBot()]
    match_id = await play_match(client, "uecda", bots, games_per_set=2)
    results = OwnResults(running.storage)
    await results.state.reset()
    await take_all(running, results, match_id)
    games = await results.games(match_id)
    assert len(games) == 2
    expected = {seat: sum(6 - places[seat] for places in games) for seat in range(5)}
    assert await results.points(match_id) == expected


async def test_a_projection_given_an_event_past_its_reset_checkpoint_applies_it_all_again(
    running: Running, client: DaifugoClient
) -> None:
    """Its checkpoint went back (the projection was reset meanwhile): the event it is
    given cannot be applied alone, so it applies the stream again up to it."""
    match_id = await play_match(client, "classic", [GreedyBot(), GreedyBot()], games_per_set=2)
    results = OwnResults(running.storage)
    await results.state.reset()
    await take_all(running, results, match_id)
    games = await results.games(match_id)
    events = await running.storage.events.read(stream_of(match_id))
    first_end = next(event for event in events if event.type == "GameEnded")
    await OwnResults(running.storage).state.clear()  # by another replica, say
    await results.take(first_end)
    assert await results.games(match_id) == games[:1]
    assert await results.state.position(stream_of(match_id)) == first_end.seq


async def test_a_delayed_match_counted_game_by_game_until_an_upgrade_is_counted_once(
    running: Running, client: DaifugoClient
) -> None:
    """A match whose first game was counted as it ended (before its games waited for its
    end) has only the others counted at its end."""
    match_id, results = await delayed_match_played(running, client)
    events = await running.service.store.read(stream_of(match_id))
    first_end = next(event for event in events if event.type == "GameEnded")
    for event in events:
        if event is first_end:  # as the version before counted it
            places = [int(place) for place in event.data["places"]]
            ops = await results._game_ops(match_id, places)
            await results.state.apply_or_defer(event, ops)
        else:
            await results.take(event)
    match = await running.service.load(match_id)
    games = [list(places) for places in match.game.results]
    assert await results.games(match_id) == games
    assert await results.points(match_id) == {
        seat: sum(3 - places[seat] for places in games) for seat in range(3)
    }
