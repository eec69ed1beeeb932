"""Tampered logs are invalid, each named by the check that catches it and the
first bad seq: edits with the chain left alone, and forgeries that rebuild the
chain so only the seed commitment or the rules can tell."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from eventstore import StoredEvent, canonical_json
from service.app.match import fold_match
from service.audit import AuditReport, audit_events
from service.match.shuffle import commitment
from service.rules import MatchState
from service.rules.cards import REAL_CARDS, cards_of, format_card
from service.rules.events import EVENT_TYPES
from service.rules.vocabulary import WaitingFor

from .matches import PlayedLog, edited, rechain
from .test_jsonl import json_values


def _seq(events: Sequence[StoredEvent], type_name: str, after: int = 0, nth: int = 1) -> int:
    found = [e.seq for e in events if e.type == type_name and e.seq > after]
    return found[nth - 1]


def _state_before(events: Sequence[StoredEvent], seq: int) -> MatchState:
    return fold_match(None, events[:seq]).game


def _invalid_at(report: AuditReport, check: str, seq: int | None) -> str:
    """The failing check's reason, after checking the verdict and the seq."""
    assert report.verdict == "invalid"
    result = report.check(check)
    assert not result.ok
    assert result.first_bad_seq == seq, result.to_dict()
    assert result.reason
    return result.reason


def _only_failing(report: AuditReport, *names: str) -> None:
    """The checks that failed, the seal and the blinding aside: a log changed anywhere
    no longer has the head its seal signed, and one renumbered has nonces off their
    seqs (test_signed_records); these tests look further."""
    failing = {check.name for check in report.checks if check.ran and not check.ok}
    assert failing - {"seal", "blinding"} == set(names)


def test_an_edited_card_breaks_the_chain(played: dict[str, PlayedLog]) -> None:
    events = played["federation"].events
    seq = _seq(events, "CardsPlayed", nth=3)
    cards = events[seq].data["cards"]
    other = "3D" if cards[0] != "3D" else "3C"
    report = audit_events(edited(events, seq, cards=[other, *cards[1:]]))
    assert "altered" in _invalid_at(report, "hash_chain", seq)


def test_an_edited_card_with_the_chain_rebuilt_is_illegal(played: dict[str, PlayedLog]) -> None:
    events = played["federation"].events
    second_deal = _seq(events, "GameDealt", nth=2)
    seq = next(
        e.seq
        for e in events
        if e.seq > second_deal and e.type == "CardsPlayed" and e.data["cards"][0] != "JK"
    )
    seat = events[seq].data["seat"]
    game = _state_before(events, seq)
    neighbour = game.hands[(seat + 1) % game.players] & REAL_CARDS
    stolen = format_card(cards_of(neighbour)[0])  # a card the seat does not hold
    cards = events[seq].data["cards"]
    report = audit_events(rechain(edited(events, seq, cards=[stolen, *cards[1:]])))
    reason = _invalid_at(report, "legality", seq)
    assert reason.startswith("illegal action: card_not_in_hand")
    _only_failing(report, "legality")


