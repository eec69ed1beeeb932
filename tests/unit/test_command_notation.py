"""One notation per command: ``format_command``/``parse_command`` round-trip, a
command's repr pastes back, and every surface writes the same parts."""

from __future__ import annotations

import pytest

from clients.terminal import describe_action
from service.audit.legality import command_of
from service.grpc.actions import action_to_message, command_from_message
from service.rest.actions import action_of
from service.rules import Deal, decide, fold, initial_state, rule_set
from service.rules.commands import Bomb, Discard, Give, Pass, Pick, Play, SeatCommand
from service.rules.dealing import deck_for
from service.rules.legal import legal_actions
from service.rules.notation import format_command, parse_command, read, seat_command, written
from service.rules.refusals import Refused
from service.rules.rulesets import all_local_rules_on
from service.rules.vocabulary import Phase

SAMPLES: list[SeatCommand] = [
    parse_command("seat 2 play 4D 5D JK as 6D"),
    parse_command("seat 0 play 3H 4H JK as LH"),
    Pass(1),
    Pass(3, "refused"),
    parse_command("seat 1 give 3D TS"),
    parse_command("seat 4 discard 2C"),
    Bomb(2, (2, 7)),
    parse_command("seat 3 pick 9H KS"),
    Pick(1, 0),  # a pick that takes nothing: ``seat 1 pick``
]


@pytest.mark.parametrize("command", SAMPLES, ids=format_command)
def test_text_and_repr_round_trip(command: SeatCommand) -> None:
    assert parse_command(format_command(command)) == command
    assert eval(repr(command), {"parse_command": parse_command}) == command
    assert "parse_command('seat " in repr(command)  # masks print as card codes


def test_every_surface_writes_the_same_parts() -> None:
    for command in SAMPLES:
        parts = written(command)
        rest = action_of(command)
        assert (rest.action, rest.cards, rest.jokers_as, rest.ranks) == (
            parts.action,
            list(parts.cards),
            list(parts.jokers_as),
            list(parts.ranks),
        )
        if not getattr(command, "reason", ""):  # a service's note travels in no message
            assert command_from_message(command.seat, action_to_message(command)) == command
        assert format_command(command) == f"seat {command.seat} {describe_action(command)}"


def test_legal_actions_of_whole_games_round_trip() -> None:
    """Through text, through parts, and through the event each action begins with."""
    rules = all_local_rules_on(rule_set("torasobi"))
    state = initial_state(rules, 4)
    deck = tuple(deck_for(rules))
    for _ in range(400):
        if state.phase == Phase.MATCH_OVER:
            break
        if state.phase != Phase.IN_GAME:
            deck = deck[7:] + deck[:7]
            events = decide(state, Deal(deck))
        else:
            actions = legal_actions(state)
            for action in actions:
                assert parse_command(format_command(action)) == action
                assert read(action.seat, written(action)) == action
                # the auditor reads each action back off the first event it makes
                made = decide(state, action)
                assert isinstance(made, list) and command_of(made[0]) == action, made[0]
            events = decide(state, actions[len(actions) // 2])
        assert isinstance(events, list)
        state = fold(state, events)


@pytest.mark.parametrize(
    "text", ["", "seat", "seat x play 3D", "seat 1 fly 3D", "seat 1 play 3Z", "seat 1 bomb Q Q"]
)
def test_bad_notation_is_a_bad_request(text: str) -> None:
    with pytest.raises(Refused) as refused:
        parse_command(text)
    assert refused.value.refusal.code == "bad_request"


def test_commands_from_parts_match_their_classes() -> None:
    assert isinstance(seat_command(0, "play", ["3D"]), Play)
    assert isinstance(seat_command(0, "give", ["3D"]), Give)
    assert isinstance(seat_command(0, "discard", ["3D"]), Discard)
    assert isinstance(seat_command(0, "bomb", ranks=["3"]), Bomb)
