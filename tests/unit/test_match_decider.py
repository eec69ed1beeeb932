"""The match lifecycle decider (service/match): every command, every refusal, and the
composition the auditor relies on (a decision with the seed is the same decision
without it, followed by the deal or the reveal the seed gives)."""

from __future__ import annotations

import dataclasses
import hashlib
from typing import Any

import pytest

from service.match import (
    AbandonMatch,
    AbandonReason,
    Act,
    BotKind,
    Create,
    DealGame,
    Join,
    Match,
    MatchAbandoned,
    MatchCommand,
    MatchCreated,
    MatchEvent,
    MatchSealed,
    MatchStarted,
    Reveal,
    Seal,
    SeatJoined,
    SeedRevealed,
    Start,
    TimeOut,
    TurnTimedOut,
    decide,
    decide_and_evolve,
    evolve,
    fold,
    from_record,
    initial_state,
    to_record,
)
from service.match.decider import MAX_BOT_PAUSE_MS
from service.match.shuffle import SHUFFLE_VERSION, commitment, game_deal
from service.rules import Pass, Refusal
from service.rules import decide as decide_game
from service.rules.events import GameDealt, GameEnded, MatchEnded
from service.rules.legal import legal_actions, timeout_action
from service.rules.vocabulary import Phase, WaitingFor

SEED = bytes(range(32))
COMMITMENT = commitment(SEED)


def creating(**changes: Any) -> Create:
    return dataclasses.replace(Create("m1", "classic", {}, 2, COMMITMENT), **changes)


def apply(match: Match | None, command: MatchCommand) -> tuple[Match, list[MatchEvent]]:
    decision = decide(match, command)
    assert not isinstance(decision, Refusal), decision
    return fold(match, decision), decision


def refused(match: Match | None, command: MatchCommand) -> Refusal:
    decision = decide(match, command)
    assert isinstance(decision, Refusal), decision
    return decision


def closed(**changes: Any) -> Match:
    return apply(None, creating(**changes))[0]


def opened(**changes: Any) -> Match:
    return apply(None, creating(open_seats=True, **changes))[0]


def started(**changes: Any) -> Match:
    return apply(closed(**changes), Start(COMMITMENT, SEED))[0]


def game_over_without_seed() -> Match:
    match = started(options={"games_per_set": 2})
    while match.game.phase == Phase.IN_GAME:
        match = apply(match, Act(legal_actions(match.game)[0]))[0]
    assert match.game.phase == Phase.GAME_OVER
    return match


def match_over(seed: bytes = SEED) -> Match:
    """The match over; with ``seed``, its seed revealed with the last action."""
    match = started(options={"games_per_set": 1})
    while match.game.phase == Phase.IN_GAME:
        match = apply(match, Act(legal_actions(match.game)[0], seed))[0]
    return match


# -- the state before any event ---------------------------------------------------


def test_before_any_event_there_is_no_match_and_only_create_is_decided() -> None:
    assert initial_state() is None
    for command in (Join(), Start(COMMITMENT), Act(Pass(0)), TimeOut(), Reveal(SEED), Seal()):
        assert refused(None, command).code == "not_found"
    with pytest.raises(ValueError, match="MatchCreated"):
        evolve(None, SeatJoined(0, "a"))


# -- create -------------------------------------------------------------------------


def test_a_closed_match_seats_every_seat_at_once_with_its_client_seed() -> None:
    match, events = apply(None, creating(players=3, client_seeds=(b"\x01", b"")))
    created, *seated = events
    assert isinstance(created, MatchCreated)
    assert (created.match_id, created.players, created.open_seats) == ("m1", 3, False)
    assert created.options["preset"] == "classic" and created.seed_commitment == COMMITMENT
    assert seated == [
        SeatJoined(0, "seat 0", "01"),
        SeatJoined(1, "seat 1"),
        SeatJoined(2, "seat 2"),
    ]
    assert match.names == ("seat 0", "seat 1", "seat 2") and match.client_seeds == ("01",)
    assert match.seats_free == () and not match.started


