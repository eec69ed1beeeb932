"""A rated match in the match decider: its open seats take registered players (and our
bots) only, a closed rated match is refused, and the new fields stay out of the records
of every event that does not use them (old logs hash as before)."""

from __future__ import annotations

from service.match import (
    Create,
    Join,
    Match,
    MatchCreated,
    SeatJoined,
    decide_and_evolve,
    fold,
    from_record,
    to_record,
)
from service.rules import Refusal

COMMITMENT = "0" * 64


def created(rated: bool, open_seats: bool = True, bots: tuple[tuple[int, str], ...] = ()) -> Match:
    decided = decide_and_evolve(
        None, Create("m1", "federation", {}, 4, COMMITMENT, open_seats, rated=rated, bots=bots)
    )
    assert not isinstance(decided, Refusal), decided
    match = fold(None, decided.events)
    assert match is not None
    return match


def test_a_rated_match_seats_registered_players_and_bots_only() -> None:
    match = created(rated=True, bots=((3, "stronger"),))
    refused = decide_and_evolve(match, Join("anyone"))
    assert isinstance(refused, Refusal) and refused.code == "registration_required"
    joined = decide_and_evolve(match, Join("Ann", player="a" * 32))
    assert not isinstance(joined, Refusal)
    (event,) = joined.events
    assert isinstance(event, SeatJoined) and event.player == "a" * 32
    assert not isinstance(decide_and_evolve(match, Join(bot="greedy")), Refusal)


def test_an_unrated_match_seats_anyone_and_a_closed_rated_match_is_refused() -> None:
    assert not isinstance(decide_and_evolve(created(rated=False), Join("anyone")), Refusal)
    closed = decide_and_evolve(None, Create("m2", "federation", {}, 4, COMMITMENT, rated=True))
    assert isinstance(closed, Refusal) and closed.code == "bad_request"


def test_the_new_fields_are_recorded_only_when_used() -> None:
    old = SeatJoined(0, "Ann")
    assert "player" not in to_record(old)
    assert from_record("SeatJoined", to_record(SeatJoined(0, "Ann", player="p"))).player == "p"
    unrated = created(rated=False)
    decided = decide_and_evolve(None, Create("m3", "federation", {}, 4, COMMITMENT, True))
    assert not isinstance(decided, Refusal)
    (first,) = decided.events[:1]
    assert isinstance(first, MatchCreated) and "rated" not in to_record(first)
    assert not unrated.rated
