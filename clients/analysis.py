"""Analysis of a finished match: every play or pass a seat made, judged by the expert
(``clients.expert``) from that seat's information at the time, never the revealed hands.

``decisions`` folds the match's events and, at each of a seat's decisions, builds the
seat's own view (``build_view`` for that seat: its hand, the others' counts, the public
cards) and hands it to an ``ExpertBot`` kept for that seat across the match, so the
expert remembers what the seat saw (the cards it gave in the exchange, the ceilings the
exchange implies) exactly as it would had it sat there. The candidates are the expert's
own (the stronger bot's best ``CANDIDATES`` actions) and the action taken; ``evaluate``
plays each out on the same samples of the hidden hands (``expert.think``), drawn from
that knowledge alone, with a seed drawn from the seat's view: the same match, budget
and code always give the same analysis, and no hidden card can change it.

The outcome is the mean place the seat reaches (1 best): a preset's points are a fixed
amount less the place, so the best place is the best points too. A move's loss is the
mean place of the action taken less that of the best candidate; its label, by
``THRESHOLDS`` (docs/ANALYSIS.md). A step with one legal action is forced: not judged.
Every other step (a play or pass, a give, discard, answer window, pick or bomb) with
a choice is judged.
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from service.audit.legality import command_of
from service.match import Match, MatchEvent, TurnTimedOut, evolve, from_record
from service.rules.commands import Pass, Play, SeatCommand
from service.rules.legal import legal_actions
from service.rules.notation import written
from service.rules.views import Viewer, build_view

from .expert import ExpertBot, Request, Search, think
from .playouts import Rollout


class Label(enum.StrEnum):
    INACCURACY = "inaccuracy"
    MISTAKE = "mistake"
    BLUNDER = "blunder"


DEFAULT_PLAYOUTS = 600  # playouts per judged decision, shared by its candidates
# every candidate's mean place is the result here, not only the choice: the planning
# rollouts, about three times cheaper than the stronger bot's, give a game's review its
# playouts within half a minute (bench.analysis)
REVIEW = Search(Rollout.PLANNING, confidence=None)
MIN_PLAYOUTS = 10  # a playout for each candidate at least (the expert's few, and the move)
MAX_PLAYOUTS = 5_000  # the most ``daifugo analyse`` runs a move: a job stays minutes long
# the budgets the service runs (quick, default, deep): a few results a game at most, kept
BUDGETS = (50, DEFAULT_PLAYOUTS, 3_000)
# mean place lost (places 1..n) from which a move is labelled; docs/ANALYSIS.md says why
THRESHOLDS = ((Label.BLUNDER, 1.0), (Label.MISTAKE, 0.5), (Label.INACCURACY, 0.25))
# every module whose code shapes an analysis: a change to any makes a new digest
_SOURCES = ("analysis.py", "expert.py", "playouts.py", "policies.py", "strategy.py", "bots.py")


class Kind(enum.StrEnum):
    JUDGED = "judged"  # a step with a choice: searched
    FORCED = "forced"  # one legal action
    UNJUDGED = "unjudged"  # a choice the expert could not search (never expected)


@cache
def code_digest() -> str:
    """A digest of the code that analyses: a stored analysis made by other code is stale."""
    digest = hashlib.sha256()
    here = Path(__file__).parent
    for name in _SOURCES:
        digest.update(name.encode() + b"\0" + (here / name).read_bytes())
    return digest.hexdigest()[:16]


def label_of(loss: float) -> Label | None:
    for label, threshold in THRESHOLDS:
        if loss >= threshold:
            return label
    return None


@dataclass(frozen=True, slots=True)
class Decision:
    """One action of a seat: its event's seq, the game, the seat, the action taken, how
    many actions were legal, and (a judged one) the search to run: the candidates, the
    taken action among them, drawn from the seat's knowledge then."""

    seq: int
    game: int
    seat: int
    taken: SeatCommand
    legal: int
    kind: Kind
    request: Request | None = None


def _plain(command: SeatCommand) -> SeatCommand:
    """The command without the service's note (a timeout's reason): as a seat chose it."""
    if isinstance(command, Play | Pass) and command.reason:
        return dataclasses.replace(command, reason="")
    return command


def decisions(
    records: Sequence[tuple[str, dict[str, Any]]],
    game: int | None,
    playouts: int = DEFAULT_PLAYOUTS,
    seed: bytes = b"analysis",
) -> list[Decision]:
    """The actions of game ``game`` (None: every game) of the match whose stored events
    are ``records`` (type, data; seq 0 first), each with its search."""
    return _walk(records, game, playouts, seed)[0]


def _walk(
    records: Sequence[tuple[str, dict[str, Any]]], game: int | None, playouts: int, seed: bytes
) -> tuple[list[Decision], Match | None]:
    """``decisions``, and the match folded to its end. A seat's expert follows every
    action of the seat in the games asked for, so what it remembers is what the seat
    saw; it remembers nothing from one game to the next (a deal starts its memory
    afresh), so the other games' actions are only folded."""
    match: Match | None = None
    experts: dict[int, ExpertBot] = {}
    out: list[Decision] = []
    timed_out = False
    for seq, (kind, data) in enumerate(records):
        event: MatchEvent = from_record(kind, data)
        command = command_of(event, data) if match is not None else None
        if (
            command is not None
            and match is not None
            and match.game.turn == command.seat
            and (game is None or match.game.game_number == game)
        ):
            state = match.game
            seat = command.seat
            expert = experts.get(seat)
            if expert is None:
                expert = experts[seat] = ExpertBot(
                    match.rules, playouts=playouts, seed=seed, search=REVIEW
                )
            view = build_view(state, Viewer.of_seat(seat))
            legal = legal_actions(state)
            taken = _plain(command)
            request, position, _ = expert.request(view, legal)
            if not timed_out:  # a timed-out seat chose nothing
                out.append(_decision(seq, state.game_number, seat, taken, legal, request))
            expert.chose(view, position, taken)
        timed_out = isinstance(event, TurnTimedOut)
        match = evolve(match, event)
    return out, match


