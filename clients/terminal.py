"""``daifugo play``: a person plays one seat from the terminal against bots."""

from __future__ import annotations

import asyncio
import re
import sys
from collections.abc import Sequence
from typing import Any

from service.rules.commands import Pass, SeatCommand
from service.rules.narration import GLYPHS, describe
from service.rules.notation import written
from service.rules.views import View

from .demo import bot_words, places_in_words, service_target, table_of_bots
from .runner import play_seat
from .sdk import DaifugoClient, Refused, SeatSession, Turn


def describe_action(command: SeatCommand) -> str:
    """A legal action in the rules' notation: ``play 4D 5D JK as 6D``."""
    return str(written(command))


def listed_action(command: SeatCommand) -> str:
    """A legal action as the move list shows it: the notation, then as the hand shows
    it, ``play TD TC  (10♦ 10♣)``; either may be typed back."""
    notation = written(command)
    shown = GLYPHS.cards(notation.cards)
    if notation.jokers_as:
        shown += " as " + GLYPHS.cards(notation.jokers_as)
    return f"{notation}  ({shown})" if shown else str(notation)


_VERBS = {"play", "give", "discard", "pick", "bomb"}
_GLYPH_SUITS = {"♠": "S", "♥": "H", "♦": "D", "♣": "C"}


def _code(word: str) -> str:
    """One card as a person may write it (``TD``, ``td``, ``10♦``, ``10d``, ``joker``) in
    the rules' code; a rank alone (for a bomb) as its code."""
    text = word.upper()
    if text in ("JK", "JOKER"):
        return "JK"
    for glyph, letter in _GLYPH_SUITS.items():
        text = text.replace(glyph, letter)
    return text.replace("10", "T")


def read_move(answer: str, actions: Sequence[SeatCommand]) -> SeatCommand | str:
    """The listed action a person's answer names: its number, ``p``/``pass``, or the move
    as written in either notation (``TD TC``, ``play 10♦ 10♣``, ``JK as 6D``); else why not."""
    words = answer.split()
    if not words:
        return "type a move"
    if len(words) == 1 and words[0].isdigit():
        number = int(words[0])
        return actions[number] if number < len(actions) else "no move has that number"
    if words[0].lower() in ("p", "pass"):
        passing = next((action for action in actions if isinstance(action, Pass)), None)
        return passing if passing is not None else "you cannot pass now"
    verb = words.pop(0).lower() if words[0].lower() in _VERBS else None
    readings: tuple[str, ...] | None = None
    if "as" in (word.lower() for word in words):
        at = [word.lower() for word in words].index("as")
        readings = tuple(_code(word) for word in words[at + 1 :])
        words = words[:at]
    named = sorted(_code(word) for word in words)
    found = []
    for action in actions:
        notation = written(action)
        if verb is not None and notation.action != verb:
            continue
        if sorted(notation.cards or notation.ranks) != named or not named:
            continue
        if readings is not None and notation.jokers_as != readings:
            continue
        found.append(action)
    if len(found) == 1:
        return found[0]
    if found:
        return "the joker can stand for several cards here: add 'as' and the card it stands for"
    return "not one of the listed moves"


# the bots' names at the table (seat 1 on); each is said with its kind once, at the start
BOT_NAMES = ("Aoi", "Ren", "Mei", "Sora")
_SEAT = re.compile(r"\b[Ss]eat ([0-4])\b")


_YOU_VERB = re.compile(r"\byou (\w+)")


def by_name(text: str, names: Sequence[str]) -> str:
    """The rules' narration says "seat 2": a person reads the name sitting there (and
    "you pass", not "you passes", at their own seat)."""
    return _YOU_VERB.sub(_agree, _SEAT.sub(lambda found: names[int(found[1])], text))


def _agree(found: re.Match[str]) -> str:
    verb = found[1]
    if verb == "is":
        return "you are"
    if re.search(r"(ss|sh|ch|x)es$", verb):
        return f"you {verb[:-2]}"
    if verb.endswith("s") and not verb.endswith("ss"):
        return f"you {verb[:-1]}"
    return found[0]


def narrate(
    events: Sequence[dict[str, Any]], players: int, names: Sequence[str] | None = None
) -> list[str]:
    """An action's events as a person reads them: what the seat did, then what it
    brought about on the same line ("Mei plays 7♠ 7♥ — suit lock: ♠ ♥"); a deal or
    the end of a game on lines of their own. ``names``: who sits at each seat."""
    lines: list[str] = []
    joined = False  # whether the last line takes the effects that follow
    for event in events:
        said = describe(event, players, GLYPHS)
        if said is None:
            continue
        said = said[0].upper() + said[1:]
        if event["type"] in _ACTIONS:
            lines.append(said)
            joined = True
        elif joined and event["type"] not in _OWN_LINE:
            lines[-1] += f" — {said[0].lower()}{said[1:]}"
        else:
            lines.append(said)
            joined = False
    if names is None:
        return lines
    named = [by_name(line, names) for line in lines]  # after the joins: names keep their case
    return [line[0].upper() + line[1:] for line in named]