def test_an_open_match_seats_only_its_bots_and_its_flags_need_open_seats() -> None:
    match, events = apply(
        None, creating(players=3, open_seats=True, bots=((2, "greedy"),), auto_start=True)
    )
    assert events[1:] == [SeatJoined(2, "greedy bot 2", "", "greedy")]
    assert match.seats_free == (0, 1) and match.bots == (None, None, "greedy") and match.auto_start
    created = apply(None, creating(auto_start=True, invites=True))[1][0]
    assert isinstance(created, MatchCreated) and not created.auto_start and not created.invites


def test_create_applies_the_options_over_the_preset_and_records_them_all() -> None:
    match, events = apply(None, creating(options={"games_per_set": 3}, turn_ms=30_000))
    created = events[0]
    assert isinstance(created, MatchCreated)
    assert created.options == match.rules.options() and match.rules.games_per_set == 3
    assert match.turn_ms == 30_000


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"players": 1}, "2 to 5 seats"),
        ({"players": 6}, "2 to 5 seats"),
        ({"players": True}, "2 to 5 seats"),
        ({"preset": 3}, "preset"),
        ({"preset": "chess"}, "unknown preset"),
        ({"options": ["jokers"]}, "not a mapping"),
        ({"options": {"jokers": "two"}}, "jokers"),
        ({"open_seats": 1}, "open_seats is not true or false"),
        ({"auto_start": "yes"}, "auto_start is not true or false"),
        ({"invites": None}, "invites is not true or false"),
        ({"turn_ms": -1}, "turn_ms is not a whole number"),
        ({"spectator_delay_ms": 1.5}, "spectator_delay_ms is not a whole number"),
        ({"bot_pause_ms": MAX_BOT_PAUSE_MS + 1}, "a bot pauses 0 to 10 s"),
        ({"seed_commitment": "ab"}, "not a sha256 in hex"),
        ({"seed_commitment": COMMITMENT.upper()}, "not a sha256 in hex"),
        ({"client_seeds": (b"a", b"b", b"c")}, "at most one client seed per seat"),
        ({"bots": ((2, "greedy"),)}, "no seat 2 for a bot"),
        ({"bots": ((0, "genius"),)}, "no bot 'genius'"),
    ],
)
def test_create_refuses_what_no_match_is(changes: dict[str, Any], message: str) -> None:
    refusal = refused(None, creating(**changes))
    assert refusal.code == "bad_request" and message in refusal.message


def test_a_match_is_created_once() -> None:
    assert "exists already" in refused(closed(), creating()).message


# -- seats --------------------------------------------------------------------------


def test_join_takes_the_next_free_seat_with_its_name_stripped_or_given() -> None:
    match, events = apply(opened(players=3), Join("  ann  ", b"\xab"))
    assert events == [SeatJoined(0, "ann", "ab")]
    match, events = apply(match, Join("   "))
    assert events == [SeatJoined(1, "seat 1")]
    assert match.seats_free == (2,) and match.client_seeds == ("ab",)


def test_a_named_seat_is_claimed_and_a_bot_gets_its_kind_s_name() -> None:
    match, events = apply(opened(players=3), Join("bea", seat=2))
    assert events == [SeatJoined(2, "bea")]
    match, events = apply(match, Join("ignored", bot=BotKind.STRONGER))
    assert events == [SeatJoined(0, "stronger bot 0", "", "stronger")]
    assert match.bots == ("stronger", None, None)


def test_an_invite_table_gives_seats_by_invite_or_to_bots_only() -> None:
    table = opened(invites=True)
    assert refused(table, Join("ann")).code == "permission_denied"
    assert apply(table, Join("ann", seat=1))[1] == [SeatJoined(1, "ann")]
    assert apply(table, Join(bot="random"))[1] == [SeatJoined(0, "random bot 0", "", "random")]


@pytest.mark.parametrize(
    ("match", "command", "code"),
    [
        (opened(), Join(bot="genius"), "bad_request"),
        (opened(), Join(bot="greedy", client_seed=b"\x01"), "bad_request"),
        (opened(), Join(seat=2), "bad_request"),
        (opened(), Join(seat=-1), "bad_request"),
        (closed(), Join(seat=0), "bad_request"),
        (apply(opened(), Join(seat=1))[0], Join(seat=1), "seat_taken"),
        (closed(), Join("ann"), "seats_full"),
        (apply(apply(opened(), Join())[0], Join())[0], Join(), "seats_full"),
    ],
)
def test_join_refuses(match: Match, command: Join, code: str) -> None:
    assert refused(match, command).code == code


