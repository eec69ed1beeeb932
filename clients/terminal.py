"""``daifugo play``: a person plays one seat from the terminal against bots."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Sequence
from typing import Any

from service.rules.commands import Pass, SeatCommand
from service.rules.narration import GLYPHS, describe
from service.rules.notation import written
from service.rules.views import View

from .demo import service_target, table_of_bots
from .runner import play_seat
from .sdk import DaifugoClient, Refused, SeatSession, Turn


def describe_action(command: SeatCommand) -> str:
    """A legal action in the rules' notation: ``play 4D 5D JK as 6D``."""
    return str(written(command))


def narrate(events: Sequence[dict[str, Any]], players: int) -> list[str]:
    """An action's events as a person reads them: what the seat did, then what it
    brought about on the same line ("Seat 2 plays 7♠ 7♥ — suit lock: ♠ ♥"); a deal or
    the end of a game on lines of their own."""
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
    return lines


def describe_view(view: View) -> str:
    others = ", ".join(
        f"seat {seat}: {size} cards"
        for seat, size in enumerate(view.hand_sizes)
        if seat != view.seat
    )
    lines = [
        f"game {view.game_number}/{view.games_per_set}, turn: seat {view.turn}"
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


async def _human_turns(session: SeatSession) -> None:
    """Show what happens as it happens; ask for a move whenever the seat is to act."""
    first = await session.turn()
    players = first.view.players
    done = await _take_turns(session, first) if first.actions else first.version
    async for update in session.updates(first.version + 1):
        for line in narrate(update.events, players):
            print(f"  {line}")
        if any(event["type"] == "SeedRevealed" for event in update.events):  # (the seal may follow)
            view = (await session.turn()).view
            print(f"match over; places by game: {list(view.results)}")
            return
        if update.turn is not None and update.turn.version > done:
            done = await _take_turns(session, update.turn)


async def _take_turns(session: SeatSession, turn: Turn) -> int:
    """Ask until a move is taken (and again while the seat stays to act); the
    version after the last move."""
    while turn.actions:
        print("\n" + describe_view(turn.view))
        for number, action in enumerate(turn.actions):
            print(f"  {number:>3}: {describe_action(action)}")
        chosen = _pick(await _ask("your move (number, or p to pass): "), turn.actions)
        if chosen is None:
            print("  not one of the listed moves")
            continue
        try:
            after = (await session.act(chosen, include_turn=True)).turn
            assert after is not None  # asked for
            turn = after
        except Refused as refused:
            print(f"  refused: {refused.code} ({refused.message})")
            turn = await session.turn()
    return turn.version


def _pick(answer: str, actions: list[SeatCommand]) -> SeatCommand | None:
    if answer.lower() == "p":
        return next((a for a in actions if isinstance(a, Pass)), None)
    if answer.isdigit() and int(answer) < len(actions):
        return actions[int(answer)]
    return None


async def play_in_terminal(grpc_target: str | None, preset: str, players: int, games: int) -> int:
    if not sys.stdin.isatty():
        print("daifugo play needs a terminal", file=sys.stderr)
        return 2
    async with service_target(grpc_target) as target, DaifugoClient(target) as client:
        created = await client.create_match(preset, players, games_per_set=games)
        seats = [client.seat(created.match_id, token) for token in created.seat_tokens]
        await client.host(created.match_id, created.host_token).start()
        bots = table_of_bots(preset, players, seed=1)[1:]
        await seats[0].view()
        print(f"match {created.match_id}: you are seat 0 ({preset}, {players} players)")
        await asyncio.gather(
            _human_turns(seats[0]),
            *(play_seat(seat, bot) for seat, bot in zip(seats[1:], bots, strict=True)),
        )
    return 0
