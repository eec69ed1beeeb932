"""A match as a readable game record (a kifu): tag-pair headers, then one line
per event that says something (``seat 2 plays 5H 5S``, ``eight-cut: field
flushed, seat 2 leads``, ``seat 1 finishes 1st (大富豪)``), numbered by seq.

It reads the events as the reader may see them (``visible`` records): a
hidden card list shows as a count.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable
from typing import Any

from ..app.match import Match


def titles(players: int) -> list[str]:
    """The titles of places 1..players (大富豪 … 大貧民)."""
    if players == 2:
        return ["大富豪", "大貧民"]
    middle = ["富豪", *["平民"] * (players - 4), "貧民"] if players >= 4 else ["平民"]
    return ["大富豪", *middle, "大貧民"]


def ordinal(number: int) -> str:
    suffix = {1: "st", 2: "nd", 3: "rd"}.get(number if number < 20 else number % 10, "th")
    return f"{number}{suffix}"


def words(name: str) -> str:
    return name.replace("_", "-")


def cards(record: dict[str, Any], name: str = "cards") -> str:
    shown = record.get(name)
    if shown is None:
        count = record.get(f"{name}_count", 0)
        return f"{count} hidden card{'s' if count != 1 else ''}"
    return " ".join(shown) if shown else "nothing"


def seats(values: Iterable[int]) -> str:
    return ", ".join(f"seat {seat}" for seat in values)


def place(seat: int, number: int, players: int) -> str:
    named = titles(players)
    title = f" ({named[number - 1]})" if 1 <= number <= len(named) else ""
    return f"{ordinal(number)}{title}"


def headers(match: Match, state: str, created_ms: int) -> list[str]:
    created = datetime.datetime.fromtimestamp(created_ms / 1000, datetime.UTC)
    tags = [
        ("Match", match.match_id),
        ("Preset", match.rules.preset),
        ("Players", str(match.players)),
        ("GamesPerSet", str(match.rules.games_per_set)),
        ("Date", created.strftime("%Y-%m-%dT%H:%M:%SZ")),
        *((f"Seat{seat}", name) for seat, name in enumerate(match.names)),
        ("State", state),
    ]
    if match.commitment:
        tags.append(("SeedCommitment", match.commitment))
    if match.seed:
        tags.append(("Seed", match.seed))
    if match.game.results:
        results = " | ".join(
            " ".join(str(place) for place in places) for places in match.game.results
        )
        tags.append(("Results", results))
    return [f'[{name} "{value}"]' for name, value in tags]


def record_text(match: Match, state: str, created_ms: int, events: Iterable[dict[str, Any]]) -> str:
    """The whole record: headers, a blank line, then one line per event."""
    lines = headers(match, state, created_ms)
    lines.append("")
    for record in events:
        line = describe(record, match.players)
        if line is not None:
            lines.append(f"{record['seq']:>5}  {line}")
    return "\n".join(lines) + "\n"


def describe(record: dict[str, Any], players: int) -> str | None:
    """One event in words, or None for the ones a reader can do without."""
    kind = record["type"]
    seat = record.get("seat")
    why = f" ({words(record['reason'])})" if record.get("reason") else ""
    if kind == "MatchCreated":
        return f"match created: {record['preset']}, {record['players']} seats"
    if kind == "SeatJoined":
        return f'seat {seat} is "{record["name"]}"'
    if kind == "MatchStarted":
        return f"match starts; deck seed committed: sha256 {record['seed_commitment']}"
    if kind == "GameDealt":
        return _dealt(record)
    if kind == "HandsSwapped":
        first, second = record["seats"]
        return f"tenpenchi: seat {first} and seat {second} swap hands"
    if kind == "ExchangeStarted":
        steps = [
            f"seat {giver} gives {count} to seat {to}" for giver, to, count, _ in record["steps"]
        ]
        return "card exchange: " + "; ".join(steps)
    if kind == "CardsGiven":
        return f"seat {seat} gives {cards(record)} to seat {record['to']}{why}"
    if kind == "CardsPlayed":
        jokers = f" (joker as {' '.join(record['jokers_as'])})" if record.get("jokers_as") else ""
        return f"seat {seat} plays {cards(record)}{jokers}{why}"
    if kind == "Passed":
        return f"seat {seat} passes{why}"
    if kind == "RevolutionChanged":
        return f"{words(record['cause'])}: revolution {'on' if record['revolution'] else 'off'}"
    if kind == "OmenInvoked":
        return f"seat {seat} invokes the omen: local rules off"
    if kind == "ElevenBackStarted":
        return f"eleven-back ({record['reading']})"
    if kind == "SuitLocked":
        return f"suit lock: {' '.join(record['suits'])}"
    if kind == "NumberLocked":
        return f"number lock from {record['rank']}"
    if kind == "DirectionReversed":
        return "nine-reverse: direction reversed"
    if kind == "PlayersSkipped":
        return f"five-skip: {seats(record['seats'])} skipped"
    if kind == "StepRequired":
        return f"seat {seat} must {words(record['step'])} {record['count']}"
    if kind == "FourStopOffered":
        return f"four-stop offered to {seats(record['seats'])}"
    if kind == "RanksBombed":
        return f"seat {seat} bombs {' '.join(record['ranks'])}"
    if kind == "CardsDiscarded":
        return f"seat {seat} discards {cards(record)}{why}"
    if kind in ("PlayerFinished", "PlayerFell"):
        return _finished(record, players)
    if kind == "FieldFlushed":
        return f"{words(record['reason'])}: field flushed, seat {record['leader']} leads"
    if kind == "GameEnded":
        order = sorted(range(len(record["places"])), key=lambda s: record["places"][s])
        ranked = ", ".join(f"{ordinal(record['places'][s])} seat {s}" for s in order)
        return f"game over: {ranked}" + (" (gekokujo)" if record.get("gekokujo") else "")
    if kind == "MatchEnded":
        return f"match over; blind cards: {cards(record, 'blind')}"
    if kind == "TurnTimedOut":
        return f"seat {seat}'s time runs out ({words(record['waiting_for'])})"
    if kind == "SeedRevealed":
        return f"seed revealed: {record['seed']}"
    return None  # TurnMoved: who is next is clear from the lines around it


def _dealt(record: dict[str, Any]) -> str:
    sizes = record.get("hand_sizes") or [len(hand or ()) for hand in record["hands"]]
    text = f"== game {record['game_number']} == dealt {'/'.join(map(str, sizes))} cards"
    text += f", seat {record['leader']} leads"
    if record.get("revolution"):
        text += ", in revolution"
    hands = record["hands"]
    shown = [f"seat {seat}: {' '.join(hand)}" for seat, hand in enumerate(hands) if hand]
    if shown:
        text += "\n         " + "\n         ".join(shown)
    for name in ("blind", "unused"):
        if record.get(name):
            text += f"\n         {name}: {' '.join(record[name])}"
    return text


def _finished(record: dict[str, Any], players: int) -> str:
    seat, number = record["seat"], record["place"]
    if record["type"] == "PlayerFell":
        text = f"seat {seat} falls to {place(seat, number, players)}: miyako-ochi"
    else:
        text = f"seat {seat} finishes {place(seat, number, players)}"
        if record.get("forbidden"):
            text += ", forbidden finish"
        if record.get("cause") not in (None, "play"):
            text += f" ({words(record['cause'])})"
    if record.get("leftover") or record.get("leftover_count"):
        text += f", leaving {cards(record, 'leftover')}"
    return text
