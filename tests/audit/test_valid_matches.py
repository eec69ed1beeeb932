"""Real matches, played through the service, audit as valid; a log cut short
is invalid only for want of the seed (or for ending inside one append)."""

from __future__ import annotations

import pytest

from service.audit import audit_events

from .matches import PlayedLog


@pytest.mark.parametrize("preset", ["federation", "torasobi", "classic", "uecda"])
def test_a_finished_match_is_valid(played: dict[str, PlayedLog], preset: str) -> None:
    log = played[preset]
    report = audit_events(log.events, log.keys, log.receipts)
    assert report.verdict == "valid", report.to_dict()
    assert report.match_id == log.match_id
    assert report.events == len(log.events)
    assert [check.name for check in report.checks] == [
        *("hash_chain", "seal", "seed_commitment", "blinding", "legality", "receipts")
    ]
    assert all(check.ok and check.first_bad_seq is None for check in report.checks)
    assert report.check("receipts").detail["receipts"] == len(log.receipts)
    games = sum(event.type == "GameDealt" for event in log.events)
    assert report.check("seed_commitment").detail["games"] == games
    assert report.check("legality").detail["games"] == games
    data = report.to_dict()
    assert data["verdict"] == "valid"
    assert data["checks"][4]["actions"] > 0
    assert data["not_run"] == []


def test_timed_out_turns_are_replayed(played: dict[str, PlayedLog]) -> None:
    log = played["torasobi"]
    timeouts = sum(event.type == "TurnTimedOut" for event in log.events)
    assert timeouts > 0
    assert audit_events(log.events).check("legality").detail["timeouts"] == timeouts


def test_an_unfinished_match_is_not_yet_valid(played: dict[str, PlayedLog]) -> None:
    events = played["federation"].events
    # cut where the service stopped between two appends: before a pass
    cut = next(e.seq for e in events if e.seq > len(events) // 2 and e.type == "Passed")
    report = audit_events(events[:cut])
    assert report.verdict == "invalid"
    assert report.check("hash_chain").ok
    assert report.check("legality").ok
    commitment = report.check("seed_commitment")
    assert not commitment.ok
    assert commitment.first_bad_seq is None
    assert commitment.reason == "match not over: the seed is not revealed yet"


def test_a_log_cut_inside_an_append_is_illegal(played: dict[str, PlayedLog]) -> None:
    events = played["federation"].events
    # the service writes a game's end and the next deal in one append
    ended = next(e.seq for e in events if e.type == "GameEnded")
    report = audit_events(events[: ended + 1])
    legality = report.check("legality")
    assert legality.first_bad_seq == ended + 1
    assert legality.reason is not None and "before the deal of game 2" in legality.reason


def test_no_events() -> None:
    report = audit_events([])
    assert report.verdict == "invalid"
    assert report.match_id is None
    assert all(not check.ok for check in report.checks)
    assert all(check.reason == "no events" for check in report.checks if check.ran)