def test_no_seat_is_taken_once_the_match_has_started() -> None:
    # a seat left free is never started with: an open match is started full
    match = started()
    emptied = dataclasses.replace(match, open_seats=True, names=("", "seat 1"))
    assert refused(emptied, Join()).code == "already_started"


# -- start ---------------------------------------------------------------------------


def test_start_with_the_seed_deals_the_first_game_as_the_seed_deals_it() -> None:
    match = closed(client_seeds=(b"\x01",))
    after, events = apply(match, Start(COMMITMENT, SEED))
    assert events[0] == MatchStarted(COMMITMENT, SHUFFLE_VERSION, ("01",))
    deal = game_deal(match.rules, 2, SEED, 1, ("01",))
    assert events[1:] == decide_game(match.game, deal)
    assert isinstance(events[1], GameDealt) and after.started and after.game.phase == Phase.IN_GAME


def test_start_without_the_seed_leaves_the_deal_to_chance() -> None:
    match, events = apply(closed(), Start(COMMITMENT))
    assert events == [MatchStarted(COMMITMENT, SHUFFLE_VERSION)]
    assert match.game.phase == Phase.BEFORE_DEAL
    deal = game_deal(match.rules, 2, SEED, 1)
    assert apply(match, DealGame(deal))[1] == apply(closed(), Start(COMMITMENT, SEED))[1][1:]


@pytest.mark.parametrize(
    ("match", "command", "code"),
    [
        (started(), Start(COMMITMENT, SEED), "already_started"),
        (opened(), Start(COMMITMENT, SEED), "not_started"),
        (closed(), Start("ab" * 31, SEED), "bad_request"),
        (closed(), Start(commitment(b"other"), SEED), "bad_request"),
        (closed(), Start(COMMITMENT, shuffle_version=1), "bad_request"),  # type: ignore[arg-type]
    ],
)
def test_start_refuses(match: Match, command: Start, code: str) -> None:
    assert refused(match, command).code == code


# -- play and chance -----------------------------------------------------------------


def test_a_seat_s_command_goes_to_the_rules() -> None:
    match = started()
    command = legal_actions(match.game)[0]
    after, events = apply(match, Act(command, SEED))
    assert events == decide_game(match.game, command)
    assert after.game != match.game


def test_an_action_s_evolved_game_is_the_fold_of_its_events_or_none_after_chance() -> None:
    # two games played through, with and without the seed: the deal of the second
    # game and the reveal at the end come by chance, and then there is no game to take
    for seed in (SEED, b""):
        match = started(options={"games_per_set": 2})
        kinds = set()
        while match.game.phase != Phase.MATCH_OVER:
            if match.game.phase == Phase.GAME_OVER:  # without the seed: chance's deal
                match = apply(match, DealGame(game_deal(match.rules, 2, SEED, 2)))[0]
            command = Act(legal_actions(match.game)[0], seed)
            evolved = decide_and_evolve(match, command)
            assert not isinstance(evolved, Refusal)
            assert evolved.events == decide(match, command)
            after = fold(match, evolved.events)
            chance = len(evolved.events) > len(decide_game(match.game, command.command))
            assert evolved.game == (None if chance else after.game)
            kinds.add(chance)
            match = after
        assert kinds == ({True, False} if seed else {False})
    assert decide_and_evolve(started(), TimeOut(SEED)) == Refusal(
        "wrong_action", "the match has no turn timer"
    )


def test_the_rules_refusals_come_back_as_they_are() -> None:
    match = started()
    seat = match.game.turn
    assert seat is not None
    other = Pass((seat + 1) % 2)
    assert refused(match, Act(other)) == decide_game(match.game, other)
    assert refused(closed(), Act(Pass(0))).code == "not_started"


