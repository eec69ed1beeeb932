"""``daifugo audit MATCH_ID|FILE``: the JSON report on stdout; exit 0 valid,
1 invalid, 2 when there is nothing to audit."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from clients.bots import GreedyBot
from eventstore import FolderArchive, RedisEventStore, move_to_archive
from service.app import STORE_PREFIX
from service.app.match import stream_of
from service.app.service import MatchOptions
from service.app.signing import KeyEntry, SigningKeys, generate_keys, key_file_text
from service.audit import export_jsonl
from service.cli import main

from .matches import PlayedLog, edited, play


@pytest.fixture
def redis_env(redis_url: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> str:
    monkeypatch.setenv("REDIS_URL", redis_url)
    # no key file of this machine's (a developer's ./serve) checks the test's matches
    monkeypatch.setenv("DAIFUGO_SIGNING_KEY_FILE", str(tmp_path / "no-key-file.json"))
    return redis_url


def test_a_file(
    played: dict[str, PlayedLog], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "match.jsonl"
    path.write_text(export_jsonl(played["classic"].events), encoding="utf-8")
    assert main(["audit", str(path)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["verdict"] == "valid"
    assert report["match_id"] == played["classic"].match_id


def test_a_tampered_file(
    played: dict[str, PlayedLog], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    events = played["classic"].events
    deal = next(event for event in events if event.type == "GameDealt")
    other_leader = 1 - deal.data["leader"]
    path = tmp_path / "match.jsonl"
    path.write_text(export_jsonl(edited(events, deal.seq, leader=other_leader)))
    assert main(["audit", str(path)]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["verdict"] == "invalid"
    assert report["checks"][0]["first_bad_seq"] == deal.seq


def test_a_file_that_is_not_a_log(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("hello\n")
    assert main(["audit", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "line 1: not JSON" in captured.err


def test_a_match_in_redis(
    played: dict[str, PlayedLog], redis_env: str, capsys: pytest.CaptureFixture[str]
) -> None:
    log = played["torasobi"]
    assert main(["audit", log.match_id]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["verdict"] == "valid"
    assert report["events"] == len(log.events)


def test_a_match_in_redis_checks_its_seal_as_the_page_does(
    played: dict[str, PlayedLog],
    redis_env: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """With no --key, the seal of a match read from this machine's store is checked
    with this machine's signing key file, as the page's audit checks it with the
    service's keys: both say "passed". Without a key file, not_run, and stderr says why."""
    log = played["torasobi"]
    monkeypatch.setenv("DAIFUGO_SIGNING_KEY_FILE", str(tmp_path / "absent.json"))
    assert main(["audit", log.match_id]) == 0
    captured = capsys.readouterr()
    seal = next(c for c in json.loads(captured.out)["checks"] if c["name"] == "seal")
    assert seal["status"] == "not_run" and "no signing key file" in captured.err
    public_only = SigningKeys(tuple(KeyEntry(key, None) for key in log.keys))
    key_file = tmp_path / "signing-keys.json"
    key_file.write_text(key_file_text(public_only))
    monkeypatch.setenv("DAIFUGO_SIGNING_KEY_FILE", str(key_file))
    assert main(["audit", log.match_id]) == 0
    captured = capsys.readouterr()
    seal = next(c for c in json.loads(captured.out)["checks"] if c["name"] == "seal")
    assert seal["status"] == "passed" and str(key_file) in captured.err
    # a key file that did not sign the match: the seal fails, as it would on the page
    other = tmp_path / "other.json"
    other.write_text(key_file_text(generate_keys(min(key.valid_from for key in log.keys))))
    monkeypatch.setenv("DAIFUGO_SIGNING_KEY_FILE", str(other))
    assert main(["audit", log.match_id]) == 1
    seal = next(c for c in json.loads(capsys.readouterr().out)["checks"] if c["name"] == "seal")
    assert seal["status"] == "failed"


def test_a_match_moved_to_the_archive_is_audited_as_it_was_in_redis(
    redis_env: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    log = asyncio.run(play(redis_env, MatchOptions("classic", 3, {}), [GreedyBot()] * 3))
    folder = tmp_path / "archive"
    monkeypatch.setenv("DAIFUGO_ARCHIVE", str(folder))
    assert main(["audit", log.match_id]) == 0
    in_redis = json.loads(capsys.readouterr().out)
    assert in_redis["verdict"] == "valid" and in_redis["events"] == len(log.events)

    async def moved() -> None:
        store = RedisEventStore.from_url(redis_env, prefix=STORE_PREFIX)
        try:
            stream = stream_of(log.match_id)
            assert await move_to_archive(store, FolderArchive(folder), stream) > 0
            assert await store.read_as_stored(stream) == []
        finally:
            await store.close()

    asyncio.run(moved())
    assert main(["audit", log.match_id]) == 0
    assert json.loads(capsys.readouterr().out) == in_redis
    monkeypatch.setenv("DAIFUGO_ARCHIVE", str(tmp_path / "another"))  # not where it went
    assert main(["audit", log.match_id]) == 2


def test_no_such_match(redis_env: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", "no-such-match"]) == 2
    assert "no match 'no-such-match'" in capsys.readouterr().err


def test_two_swapped_lines_are_an_invalid_log(
    played: dict[str, PlayedLog], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = export_jsonl(played["classic"].events).splitlines()
    lines[3], lines[4] = lines[4], lines[3]
    path = tmp_path / "match.jsonl"
    path.write_text("\n".join(lines) + "\n")
    assert main(["audit", str(path)]) == 1  # a report, not "nothing to audit"
    report = json.loads(capsys.readouterr().out)
    assert report["verdict"] == "invalid"
    assert report["checks"][0]["name"] == "hash_chain"
    assert report["checks"][0]["first_bad_seq"] == 3
