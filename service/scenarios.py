"""The conformance scenario runner (``daifugo scenario``, docs/SCENARIOS.md).

It drives the same decider and fold the service uses; it only translates the
JSON into commands and compares what it reads back from the state.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .rules import Refusal, SetUp, decide, fold, initial_state, rule_set
from .rules.cards import format_mask, parse_suits, suit_letters
from .rules.notation import parse_mask, seat_command
from .rules.readings import COLORS
from .rules.refusals import Refused
from .rules.rulesets import RuleSetError
from .rules.state import MatchState
from .rules.views import SPECTATOR, build_view
from .rules.vocabulary import Bottom, RefusalCode


class ScenarioError(Exception):
    """The file is not a valid scenario, or a step differs from what it expects."""


@dataclass(frozen=True)
class Outcome:
    name: str
    passed: bool
    detail: str = ""

    def line(self) -> str:
        return f"PASS {self.name}" if self.passed else f"FAIL {self.name}: {self.detail}"


def scenario_files(paths: Iterable[str | Path]) -> Iterator[Path]:
    for path in map(Path, paths):
        if path.is_dir():
            yield from sorted(path.rglob("*.json"))
        else:
            yield path


def run_file(path: Path) -> Outcome:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        return Outcome(path.stem, False, f"not scenario JSON: {error}")
    name = data.get("name") if isinstance(data, dict) else None
    name = name if isinstance(name, str) and name else path.stem
    try:
        run_scenario(data)
    except ScenarioError as error:
        return Outcome(name, False, str(error))
    return Outcome(name, True)


def run_scenario(data: Any) -> MatchState:
    """Play a scenario through; raises ScenarioError at the first difference."""
    if not isinstance(data, dict):
        raise ScenarioError("a scenario is a JSON object")
    state = start_of(data)
    steps = data.get("steps", [])
    if not isinstance(steps, list):
        raise ScenarioError("steps must be a list")
    for number, step in enumerate(steps, start=1):
        try:
            state = _run_step(state, step)
        except ScenarioError as error:
            raise ScenarioError(f"step {number}: {error}") from None
    if "final" in data:
        try:
            check_expect(state, data["final"])
        except ScenarioError as error:
            raise ScenarioError(f"final: {error}") from None
    return state


def start_of(data: dict[str, Any]) -> MatchState:
    """The state a scenario starts from (its rules, players and ``start``)."""
    rules_data = data.get("rules", {})
    if not isinstance(rules_data, dict):
        raise ScenarioError("rules must be an object")
    try:
        rules = rule_set(str(rules_data.get("preset", "")), rules_data.get("options") or {})
    except RuleSetError as error:
        raise ScenarioError(str(error)) from None
    players = data.get("players")
    start = data.get("start", {})
    if not isinstance(players, int) or not 2 <= players <= 5 or not isinstance(start, dict):
        raise ScenarioError("players must be 2 to 5 and start an object")
    hands = start.get("hands")
    if not isinstance(hands, list) or len(hands) != players:
        raise ScenarioError(f"start.hands needs {players} hands")
    try:
        masks = tuple(parse_mask(hand) for hand in hands)
    except Refused as refused:
        raise ScenarioError(f"start.hands: {refused.refusal.message}") from None
    previous = start.get("previous_places")
    previous_places = None
    if previous is not None:
        if not isinstance(previous, dict):
            raise ScenarioError("start.previous_places must be an object")
        try:
            previous_places = tuple(int(previous[str(seat)]) for seat in range(players))
        except (KeyError, TypeError, ValueError):
            raise ScenarioError("start.previous_places needs a place for every seat") from None
    leader, game_number = start.get("leader"), start.get("game_number", 1)
    # checked here, not left to the decider: the compiled engine's command would refuse
    # a string as a TypeError and read true as seat 1
    if not (leader is None or type(leader) is int) or type(game_number) is not int:
        raise ScenarioError("start: bad_request: leader and game_number are whole numbers")
    setup = SetUp(
        hands=masks,
        leader=leader,
        revolution=bool(start.get("revolution", False)),
        game_number=game_number,
        previous_places=previous_places,
        skip_exchange=bool(start.get("skip_exchange", False)),
    )
    state = initial_state(rules, players)
    decision = decide(state, setup)
    if isinstance(decision, Refusal):
        raise ScenarioError(f"start: {decision}")
    return fold(state, decision)


_ACTIONS = ("play", "pass", "give", "discard", "bomb", "pick")


def _run_step(state: MatchState, step: Any) -> MatchState:
    if not isinstance(step, dict):
        raise ScenarioError("a step is an object")
    expected_code = step.get("reject")
    decision = decision_of(state, step)
    if expected_code is not None:
        if not isinstance(decision, Refusal):
            raise ScenarioError(f"accepted (expected reject {expected_code}, got accepted)")
        if decision.code != expected_code:
            raise ScenarioError(
                f"reject code differs (expected {expected_code}, got {decision.code}: "
                f"{decision.message})"
            )
        return state
    if isinstance(decision, Refusal):
        raise ScenarioError(f"refused (expected accepted, got {decision.code}: {decision.message})")
    state = fold(state, decision)
    check_expect(state, step.get("expect", {}))
    return state


def decision_of(state: MatchState, step: dict[str, Any]) -> Any:
    """The decider's answer to a scenario step: its events, or a Refusal."""
    actions = [name for name in _ACTIONS if name in step]
    seat = step.get("seat")
    if len(actions) != 1 or not isinstance(seat, int) or isinstance(seat, bool):
        return Refusal(RefusalCode.BAD_REQUEST, "a step needs a seat and exactly one action")
    action = actions[0]
    value = step[action]
    try:
        if action == "pass":
            if value is not True:
                raise Refused(RefusalCode.BAD_REQUEST, "pass takes true")
            command = seat_command(seat, "pass")
        elif action == "bomb":
            command = seat_command(seat, "bomb", ranks=value)
        else:
            command = seat_command(seat, action, cards=value, jokers_as=step.get("as", []))
    except Refused as refused:
        return refused.refusal
    return decide(state, command)