def _decision(
    seq: int,
    game: int,
    seat: int,
    taken: SeatCommand,
    legal: Sequence[SeatCommand],
    request: Request | None,
) -> Decision:
    if len(legal) == 1:
        return Decision(seq, game, seat, taken, 1, Kind.FORCED)
    if request is None:  # the expert found one candidate only (never expected)
        return Decision(seq, game, seat, taken, len(legal), Kind.UNJUDGED)
    candidates = request.candidates
    if taken not in candidates:
        candidates = (*candidates, taken)
    request = dataclasses.replace(request, candidates=candidates, budget_ms=None)
    return Decision(seq, game, seat, taken, len(legal), Kind.JUDGED, request)


def evaluate(request: Request) -> tuple[float, ...]:
    """Each candidate's mean place over the same samples (a worker process runs this)."""
    return think(request).means


def judged(decision: Decision, means: Sequence[float] | None) -> dict[str, Any]:
    """A decision and its candidates' mean places as the analysis reports it."""
    move: dict[str, Any] = {
        "seq": decision.seq,
        "game": decision.game,
        "seat": decision.seat,
        "kind": str(decision.kind),
        "legal": decision.legal,
        "taken": str(written(decision.taken)),
    }
    request = decision.request
    if request is None or means is None:
        return move
    taken = means[request.candidates.index(decision.taken)]
    # a candidate no playout finished (never expected) is left out; the move taken so: unjudged
    played = [(mean, action) for mean, action in zip(means, request.candidates, strict=True)]
    ranked = sorted((item for item in played if math.isfinite(item[0])), key=lambda item: item[0])
    if not math.isfinite(taken):
        move["kind"] = str(Kind.UNJUDGED)
        return move
    best_mean, best = ranked[0]
    if best_mean >= taken:  # a tie goes to the move taken
        best_mean, best = taken, decision.taken
    loss = round(max(0.0, taken - best_mean), 3)  # labelled as shown
    label = label_of(loss)
    move.update(
        best=str(written(best)),
        taken_place=round(taken, 3),
        best_place=round(best_mean, 3),
        loss=loss,
        label=None if label is None else str(label),
        candidates=[
            {"action": str(written(action)), "place": round(mean, 3)} for mean, action in ranked
        ],
    )
    return move


def summary(moves: Iterable[dict[str, Any]], players: int) -> list[dict[str, Any]]:
    """Per seat: how many moves were judged, each label's count, the mean loss."""
    seats: list[dict[str, Any]] = [
        {"seat": seat, "judged": 0, "loss": 0.0, **{str(label): 0 for label in Label}}
        for seat in range(players)
    ]
    for move in moves:
        if "loss" not in move:
            continue
        row = seats[move["seat"]]
        row["judged"] += 1
        row["loss"] += move["loss"]
        if move["label"]:
            row[move["label"]] += 1
    for row in seats:
        row["loss"] = round(row["loss"] / row["judged"], 3) if row["judged"] else 0.0
    return seats


@dataclass(frozen=True, slots=True)
class Prepared:
    """A match's moves to judge, and what the report says of the match."""

    match_id: str
    players: int
    names: tuple[str, ...]
    games: int
    over: bool  # the match is over: its record is public
    decisions: list[Decision]


def prepare(
    records: Sequence[tuple[str, dict[str, Any]]],
    game: int | None,
    playouts: int = DEFAULT_PLAYOUTS,
) -> Prepared:
    """``decisions``, and the match they are of (a worker process runs this: it folds
    the whole match)."""
    found, match = _walk(records, game, playouts, b"analysis")
    if match is None:
        raise ValueError("no events to analyse")
    return Prepared(
        match.match_id, match.players, match.names, match.game.game_number, match.over, found
    )


def report(
    prepared: Prepared, game: int | None, playouts: int, moves: list[dict[str, Any]]
) -> dict[str, Any]:
    """The analysis as it is kept and served."""
    return {
        "match_id": prepared.match_id,
        "game": game,
        "games": prepared.games,
        "players": prepared.players,
        "names": list(prepared.names),
        "playouts": playouts,
        "code": code_digest(),
        "thresholds": dict(THRESHOLDS),
        "moves": moves,
        "seats": summary(moves, prepared.players),
    }


def analyse(
    records: Sequence[tuple[str, dict[str, Any]]],
    game: int | None,
    playouts: int = DEFAULT_PLAYOUTS,
) -> dict[str, Any]:
    """The analysis of ``game`` (None: every game), made in this process (the CLI, tests)."""
    prepared = prepare(records, game, playouts)
    moves = []
    for decision in prepared.decisions:
        means = evaluate(decision.request) if decision.request is not None else None
        moves.append(judged(decision, means))
    return report(prepared, game, playouts, moves)


__all__ = [
    "DEFAULT_PLAYOUTS",
    "THRESHOLDS",
    "Decision",
    "Kind",
    "Label",
    "Prepared",
    "analyse",
    "code_digest",
    "decisions",
    "evaluate",
    "judged",
    "prepare",
    "report",
    "summary",
]
