"""Events in words: one line per event that says something (``seat 2 plays 5H 5S``,
``eight-cut: field flushed, seat 2 leads``, ``seat 1 finishes 1st (大富豪)``), read from
the events as a reader may see them (visible records, card codes): a hidden card list
shows as a count. The game record (kifu) and the terminal client both say it so.

Cards are written as their codes (``CODES``), or as glyphs for a person at a terminal
(``GLYPHS``: ``7♠ 10♥``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

_SUIT_GLYPHS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


@dataclass(frozen=True, slots=True)
class Writing:
    """How cards and suits are written."""

    glyphs: bool = False

    def card(self, code: str) -> str:
        """``7S`` as ``7♠`` and ``TS`` as ``10♠`` in glyphs; a joker stays ``JK``."""
        if not self.glyphs or len(code) != 2 or code == "JK":
            return code
        return ("10" if code[0] == "T" else code[0]) + self.suit(code[1])

    def suit(self, letter: str) -> str:
        return _SUIT_GLYPHS.get(letter, letter) if self.glyphs else letter

    def cards(self, codes: Iterable[str]) -> str:
        return " ".join(map(self.card, codes))


CODES = Writing()
GLYPHS = Writing(glyphs=True)


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


def cards(record: dict[str, Any], name: str = "cards", writing: Writing = CODES) -> str:
    shown = record.get(name)
    if shown is None:
        count = record.get(f"{name}_count", 0)
        return f"{count} hidden card{'s' if count != 1 else ''}"
    return writing.cards(shown) if shown else "nothing"


def seats(values: Iterable[int]) -> str:
    return ", ".join(f"seat {seat}" for seat in values)


def place(seat: int, number: int, players: int) -> str:
    named = titles(players)
    title = f" ({named[number - 1]})" if 1 <= number <= len(named) else ""
    return f"{ordinal(number)}{title}"


def describe(record: dict[str, Any], players: int, writing: Writing = CODES) -> str | None:
    """One event in words, or None for the ones a reader can do without. A test
    holds every event type of the rules and the service to a case here."""
    seat = record.get("seat")
    why = f" ({words(record['reason'])})" if record.get("reason") else ""
    match record["type"]:
        case "MatchCreated":
            return f"match created: {record['preset']}, {record['players']} seats"
        case "SeatJoined":
            return f'seat {seat} is "{record["name"]}"'
        case "MatchStarted":
            return f"match starts; deck seed committed: sha256 {record['seed_commitment']}"
        case "GameDealt":
            return _dealt(record, writing)
        case "HandsSwapped":
            first, second = record["seats"]
            return f"tenpenchi: seat {first} and seat {second} swap hands"
        case "ExchangeStarted":
            steps = [
                f"seat {giver} gives {count} to seat {to}"
                for giver, to, count, _ in record["steps"]
            ]
            return "card exchange: " + "; ".join(steps)
        case "CardsGiven":
            given = cards(record, writing=writing)
            return f"seat {seat} gives {given} to seat {record['to']}{why}"
        case "CardsPlayed":
            stands = writing.cards(record.get("jokers_as") or ())
            jokers = f" (joker as {stands})" if stands else ""
            return f"seat {seat} plays {cards(record, writing=writing)}{jokers}{why}"
        case "Passed":
            return f"seat {seat} passes{why}"
        case "RevolutionChanged":
            state = "on" if record["revolution"] else "off"
            return f"{words(record['cause'])}: revolution {state}"
        case "OmenInvoked":
            return f"seat {seat} invokes the omen: local rules off"
        case "ElevenBackStarted":
            return f"eleven-back ({record['reading']})"
        case "ElevenBackStrengthened":
            return "strong eleven-back: it lasts through the next trick"
        case "ElevenBackEnded":
            return f"{words(record['cause'])}: eleven-back ends"
        case "TwoBackStarted":
            return "two-back: the order is reversed until the flush"
        case "SuitLocked":
            if not record["suits"]:
                return "suit lock lifted"
            lock = "partial lock" if record.get("partial") else "suit lock"
            return f"{lock}: {' '.join(map(writing.suit, record['suits']))}"
        case "ColorLocked":
            return f"colour lock: {record['color']}"
        case "LocksReleased":
            return f"{words(record['cause'])}: every lock ends"
        case "NumberLocked":
            return f"number lock from {record['rank']}"
        case "DirectionReversed":
            return f"{words(record.get('cause') or 'nine_reverse')}: direction reversed"
        case "PlayersSkipped":
            causes = " + ".join(map(words, record.get("causes") or ("five_skip",)))
            return f"{causes}: {seats(record['seats'])} skipped"
        case "StepRequired":
            return f"seat {seat} must {words(record['step'])} {record['count']}"
        case "FourStopOffered":
            return f"four-stop offered to {seats(record['seats'])}"
        case "EightCutReturnOffered":
            fours = " or a pair of 4s" if record.get("four_stop") else ""
            return f"eight-cut return offered to {seats(record['seats'])} (8s{fours})"
        case "PilePicked":
            taken = cards(record, writing=writing)
            to = f" for seat {record['to']}" if record["to"] != seat else ""
            why_pick = words(record["reason"])
            return f"seat {seat} takes {taken} from the discard pile{to} ({why_pick})"
        case "PickLapsed":
            return f"seat {seat}'s {words(record['reason'])} lapses: no card may be taken"
        case "CardChosen":
            chosen = cards(record, writing=writing)
            return f"seat {seat} chooses {chosen} to pass on (king pastor)"
        case "RanksBombed":
            return f"seat {seat} bombs {' '.join(record['ranks'])}"
        case "CardsDiscarded":
            return f"seat {seat} discards {cards(record, writing=writing)}{why}"
        case "PlayerFinished" | "PlayerFell":
            return _finished(record, players, writing)
        case "FieldFlushed":
            return f"{words(record['reason'])}: field flushed, seat {record['leader']} leads"
        case "TurnMoved" | "MatchSealed":
            return None  # who is next shows in the lines around it; a seal is no game fact
        case "GameEnded":
            order = sorted(range(len(record["places"])), key=lambda s: record["places"][s])
            ranked = ", ".join(f"{ordinal(record['places'][s])} seat {s}" for s in order)
            return f"game over: {ranked}" + (" (gekokujo)" if record.get("gekokujo") else "")
        case "MatchEnded":
            return f"match over; blind cards: {cards(record, 'blind', writing)}"
        case "TurnTimedOut":
            return f"seat {seat}'s time runs out ({words(record['waiting_for'])})"
        case "SeedRevealed":
            return f"seed revealed: {record['seed']}"
        case _:
            return None  # a type this version does not know


def _dealt(record: dict[str, Any], writing: Writing) -> str:
    sizes = record.get("hand_sizes") or [len(hand or ()) for hand in record["hands"]]
    text = f"== game {record['game_number']} == dealt {'/'.join(map(str, sizes))} cards"
    text += f", seat {record['leader']} leads"
    seating = record.get("seating") or []
    if seating != sorted(seating):
        text += f", seats round the table {' '.join(map(str, seating))}"
    if record.get("revolution"):
        text += ", in revolution"
    hands = record["hands"]
    shown = [f"seat {seat}: {writing.cards(hand)}" for seat, hand in enumerate(hands) if hand]
    if shown:
        text += "\n         " + "\n         ".join(shown)
    for name in ("blind", "unused"):
        if record.get(name):
            text += f"\n         {name}: {writing.cards(record[name])}"
    return text


def _finished(record: dict[str, Any], players: int, writing: Writing) -> str:
    seat, number = record["seat"], record["place"]
    if record["type"] == "PlayerFell":
        cause = words(record.get("cause") or "miyako_ochi")
        text = f"seat {seat} falls to {place(seat, number, players)}: {cause}"
    else:
        text = f"seat {seat} finishes {place(seat, number, players)}"
        if record.get("forbidden"):
            text += ", forbidden finish"
        if record.get("cause") not in (None, "play"):
            text += f" ({words(record['cause'])})"
    if record.get("leftover") or record.get("leftover_count"):
        text += f", keeping {cards(record, 'leftover', writing)} out of play"
    return text