def observe(state: MatchState, key: str) -> Any:
    """What the state says for one docs/SCENARIOS.md ``expect`` key, in its JSON form."""
    readers: dict[str, Callable[[MatchState], Any]] = {
        "turn": lambda s: s.turn if not s.game_over else None,
        "waiting_for": lambda s: s.waiting_for,
        "field": lambda s: sorted(format_mask(s.field.mask)) if s.field else [],
        "revolution": lambda s: s.revolution,
        "eleven_back": lambda s: bool(s.eleven_back),
        "direction": lambda s: s.turn_direction,
        "suit_lock": lambda s: sorted(suit_letters(s.suit_lock)),
        "number_lock": lambda s: s.number_lock,
        "hands": lambda s: {str(seat): sorted(format_mask(h)) for seat, h in enumerate(s.hands)},
        "hand_sizes": lambda s: {str(seat): h.bit_count() for seat, h in enumerate(s.hands)},
        "places": lambda s: {str(seat): place for seat, place in s.places().items()},
        "forbidden": lambda s: [seat for seat, how in s.bottom if how == Bottom.FORBIDDEN],
        "fallen": lambda s: [seat for seat, how in s.bottom if how == Bottom.FALLEN],
        "game_over": lambda s: s.game_over,
        "discard_pile": lambda s: sorted(format_mask(s.pile)),
        "two_back": lambda s: s.two_back,
        "color_lock": lambda s: COLORS.get(s.color_lock),
        "partial_lock": lambda s: s.partial_lock,
        # what every view shows (docs/RULES.md §5.6 #21, #25): a spectator's
        "discard_pile_marked": lambda s: sorted(build_view(s, SPECTATOR).discard_pile_marked),
        "out_of_play": lambda s: sorted(build_view(s, SPECTATOR).out_of_play),
    }
    if key not in readers:
        raise ScenarioError(f"unknown expect key {key!r}")
    return readers[key](state)


def check_expect(state: MatchState, expect: Any) -> None:
    if not isinstance(expect, dict):
        raise ScenarioError("expect must be an object")
    for key, wanted in expect.items():
        got = observe(state, key)
        try:
            wanted = _normalised(key, wanted)
        except (Refused, ValueError, AttributeError, TypeError) as error:
            raise ScenarioError(f"expect {key} is malformed: {error}") from None
        if isinstance(wanted, dict) and isinstance(got, dict) and key in ("hands", "hand_sizes"):
            got = {seat: got.get(seat) for seat in wanted}
        if got != wanted:
            raise ScenarioError(f"{key} differs (expected {_show(wanted)}, got {_show(got)})")


def _normalised(key: str, wanted: Any) -> Any:
    """An expected value in the form ``observe`` reads (order-free lists sorted)."""
    if key in ("field", "discard_pile", "discard_pile_marked", "out_of_play"):
        return sorted(format_mask(parse_mask(wanted)))
    if key == "suit_lock":
        return sorted(suit_letters(parse_suits(wanted)))
    if key == "hands":
        return {str(seat): sorted(format_mask(parse_mask(cards))) for seat, cards in wanted.items()}
    if key in ("hand_sizes", "places"):
        return {str(seat): value for seat, value in wanted.items()}
    return wanted


def _show(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def run_paths(paths: Iterable[str | Path], write: Callable[[str], None] = print) -> bool:
    """Run every scenario under ``paths``; True when none failed."""
    passed = failed = 0
    for path in scenario_files(paths):
        outcome = run_file(path)
        write(outcome.line())
        passed += outcome.passed
        failed += not outcome.passed
    write(f"{passed} passed, {failed} failed")
    return failed == 0
