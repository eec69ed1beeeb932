"""A log stored before ``CardChosen`` was blinded (schema 1: a king pastor's choice
without its nonce) is still whole, sealed and legal: it audits valid, with a typed
finding per such event (``unblinded_hidden_choice``, a warning: the choice was open to
the other seats' guesses). A new log (schema 2) stripped of its nonces stays invalid,
and so does one stripped and passed off as old (the schema is hashed: the seal breaks)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from clients.bots import GreedyBot, RandomBot
from service.app import codec
from service.app.service import MatchOptions
from service.audit import audit_events
from service.records import BLINDED_TYPES, BLINDING

from .matches import PlayedLog, play, rechain

KING_PASTOR = MatchOptions("classic", 3, {"king_pastor": True}, games_per_set=6)
BOTS = [GreedyBot(), RandomBot(7), GreedyBot()]


def _choices(log: PlayedLog) -> list[int]:
    seqs = [event.seq for event in log.events if event.type == "CardChosen"]
    assert seqs, "no king pastor's choice in the match: play more games"
    return seqs


async def test_a_log_stored_before_the_choice_was_blinded_audits_with_a_warning(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the service as it was: CardChosen of schema 1, stored without a nonce
    monkeypatch.setattr(codec, "BLINDED_SINCE", {})
    unblinded = BLINDED_TYPES - {"CardChosen"}
    monkeypatch.setattr(codec, "is_blinded", lambda event_type: event_type in unblinded)
    old = await play(redis_url, KING_PASTOR, BOTS)
    monkeypatch.undo()
    choices = _choices(old)
    assert all(BLINDING not in old.events[seq].data for seq in choices)
    assert {old.events[seq].schema for seq in choices} == {1}
    report = audit_events(old.events, old.keys)
    assert report.verdict == "valid", report.to_dict()
    assert {check.status for check in report.checks} == {"passed", "not_run"}  # no receipts
    assert report.check("seal").ok and report.check("legality").ok
    findings = report.to_dict()["findings"]
    assert [finding["seq"] for finding in findings] == choices
    assert {(finding["code"], finding["severity"]) for finding in findings} == {
        ("unblinded_hidden_choice", "warning")
    }
    # a hidden event of another type without its nonce is no old log: it fails
    dealt = next(event.seq for event in old.events if event.type == "GameDealt")
    stripped = [
        replace(event, data={k: v for k, v in event.data.items() if k != BLINDING})
        if event.seq == dealt
        else event
        for event in old.events
    ]
    failed = audit_events(rechain(stripped), old.keys).check("blinding")
    assert not failed.ok and failed.first_bad_seq == dealt


async def test_a_new_log_without_the_nonce_of_a_choice_is_invalid(redis_url: str) -> None:
    new = await play(redis_url, KING_PASTOR, BOTS)
    choices = _choices(new)
    assert {new.events[seq].schema for seq in choices} == {codec.BLINDED_SINCE["CardChosen"]}
    report = audit_events(new.events, new.keys)
    assert report.verdict == "valid" and report.to_dict()["findings"] == []
    first = choices[0]

    def stripped(schema: int | None = None) -> list:
        return rechain(
            [
                replace(
                    event,
                    schema=schema or event.schema,
                    data={k: v for k, v in event.data.items() if k != BLINDING},
                )
                if event.type == "CardChosen"
                else event
                for event in new.events
            ]
        )

    # the nonces taken out (the chain rebuilt): the blinding check fails at the first
    forged = audit_events(stripped(), new.keys)
    assert forged.verdict == "invalid"
    assert forged.check("blinding").first_bad_seq == first
    # passed off as an old log (schema 1): the blinding check is satisfied, but the
    # schema is hashed, so the chain no longer ends at the head the service sealed
    downgraded = audit_events(stripped(schema=1), new.keys)
    assert downgraded.verdict == "invalid"
    assert not downgraded.check("seal").ok
