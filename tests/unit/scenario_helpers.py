"""Inline scenarios for unit tests, in the shape of docs/SCENARIOS.md.

Cards are written as one string, ``"3D 4D JK"``; the helpers turn them into
the JSON lists docs/SCENARIOS.md uses and ``run`` plays the whole scenario through
``service.scenarios.run_scenario`` (the same decider the service uses), which
raises ``ScenarioError`` at the first step that differs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from service.rules import MatchState
from service.scenarios import run_scenario

Step = dict[str, Any]

_CARD_KEYS = ("field", "discard_pile")
_SEAT_KEYS = ("hands", "hand_sizes", "places")


def cards(text: str | Sequence[str]) -> list[str]:
    """``"3D 4D JK"`` -> ``["3D", "4D", "JK"]`` (lists pass through)."""
    return text.split() if isinstance(text, str) else list(text)


def _expect(expect: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in expect.items():
        if key in _CARD_KEYS:
            value = cards(value)
        elif key == "suit_lock":
            value = list(value)
        elif key in _SEAT_KEYS:
            value = {str(seat): cards(v) if key == "hands" else v for seat, v in value.items()}
        out[key] = value
    return out


def _step(seat: int, action: str, value: Any, reject: str | None, expect: dict[str, Any]) -> Step:
    step: Step = {"seat": seat, action: value}
    if reject is not None:
        assert not expect, "a rejected step carries no expect"
        step["reject"] = reject
    elif expect:
        step["expect"] = _expect(expect)
    return step


def play(
    seat: int,
    text: str | Sequence[str],
    as_: str | None = None,
    reject: str | None = None,
    **expect: Any,
) -> Step:
    step = _step(seat, "play", cards(text), reject, expect)
    if as_ is not None:
        step["as"] = cards(as_)
    return step


def pass_(seat: int, reject: str | None = None, **expect: Any) -> Step:
    return _step(seat, "pass", True, reject, expect)


def give(seat: int, text: str, reject: str | None = None, **expect: Any) -> Step:
    return _step(seat, "give", cards(text), reject, expect)


def discard(seat: int, text: str, reject: str | None = None, **expect: Any) -> Step:
    return _step(seat, "discard", cards(text), reject, expect)


def pick(seat: int, text: str, reject: str | None = None, **expect: Any) -> Step:
    return _step(seat, "pick", cards(text), reject, expect)


def bomb(seat: int, ranks: str, reject: str | None = None, **expect: Any) -> Step:
    return _step(seat, "bomb", ranks.split(), reject, expect)


def game(
    preset: str,
    hands: Sequence[str | Sequence[str]],
    steps: Sequence[Step],
    options: dict[str, Any] | None = None,
    final: dict[str, Any] | None = None,
    **start: Any,
) -> dict[str, Any]:
    """A scenario dict. ``start`` keys are docs/SCENARIOS.md's (``leader``, ``revolution``,
    ``game_number``, ``skip_exchange``); ``previous_places`` may be a list of
    places by seat."""
    previous = start.get("previous_places")
    if isinstance(previous, (list, tuple)):
        start["previous_places"] = {str(seat): place for seat, place in enumerate(previous)}
        start.setdefault("game_number", 2)
    data: dict[str, Any] = {
        "name": "unit",
        "rules": {"preset": preset, "options": dict(options or {})},
        "players": len(hands),
        "start": {"hands": [cards(hand) for hand in hands], **start},
        "steps": list(steps),
    }
    if final is not None:
        data["final"] = _expect(final)
    return data


def run(
    preset: str,
    hands: Sequence[str | Sequence[str]],
    steps: Sequence[Step],
    options: dict[str, Any] | None = None,
    final: dict[str, Any] | None = None,
    **start: Any,
) -> MatchState:
    """Build the scenario and play it through; returns the final state."""
    return run_scenario(game(preset, hands, steps, options, final, **start))