def test_with_the_seed_a_game_s_end_deals_the_next_and_without_it_chance_does() -> None:
    match = started(options={"games_per_set": 2})
    while True:
        command = legal_actions(match.game)[0]
        without = decide(match, Act(command))
        assert not isinstance(without, Refusal)
        after = fold(match, without)
        if after.game.phase == Phase.GAME_OVER:
            break
        match = after
    assert isinstance(without[-1], GameEnded)
    deal = game_deal(match.rules, 2, SEED, 2)
    dealt = decide(after, DealGame(deal))
    assert not isinstance(dealt, Refusal)
    assert decide(match, Act(command, SEED)) == [*without, *dealt]
    assert fold(match, [*without, *dealt]).game.game_number == 2


def test_with_the_seed_the_match_s_end_reveals_it() -> None:
    match = match_over(SEED)
    assert match.seed == SEED.hex() and match.awaits_seal
    unrevealed = match_over(b"")
    assert unrevealed.over and not unrevealed.seed and not unrevealed.awaits_seal
    assert apply(unrevealed, Reveal(SEED))[1] == [SeedRevealed(SEED.hex())]


def test_a_deal_comes_only_between_games() -> None:
    match = started()
    deal = game_deal(match.rules, 2, SEED, 2)
    assert refused(match, DealGame(deal)).code == "wrong_action"
    assert refused(closed(), DealGame(deal)).code == "not_started"
    game_over = game_over_without_seed()
    assert isinstance(apply(game_over, DealGame(deal))[1][0], GameDealt)
    assert refused(game_over, Act(Pass(0))).code == "game_over"  # the rules': no game in play


def test_reveal_refuses_before_the_end_and_an_empty_seed() -> None:
    assert refused(started(), Reveal(SEED)).code == "wrong_action"
    assert refused(match_over(b""), Reveal(b"")).code == "bad_request"
    assert refused(closed(), Reveal(SEED)).code == "not_started"


def test_after_the_reveal_only_the_seal_comes() -> None:
    match = match_over(SEED)
    for command in (Act(Pass(0)), TimeOut(SEED), Reveal(SEED)):
        refusal = refused(match, command)
        assert refusal.code == "game_over" and "after SeedRevealed" in refusal.message
    assert refused(match, Join()).code == "seats_full"
    assert refused(match, Start(COMMITMENT, SEED)).code == "already_started"


# -- the timer -----------------------------------------------------------------------


def test_a_timed_out_turn_is_recorded_and_the_service_acts_as_the_rules_say() -> None:
    match = started(turn_ms=30_000)
    action = timeout_action(match.game)
    assert action is not None
    after, events = apply(match, TimeOut(SEED))
    assert events[0] == TurnTimedOut(action.seat, WaitingFor.PLAY)
    assert events[1:] == decide_game(match.game, action)
    assert after.game == fold(match, events[1:]).game


def test_a_timed_out_turn_needs_a_timer_and_a_game_in_play() -> None:
    assert "no turn timer" in refused(started(), TimeOut(SEED)).message
    assert refused(closed(turn_ms=30_000), TimeOut(SEED)).code == "not_started"
    waiting = apply(closed(turn_ms=30_000), Start(COMMITMENT))[0]
    assert refused(waiting, TimeOut(SEED)).code == "wrong_action"


# -- the seal ------------------------------------------------------------------------


def test_the_seal_closes_a_revealed_match_once() -> None:
    match = match_over(SEED)
    sealed, events = apply(match, Seal({"signature": "x"}))
    assert events == [MatchSealed({"signature": "x"})] and sealed.sealed
    assert not sealed.awaits_seal
    for command in (Seal(), Act(Pass(0)), Reveal(SEED)):
        assert "after MatchSealed" in refused(sealed, command).message


def test_the_seal_waits_for_the_end_and_the_reveal() -> None:
    assert refused(started(), Seal()).code == "wrong_action"
    assert "not revealed" in refused(match_over(b""), Seal()).message


# -- abandonment -----------------------------------------------------------------------

IDLE = AbandonReason.IDLE.value


@pytest.mark.parametrize("when", ["open", "closed", "started", "between games"])
def test_a_match_is_abandoned_at_any_point_before_its_end_and_then_revealed_and_sealed(
    when: str,
) -> None:
    match = {
        "open": lambda: opened(),
        "closed": lambda: closed(),
        "started": lambda: started(),
        "between games": game_over_without_seed,
    }[when]()
    abandoned, events = apply(match, AbandonMatch(IDLE, 7, "idle for 1 h", SEED))
    assert events == [MatchAbandoned(IDLE, 7, "idle for 1 h"), SeedRevealed(SEED.hex())]
    assert abandoned.abandoned == IDLE and abandoned.over and abandoned.awaits_seal
    assert abandoned.game == match.game  # the game it stopped in stays as it was
    sealed, events = apply(abandoned, Seal({"key_id": "k"}))
    assert events == [MatchSealed({"key_id": "k"})] and sealed.sealed