def test_a_removed_event_breaks_the_chain(played: dict[str, PlayedLog]) -> None:
    events = played["federation"].events
    seq = _seq(events, "Passed", after=len(events) // 2)
    report = audit_events([*events[:seq], *events[seq + 1 :]])
    assert _invalid_at(report, "hash_chain", seq) == f"seq {seq} is missing"


def test_a_removed_event_with_the_chain_rebuilt_is_illegal(played: dict[str, PlayedLog]) -> None:
    events = played["federation"].events
    seq = _seq(events, "Passed", after=len(events) // 2)
    report = audit_events(rechain([*events[:seq], *events[seq + 1 :]], renumber=True))
    # the pass's own TurnMoved is left with no action to belong to
    assert "does not begin an action" in _invalid_at(report, "legality", seq)
    _only_failing(report, "legality")


def test_a_swapped_deal_is_not_the_seed_s(played: dict[str, PlayedLog]) -> None:
    events = played["federation"].events
    seq = _seq(events, "GameDealt", nth=2)
    hands = events[seq].data["hands"]
    swapped = [hands[1], hands[0], *hands[2:]]
    report = audit_events(rechain(edited(events, seq, hands=swapped)))
    reason = _invalid_at(report, "seed_commitment", seq)
    assert reason == "game 2 is not dealt as the seed deals it: the hands of seats 0, 1 differ"
    assert report.check("hash_chain").ok


@pytest.mark.parametrize(
    ("field", "reason"),
    [("seating", "the seating differs"), ("stalemate", "the stalemate order differs")],
)
def test_a_draw_other_than_the_seed_s(
    played: dict[str, PlayedLog], field: str, reason: str
) -> None:
    """The uecda draws: the seating of game 1 and the stalemate order of game 2,
    recorded otherwise than the seed draws them (the rules would accept both)."""
    events = played["uecda"].events
    seq = _seq(events, "GameDealt", nth=1 if field == "seating" else 2)
    drawn = events[seq].data[field]
    report = audit_events(rechain(edited(events, seq, **{field: [*drawn[1:], drawn[0]]})))
    assert _invalid_at(report, "seed_commitment", seq).endswith(reason)
    assert report.check("hash_chain").ok


def test_a_uecda_deal_from_another_seat_is_illegal(played: dict[str, PlayedLog]) -> None:
    events = played["uecda"].events
    seq = _seq(events, "GameDealt", nth=2)  # game 2 is dealt from the 大富豪's seat
    start = events[seq].data["deal_start"]
    report = audit_events(rechain(edited(events, seq, deal_start=(start + 1) % 5)))
    assert not report.check("legality").ok and not report.check("seed_commitment").ok


def test_a_wrong_seed_reveal(played: dict[str, PlayedLog]) -> None:
    events = played["classic"].events
    revealed = _seq(events, "SeedRevealed", after=-1)
    report = audit_events(rechain(edited(events, revealed, seed=secrets.token_hex(32))))
    reason = _invalid_at(report, "seed_commitment", revealed)
    assert reason.startswith("sha256 of the revealed seed is not the commitment")
    _only_failing(report, "seed_commitment")


def test_a_forged_commitment_cannot_explain_the_deals(played: dict[str, PlayedLog]) -> None:
    events = played["classic"].events
    seed = secrets.token_bytes(32)
    started = _seq(events, "MatchStarted", after=-1)
    forged = edited(events, 0, seed_commitment=commitment(seed))
    forged = edited(forged, started, seed_commitment=commitment(seed))
    revealed = _seq(events, "SeedRevealed", after=-1)
    report = audit_events(rechain(edited(forged, revealed, seed=seed.hex())))
    first_deal = _seq(events, "GameDealt")
    assert "not dealt as the seed deals it" in _invalid_at(report, "seed_commitment", first_deal)
    _only_failing(report, "seed_commitment")


def test_the_commitment_is_the_first_event_s(played: dict[str, PlayedLog]) -> None:
    """The seed is committed in MatchCreated, before any client seed is known: a
    commitment made later (at MatchStarted, after the seats' seeds) does not count."""
    events = played["classic"].events
    started = _seq(events, "MatchStarted", after=-1)
    committed = events[0].data["seed_commitment"]
    assert events[started].data["seed_commitment"] == committed
    assert all(event.type != "SeatJoined" or event.seq > 0 for event in events)
    late = audit_events(rechain(edited(events, 0, seed_commitment="")))
    assert _invalid_at(late, "seed_commitment", 0) == "MatchCreated commits to no seed"
    other = audit_events(rechain(edited(events, started, seed_commitment="ab" * 32)))
    reason = _invalid_at(other, "seed_commitment", started)
    assert reason == "MatchStarted names another commitment than seq 0"
    _only_failing(other, "seed_commitment")


def _play(seat: int, card: str = "3D") -> dict[str, Any]:
    return {"seat": seat, "cards": [card], "kind": "single", "low": card[0], "high": card[0],
            "jokers_as": [], "reason": ""}  # fmt: skip


def test_an_inserted_illegal_play_with_a_valid_chain(played: dict[str, PlayedLog]) -> None:
    events = played["federation"].events
    seq = _seq(events, "Passed")
    intruder = (events[seq].data["seat"] + 1) % 4  # not the seat whose turn it is
    inserted = replace(events[seq], type="CardsPlayed", data=_play(intruder))
    report = audit_events(rechain([*events[:seq], inserted, *events[seq:]], renumber=True))
    assert _invalid_at(report, "legality", seq).startswith("illegal action: not_your_turn")
    assert report.check("hash_chain").ok


def test_a_timed_out_turn_does_what_the_timer_does(played: dict[str, PlayedLog]) -> None:
    events = played["torasobi"].events
    # a seat that played where a pass was legal: a timer would have passed
    seq = next(
        e.seq
        for e in events
        if e.type == "CardsPlayed"
        and events[e.seq - 1].type != "TurnTimedOut"
        and (game := _state_before(events, e.seq)).field is not None
        and game.waiting_for == WaitingFor.PLAY
    )
    seat = events[seq].data["seat"]
    timed_out = replace(
        events[seq], type="TurnTimedOut", data={"seat": seat, "waiting_for": WaitingFor.PLAY}
    )
    report = audit_events(rechain([*events[:seq], timed_out, *events[seq:]], renumber=True))
    assert "but the rules give Passed" in _invalid_at(report, "legality", seq + 1)


def test_no_timed_out_turn_without_a_timer(played: dict[str, PlayedLog]) -> None:
    events = played["federation"].events
    seq = _seq(events, "Passed")
    timed_out = replace(
        events[seq],
        type="TurnTimedOut",
        data={"seat": events[seq].data["seat"], "waiting_for": WaitingFor.PLAY},
    )
    report = audit_events(rechain([*events[:seq], timed_out, *events[seq:]], renumber=True))
    assert "no turn timer" in _invalid_at(report, "legality", seq)


def test_nothing_after_the_seed_is_revealed(played: dict[str, PlayedLog]) -> None:
    events = played["classic"].events
    sealed = events[-1].seq  # where the seal was, a pass
    extra = replace(events[-1], type="Passed", data={"seat": 0, "reason": ""})
    report = audit_events(rechain([*events[:-1], extra]))
    assert "after SeedRevealed" in _invalid_at(report, "legality", sealed)


def test_a_second_deal_in_one_game(played: dict[str, PlayedLog]) -> None:
    events = played["classic"].events
    deal = _seq(events, "GameDealt")
    seq = _seq(events, "Passed")
    again = replace(events[deal], seq=seq)
    report = audit_events(rechain([*events[:seq], again, *events[seq:]], renumber=True))
    assert "GameDealt does not begin an action" in _invalid_at(report, "legality", seq)


@pytest.mark.parametrize(
    ("type_name", "data"),
    [
        ("CardsPlayed", {"cards": "garbage"}),
        ("CardsPlayed", {"kind": 3}),  # the codec raises AttributeError on this one
        ("CardsPlayed", {"cards": [["4D"]]}),
        ("CardsPlayed", {"seat": 99}),
        ("CardsPlayed", {"seat": True}),
        ("GameDealt", {"hands": 5}),
        ("GameDealt", {"hands": [[], [], [], []]}),
        ("GameDealt", {"game_number": "1"}),
        ("MatchStarted", {"client_seeds": "zz"}),
        ("SeatJoined", {"seat": 7}),
        ("MatchCreated", {"options": {"jokers": "two"}}),
        ("MatchCreated", {"players": 9}),
        ("MatchCreated", {"options": []}),
    ],
)
def test_nonsense_is_reported_not_raised(
    played: dict[str, PlayedLog], type_name: str, data: dict[str, Any]
) -> None:
    events = played["federation"].events
    seq = _seq(events, type_name, after=-1)
    report = audit_events(rechain(edited(events, seq, **data)))
    _invalid_at(report, "legality", seq)
    assert report.check("hash_chain").ok


def test_any_change_to_a_rules_event_is_caught(played: dict[str, PlayedLog]) -> None:
    events = played["classic"].events

    # an inner test, so hypothesis never prints (or shrinks) the whole log
    @settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(data=st.data())
    def change(data: st.DataObject) -> None:
        index = data.draw(st.integers(0, len(events) - 1), label="index")
        event = events[index]
        key = data.draw(st.sampled_from(sorted(event.data)), label="key")
        value = data.draw(json_values | st.just(["2S"]) | st.integers(0, 4), label="value")
        tampered = rechain(edited(events, event.seq, **{key: value}))
        report = audit_events(tampered)  # never raises, whatever was changed
        changed = canonical_json(tampered[index].data) != canonical_json(event.data)
        # a play's or pass's reason is the command's own free text: the rules take any
        assume(changed and event.type in EVENT_TYPES and key != "reason")
        assert report.verdict == "invalid"
        # the nonce is not the rules': the blinding check judges it
        check = "blinding" if key == "blinding" else "legality"
        assert report.check(check).first_bad_seq == event.seq

    change()
