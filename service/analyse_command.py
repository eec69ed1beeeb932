"""``daifugo analyse MATCH_ID [--game N] [--playouts P] [--json]``: the expert's
judgement of every move of a finished match, as ``GET /matches/{id}/analysis`` gives it,
printed. The match is read as ``daifugo audit`` reads it (REDIS_URL, else the embedded
Redis; an archived match from the archive), and analysed in this process. Exit status 0,
2 when there is nothing to analyse (no such match, or one not over)."""

from __future__ import annotations

import json
import sys
from typing import Any, TextIO

from clients import analysis

from .audit_command import Unreadable, read_match_of


def run_analyse(
    match_id: str,
    game: int | None = None,
    playouts: int | None = None,
    redis_url: str | None = None,
    out: TextIO | None = None,
    err: TextIO | None = None,
    as_json: bool = False,
) -> int:
    out = out or sys.stdout
    err = err or sys.stderr
    budget = analysis.DEFAULT_PLAYOUTS if playouts is None else playouts
    if not analysis.MIN_PLAYOUTS <= budget <= analysis.MAX_PLAYOUTS:
        limits = f"{analysis.MIN_PLAYOUTS} to {analysis.MAX_PLAYOUTS}"
        print(f"daifugo analyse: --playouts is {limits}", file=err)
        return 2
    try:
        stored = read_match_of(match_id, redis_url)
    except Unreadable as error:
        print(f"daifugo analyse: {error}", file=err)
        return 2
    records = [(event.type, event.data) for event in stored]
    prepared = analysis.prepare(records, game, budget)
    if not prepared.over:
        print(f"daifugo analyse: match {match_id} is not over: its hands are secret", file=err)
        return 2
    if game is not None and not 1 <= game <= prepared.games:
        print(f"daifugo analyse: match {match_id} has games 1 to {prepared.games}", file=err)
        return 2
    moves = []
    for decision in prepared.decisions:
        means = analysis.evaluate(decision.request) if decision.request is not None else None
        moves.append(analysis.judged(decision, means))
    result = analysis.report(prepared, game, budget, moves)
    if as_json:
        print(json.dumps(result, indent=2, ensure_ascii=False), file=out)
    else:
        out.write(text_of(result))
    return 0


def text_of(result: dict[str, Any]) -> str:
    """The analysis as a table: a line a move, then each seat's summary."""
    names = result["names"]

    def who(seat: int) -> str:
        return f"seat {seat}" + (f" ({names[seat]})" if seat < len(names) and names[seat] else "")

    games = "every game" if result["game"] is None else f"game {result['game']}"
    lines = [
        f"match {result['match_id']}, {games}: {result['playouts']} playouts a judged move "
        f"(code {result['code']}); expected place, 1 best",
        "",
    ]
    for move in result["moves"]:
        head = f"{move['seq']:>5}  g{move['game']}  {who(move['seat']):<16} {move['taken']:<22}"
        match move["kind"]:
            case analysis.Kind.JUDGED:
                label = move["label"] or ""
                better = "" if move["best"] == move["taken"] else f"expert: {move['best']}"
                lines.append(
                    f"{head} {move['taken_place']:5.2f} vs {move['best_place']:5.2f}  "
                    f"-{move['loss']:.2f} {label:<10} {better}".rstrip()
                )
            case analysis.Kind.FORCED:
                lines.append(f"{head} forced")
            case analysis.Kind.UNJUDGED:
                lines.append(f"{head} not judged")
    lines.append("")
    for row in result["seats"]:
        labels = ", ".join(f"{row[str(label)]} {label}" for label in analysis.Label)
        lines.append(
            f"{who(row['seat'])}: {row['judged']} judged moves, mean loss {row['loss']:.2f}; "
            f"{labels}"
        )
    return "\n".join(lines) + "\n"