def test_without_the_seed_the_abandonment_waits_for_its_reveal_as_the_auditor_replays_it() -> None:
    match = started()
    unrevealed, events = apply(match, AbandonMatch(AbandonReason.TABLE_FAILED.value, 3))
    assert events == [MatchAbandoned("table_failed", 3)]
    assert not unrevealed.awaits_seal and refused(unrevealed, Seal()).code == "wrong_action"
    revealed, events = apply(unrevealed, Reveal(SEED))
    assert events == [SeedRevealed(SEED.hex())] and revealed.awaits_seal
    with_seed = decide(match, AbandonMatch("table_failed", 3, seed=SEED))
    assert with_seed == [MatchAbandoned("table_failed", 3), SeedRevealed(SEED.hex())]


def test_nobody_acts_joins_or_starts_after_an_abandonment() -> None:
    unrevealed = apply(started(), AbandonMatch(IDLE, 3))[0]
    for command in (Act(legal_actions(unrevealed.game)[0]), TimeOut(SEED), AbandonMatch(IDLE, 4)):
        assert refused(unrevealed, command).code == "game_over"
    open_one = apply(opened(), AbandonMatch(IDLE, 0, seed=SEED))[0]
    assert refused(open_one, Join("ann")).code == "game_over"
    assert refused(open_one, Start(COMMITMENT, SEED)).code == "game_over"
    assert refused(open_one, Reveal(SEED)).code == "game_over"  # revealed already


@pytest.mark.parametrize(
    ("command", "code"),
    [
        (AbandonMatch("bored", 1), "bad_request"),
        (AbandonMatch(IDLE, -1), "bad_request"),
        (AbandonMatch(IDLE, True), "bad_request"),  # type: ignore[arg-type]
        (AbandonMatch(IDLE, 1, "x" * 201), "bad_request"),
    ],
)
def test_abandon_refuses_what_the_service_never_asks(command: AbandonMatch, code: str) -> None:
    assert refused(started(), command).code == code


def test_a_match_over_or_sealed_is_not_abandoned() -> None:
    assert refused(match_over(b""), AbandonMatch(IDLE, 9)).code == "game_over"
    assert refused(match_over(SEED), AbandonMatch(IDLE, 9)).code == "game_over"
    sealed = apply(match_over(SEED), Seal())[0]
    assert refused(sealed, AbandonMatch(IDLE, 9)).code == "game_over"
    assert refused(None, AbandonMatch(IDLE, 0)).code == "not_found"


# -- the events as records -----------------------------------------------------------


def test_every_decided_event_reads_back_from_its_record() -> None:
    match, events = apply(
        None, creating(open_seats=True, turn_ms=1000, options={"games_per_set": 1})
    )
    for command in (Join("ann", b"\x01"), Join(bot="greedy"), Start(COMMITMENT, SEED)):
        match, decided = apply(match, command)
        events += decided
    match, decided = apply(match, TimeOut(SEED))
    events += decided
    while not match.seed:
        match, decided = apply(match, Act(legal_actions(match.game)[0], SEED))
        events += decided
    match, decided = apply(match, Seal({"key_id": "k"}))
    events += decided
    kinds = {type(event) for event in events}
    assert {MatchCreated, SeatJoined, MatchStarted, TurnTimedOut, GameDealt} <= kinds
    assert {MatchEnded, SeedRevealed, MatchSealed} <= kinds
    for event in events:
        assert from_record(type(event).__name__, to_record(event)) == event
    assert fold(None, events) == match
    assert hashlib.sha256(SEED).hexdigest() == match.commitment
    abandoned = decide(started(), AbandonMatch(IDLE, 5, "why", SEED))
    assert not isinstance(abandoned, Refusal)
    for event in abandoned:
        assert from_record(type(event).__name__, to_record(event)) == event
