"""``daifugo analyse MATCH_ID``: a finished match read from Redis, every move of it
judged (each preset's, with every local rule and timed-out turns among them); exit 2
when there is nothing to analyse."""

from __future__ import annotations

import json

import pytest

from clients import analysis
from service.cli import main

from .matches import PlayedLog

PLAYOUTS = "10"  # the plumbing, not the play


@pytest.fixture
def redis_env(redis_url: str, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("REDIS_URL", redis_url)
    return redis_url


@pytest.mark.parametrize("preset", ["federation", "torasobi", "classic", "uecda"])
def test_every_move_of_a_game_in_json(
    preset: str,
    played: dict[str, PlayedLog],
    redis_env: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    log = played[preset]
    assert main(["analyse", log.match_id, "--game", "2", "--playouts", PLAYOUTS, "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["match_id"] == log.match_id and result["game"] == 2
    moves = result["moves"]
    assert moves and {move["game"] for move in moves} == {2}
    seqs = [move["seq"] for move in moves]
    assert seqs == sorted(set(seqs))
    by_seq = {event.seq: event for event in log.events}
    for move in moves:
        event = by_seq[move["seq"]]
        assert event.data["seat"] == move["seat"]  # the move is the seat's own event
        if move["kind"] == "judged":
            assert move["taken"] in [item["action"] for item in move["candidates"]]
        else:
            assert "label" not in move
    assert any(move["kind"] == "judged" for move in moves)


def test_the_table_in_text(
    played: dict[str, PlayedLog], redis_env: str, capsys: pytest.CaptureFixture[str]
) -> None:
    log = played["federation"]
    assert main(["analyse", log.match_id, "--game", "1", "--playouts", PLAYOUTS]) == 0
    text = capsys.readouterr().out
    assert f"match {log.match_id}, game 1: 10 playouts a judged move" in text
    assert "forced" in text and "judged moves, mean loss" in text
    for seat in range(4):
        assert f"seat {seat}" in text


def test_nothing_to_analyse(
    played: dict[str, PlayedLog], redis_env: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["analyse", "no-such-match"]) == 2
    assert "no match 'no-such-match'" in capsys.readouterr().err
    log = played["classic"]
    assert main(["analyse", log.match_id, "--game", "9"]) == 2
    assert "has games 1 to 2" in capsys.readouterr().err
    for playouts in ("0", "9", "5001"):
        assert main(["analyse", log.match_id, "--playouts", playouts]) == 2
        assert "--playouts is 10 to 5000" in capsys.readouterr().err


@pytest.mark.parametrize("preset", ["federation", "uecda"])
def test_a_game_alone_is_judged_as_within_its_match(
    preset: str, played: dict[str, PlayedLog]
) -> None:
    """A job analyses one game: its searches are those of the whole match's analysis
    (a seat's memory starts afresh with each deal)."""
    records = [(event.type, event.data) for event in played[preset].events]
    whole = analysis.decisions(records, None, 10)
    for game in (1, 2, 3):
        assert analysis.decisions(records, game, 10) == [d for d in whole if d.game == game]
