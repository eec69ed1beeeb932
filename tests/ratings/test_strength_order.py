"""Seeded and fixed: our three bots play rated games against each other and the
ratings rank them as their known strength does, stronger > greedy > random.

How many games: 300 (60 matches of 5, three seats, the seating turned each match so
each bot plays each seat alike). Random falls last within a few dozen games; stronger
and greedy are close, and over four seeds (0-3) the order was right for good from game
84, 77, 211 and 150 on. 300 leaves a margin over the slowest of them, and the seed is
fixed, so the test cannot flake; its matches play side by side on the machine's cores.
"""

from __future__ import annotations

from clients.bots import GreedyBot, RandomBot, StrongerBot
from service.app.ratings import PoolFold, RatedGame, Seat
from service.app.selfplay import play_match
from service.rules import PRESETS
from service.rules.events import GameEnded
from tests.cores import map_on_cores

MATCHES = 60  # of the preset's 5 games: 300 rated games
KINDS = ("stronger", "greedy", "random")


def _places(number: int) -> tuple[tuple[str, ...], list[tuple[int, ...]]]:
    """Match ``number``: its seating, and each game's places."""
    rules = PRESETS["federation"]
    seating = KINDS[number % 3 :] + KINDS[: number % 3]
    bots = {
        "random": RandomBot(number),
        "greedy": GreedyBot(avoid_forbidden=True, rules=rules),
        "stronger": StrongerBot(rules),
    }
    played = play_match(rules, 3, f"strength-{number}".encode(), [bots[k] for k in seating])
    return seating, [event.places for event in played.events if isinstance(event, GameEnded)]


def test_three_hundred_games_rank_stronger_above_greedy_above_random() -> None:
    fold, seq = PoolFold(), 0
    # the matches are played side by side, and folded in their order
    for number, (seating, games) in enumerate(map_on_cores(_places, range(MATCHES))):
        for places in games:
            seats = tuple(Seat(kind, f"bot:{kind}") for kind in seating)
            fold.apply(seq, RatedGame(f"m{number}", seq, seats, places))
            seq += 1
    assert seq == 5 * MATCHES
    standings = fold.standings()
    assert [rating.player_id for rating in standings] == list(KINDS)
    assert all(rating.games == seq for rating in standings)