def describe_view(view: View, names: Sequence[str]) -> str:
    others = ", ".join(
        f"{names[seat]}: {size} cards"
        for seat, size in enumerate(view.hand_sizes)
        if seat != view.seat
    )
    turn = names[view.turn] if view.turn is not None else "nobody"
    lines = [
        f"game {view.game_number}/{view.games_per_set}, turn: {turn}"
        f" ({view.waiting_for}){', REVOLUTION' if view.revolution else ''}",
        f"field: {GLYPHS.cards(view.field) if view.field else '(empty)'}"
        f"{'  suit lock ' + ''.join(map(GLYPHS.suit, view.suit_lock)) if view.suit_lock else ''}"
        f"{'  number lock' if view.number_lock else ''}",
        f"others: {others}",
        f"your hand: {GLYPHS.cards(view.hand or ())}",
    ]
    return "\n".join(lines)


async def _ask(prompt: str) -> str:
    return (await asyncio.to_thread(input, prompt)).strip()


# what a seat does; the effects after one are said on its line
_ACTIONS = {"CardsPlayed", "Passed", "CardsGiven", "CardsDiscarded", "RanksBombed", "PilePicked",
            "CardChosen"}  # fmt: skip
_OWN_LINE = {"GameDealt", "GameEnded", "MatchEnded", "SeedRevealed", "ExchangeStarted"}


async def _human_turns(session: SeatSession, names: Sequence[str]) -> None:
    """Show what happens as it happens; ask for a move whenever the seat is to act."""
    first = await session.turn()
    players = first.view.players
    done = await _take_turns(session, first, names) if first.actions else first.version
    async for update in session.updates(first.version + 1):
        for line in narrate(update.events, players, names):
            print(f"  {line}")
        if any(event["type"] == "SeedRevealed" for event in update.events):  # (the seal may follow)
            view = (await session.turn()).view
            print("match over. Places by game:")
            for line in places_in_words([tuple(game) for game in view.results], names):
                print(f"  {line}")
            return
        if update.turn is not None and update.turn.version > done:
            done = await _take_turns(session, update.turn, names)


async def _take_turns(session: SeatSession, turn: Turn, names: Sequence[str]) -> int:
    """Ask until a move is taken (and again while the seat stays to act); the
    version after the last move."""
    while turn.actions:
        print("\n" + describe_view(turn.view, names))
        for number, action in enumerate(turn.actions):
            print(f"  {number:>3}: {listed_action(action)}")
        chosen = read_move(
            await _ask("your move (its number, its cards as TD TC or 10♦ 10♣, or p to pass): "),
            turn.actions,
        )
        if isinstance(chosen, str):
            print(f"  {chosen}")
            continue
        try:
            after = (await session.act(chosen, include_turn=True)).turn
            assert after is not None  # asked for
            turn = after
        except Refused as refused:
            print(f"  refused: {refused.code} ({refused.message})")
            turn = await session.turn()
    return turn.version


async def play_in_terminal(
    grpc_target: str | None, preset: str, players: int, games: int, name: str = ""
) -> int:
    if not sys.stdin.isatty():
        print("daifugo play needs a terminal", file=sys.stderr)
        return 2
    bots = table_of_bots(preset, players, seed=1)[1:]
    # the table's names: the others see yours; the narration says "you"
    seated = [name.strip() or "you", *BOT_NAMES[: players - 1]]
    async with service_target(grpc_target) as target, DaifugoClient(target) as client:
        created = await client.create_match(preset, players, games_per_set=games, open_seats=True)
        seats = [await client.join(created.match_id, someone) for someone in seated]
        assert [seat.seat for seat in seats] == list(range(players))  # joined in turn
        await client.host(created.match_id, created.host_token).start()
        names = ["you", *seated[1:]]
        others = ", ".join(
            f"{bot_name} ({bot_words(bot)})" for bot_name, bot in zip(names[1:], bots, strict=True)
        )
        print(f"match {created.match_id} ({preset}, {players} players): you are seat 0; {others}")
        await asyncio.gather(
            _human_turns(seats[0], names),
            *(play_seat(seat, bot) for seat, bot in zip(seats[1:], bots, strict=True)),
        )
    return 0
