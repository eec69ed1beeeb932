"""The REST API's bodies, typed so the OpenAPI schema says what each holds.

Views are the rules' ``View`` itself (its JSON is ``View.to_dict()``); events
are the dicts ``service.app.service.visible`` makes (their fields depend on the
type), so they stay open objects here.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta, Struct

from ..app.catalog import MatchState
from ..rules.views import View

Event = Annotated[
    dict[str, Any],
    Meta(
        description="An event as the viewer may see it: seq, at (ms), type and the event's "
        "fields (a hidden card list is null beside a *_count)."
    ),
]
Code = Annotated[
    str, Meta(min_length=1, max_length=8, description='a card code: "3S", "10H", "JK"')
]
RankCode = Annotated[str, Meta(min_length=1, max_length=2, description='a rank: "5", "10", "Q"')]


class Error(Struct, omit_defaults=True):
    """Every refusal: a reason code (the rules' codes, docs/RULES.md §7, or not_found,
    unauthenticated, permission_denied, bad_request, match_not_over, busy,
    request_id_reused, too_long, too_many, invalid_name,
    unavailable…) and what was wrong."""

    code: str
    message: str
    # a refusal judged on the match: its signed refusal receipt (docs/AUDIT.md)
    receipt: dict[str, Any] | None = None


class MatchSummary(Struct):
    match_id: str
    preset: str
    players: int
    state: MatchState
    names: list[str]
    game_number: int
    games_per_set: int
    created_at: int  # ms since the epoch
    updated_at: int
    # anyone may take an open seat ("" in names) with POST /matches/{id}/join
    lobby: bool = False


class MatchPage(Struct):
    matches: list[MatchSummary]
    next: str | None  # the cursor of the next page; None at the end


class MatchView(Struct):
    match_id: str
    state: MatchState
    version: int  # the seq of the last event the view includes
    names: list[str]
    spectator_delay_ms: int
    view: View
    turn_ms: int  # the turn time limit; 0: none
    # when the seat to act runs out of time (ms since the epoch); null when untimed, between
    # turns, or for a delayed spectator (whose view is older than the clock)
    turn_deadline_ms: int | None


class MatchViewAt(MatchView):
    seq: int  # the view is the state after this event; ``version`` is the last visible seq


class EventPage(Struct):
    events: list[Event]
    next: int | None  # the ``from`` of the next page; None: nothing more to see now


ActionName = Literal["play", "pass", "give", "discard", "bomb", "pick"]  # rules.vocabulary.Action


class Action(Struct):
    """A seat's action in card notation, as POST /matches/{id}/actions takes it."""

    action: ActionName
    cards: Annotated[list[Code], Meta(max_length=54)] = msgspec.field(default_factory=list)
    jokers_as: Annotated[list[Code], Meta(max_length=2)] = msgspec.field(default_factory=list)
    ranks: Annotated[list[RankCode], Meta(max_length=13)] = msgspec.field(default_factory=list)


class ActionRequest(Action):
    # a retry with the same id returns the first outcome and changes nothing
    request_id: Annotated[str, Meta(max_length=128)] = ""


class ActionResult(Struct):
    version: int
    events: list[Event]
    receipt: Annotated[
        dict[str, Any] | None,
        Meta(description="the signed receipt of the events appended (docs/AUDIT.md)"),
    ] = None


class SeatState(Struct):
    view: View
    legal: list[Action]  # empty when it is not this seat's turn
    version: int
    turn_ms: int = 0  # the turn time limit; 0: none
    turn_deadline_ms: int | None = None  # when the seat to act runs out of time, if timed


class Standing(Struct):
    name: str
    points: int
    games: int
    firsts: int
    places: list[int]  # games finished in each place, 1st first (trailing zeros left off)


class RankingPage(Struct):
    rankings: list[Standing]
    next: int | None  # the ``offset`` of the next page; None at the end


class AuditResult(Struct):
    """The audit report: the verdict, each check's result (name, ok, first_bad_seq,
    reason, and what the check saw), and the findings: warnings that leave the
    verdict as it is (``unblinded_hidden_choice``)."""

    verdict: Literal["valid", "invalid"]
    match_id: str | None
    events: int
    checks: list[dict[str, Any]]
    not_run: list[dict[str, Any]] = []
    # warnings true of a valid log (code, severity, seq, message): docs/AUDIT.md
    findings: list[dict[str, Any]] = []


class SigningKey(Struct):
    """A public key that signs receipts and seals. A record counts only when its own
    time ``at`` is in [valid_from, valid_to) of the key its ``key_id`` names."""

    key_id: Annotated[
        str, Meta(description="the first 16 hex digits of sha256 over the raw public key")
    ]
    algorithm: Literal["Ed25519"]
    public_key: Annotated[str, Meta(description="the raw 32-byte public key, standard base64")]
    valid_from: Annotated[int, Meta(description="ms since the epoch")]
    valid_to: Annotated[
        int | None, Meta(description="ms since the epoch, exclusive; null: the active key")
    ]


class SigningKeyList(Struct):
    keys: list[SigningKey]  # oldest first; retired keys stay listed
