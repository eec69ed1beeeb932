"""``decide(match, command) -> events | Refusal``: a match's life, composed with the
rules. Create, seat, start, abandon and seal are its own; a seat's command and a deal go to
the rules' ``decide``; a decision that ends a game deals the next, and one that
ends the match reveals the seed, when the command brings the seed.

Pure: no I/O, clock or randomness (seeds, commitments and seals come in the
command). The service decides with it, and the auditor replays a log through it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import assert_never

from ..rules import Deal, Folded, MatchState, Refusal, RuleSetError, decide_and_fold, rule_set
from ..rules.commands import SeatCommand
from ..rules.legal import timeout_action
from ..rules.refusals import Refused
from ..rules.vocabulary import Phase, RefusalCode
from .commands import (
    AbandonMatch,
    Act,
    Create,
    DealGame,
    Join,
    MatchCommand,
    Reveal,
    Seal,
    Start,
    TimeOut,
)
from .events import (
    AbandonReason,
    BotKind,
    MatchAbandoned,
    MatchCreated,
    MatchEvent,
    MatchSealed,
    MatchStarted,
    SeatJoined,
    SeedRevealed,
    TurnTimedOut,
    bot_name,
)
from .refusals import MatchRefusalCode
from .shuffle import commitment, game_deal
from .state import Match

MIN_PLAYERS, MAX_PLAYERS = 2, 5
MAX_BOT_PAUSE_MS = 10_000  # enough to follow a bot's play, too little to stall a table
MAX_ABANDON_DETAIL = 200  # characters of the service's words on an abandonment

MatchDecision = list[MatchEvent] | Refusal


@dataclass(frozen=True, slots=True)
class Evolved:
    """What a command caused, and the game after it when the decider knows it: an
    action whose events are the rules' alone, nothing dealt or revealed after them by
    chance (``game``; None: fold the events to know)."""

    events: list[MatchEvent]
    game: MatchState | None = None


def decide(match: Match | None, command: MatchCommand) -> MatchDecision:
    """The events ``command`` causes, or the Refusal of the first rule it breaks."""
    decided = decide_and_evolve(match, command)
    return decided if isinstance(decided, Refusal) else decided.events


def decide_and_evolve(match: Match | None, command: MatchCommand) -> Evolved | Refusal:
    """``decide``, with the game after an action's events when the rules' own fold
    gives it, so that a caller that folds what it decided need not fold it again."""
    try:
        return _decide(match, command)
    except Refused as refused:
        return refused.refusal


def _decide(match: Match | None, command: MatchCommand) -> Evolved:
    if isinstance(command, Create):
        return Evolved(_create(match, command))
    if match is None:
        raise Refused(MatchRefusalCode.NOT_FOUND, "no such match")
    match command:
        case Join():
            _not_abandoned(match)
            return Evolved(_join(match, command))
        case Start():
            _not_abandoned(match)
            return Evolved(_start(match, command))
        case Seal():
            return Evolved(_seal(match, command))
        case AbandonMatch():
            _not_ended(match)
            return Evolved(_abandon(match, command))
        case Reveal() if match.abandoned:
            _not_ended(match)
            return Evolved([_reveal(command.seed)])
        case Act() | TimeOut() | DealGame() | Reveal():
            if not match.started:
                raise Refused(MatchRefusalCode.NOT_STARTED, "the match has not started")
            _not_ended(match)
            _not_abandoned(match)
            return _play(match, command)
        case _:
            assert_never(command)


# -- setting up -----------------------------------------------------------------


def _create(match: Match | None, command: Create) -> list[MatchEvent]:
    if match is not None:
        raise Refused(RefusalCode.BAD_REQUEST, "the match exists already")
    players = command.players
    _require(_is_int(players) and MIN_PLAYERS <= players <= MAX_PLAYERS, "a match has 2 to 5 seats")
    _require(isinstance(command.preset, str), "a match names its rule set's preset")
    _require(isinstance(command.options, dict), "the options are not a mapping")
    try:
        rules = rule_set(command.preset, command.options)
    except RuleSetError as error:
        raise Refused(RefusalCode.BAD_REQUEST, str(error)) from None
    for flag in ("open_seats", "auto_start", "invites", "rated", "lobby"):
        _require(isinstance(getattr(command, flag), bool), f"{flag} is not true or false")
    for name in ("turn_ms", "spectator_delay_ms", "bot_pause_ms"):
        value = getattr(command, name)
        _require(_is_int(value) and value >= 0, f"{name} is not a whole number ≥ 0")
    _require(
        command.bot_pause_ms <= MAX_BOT_PAUSE_MS,
        f"a bot pauses 0 to {MAX_BOT_PAUSE_MS / 1000:g} s",
    )
    _require(
        _is_commitment(command.seed_commitment, empty=True),
        "the seed commitment is not a sha256 in hex",
    )
    _require(len(command.client_seeds) <= players, f"at most one client seed per seat ({players})")
    bots: dict[int, BotKind] = {}
    for seat, kind in command.bots:
        _require(_is_int(seat) and 0 <= seat < players, f"no seat {seat} for a bot")
        bots[seat] = _bot_kind(kind)
    open_seats = command.open_seats
    _require(
        not command.rated or open_seats or len(bots) == players,
        "a rated match's seats are open (each taken by a registered player) or bots'",
    )
    events: list[MatchEvent] = [
        MatchCreated(
            command.match_id,
            rules.preset,
            rules.options(),
            players,
            open_seats,
            command.turn_ms,
            command.spectator_delay_ms,
            command.bot_pause_ms,
            command.auto_start and open_seats,
            seed_commitment=command.seed_commitment,
            invites=command.invites and open_seats,
            rated=command.rated,
            # listed for anyone: never with invites, which keep seats to who holds one
            lobby=command.lobby and open_seats and not command.invites,
        )
    ]
    seeds = command.client_seeds
    for seat in range(players):
        bot = bots.get(seat)
        if bot is not None:
            events.append(SeatJoined(seat, bot_name(bot, seat), "", bot))
        elif not open_seats:
            events.append(
                SeatJoined(seat, f"seat {seat}", seeds[seat].hex() if seat < len(seeds) else "")
            )
    return events


def _join(match: Match, command: Join) -> list[MatchEvent]:
    seat, bot = command.seat, _bot_kind(command.bot) if command.bot else None
    if bot is not None and command.client_seed:
        raise Refused(RefusalCode.BAD_REQUEST, "a bot's seat takes no client seed")
    if seat is None and bot is None and match.invites:
        raise Refused(
            MatchRefusalCode.PERMISSION_DENIED, "this table's seats are taken with an invite"
        )
    if seat is not None and not (_is_int(seat) and 0 <= seat < match.players and match.open_seats):
        raise Refused(RefusalCode.BAD_REQUEST, f"no open seat {seat} in this match")
    free = match.seats_free
    if seat is not None and seat not in free:
        raise Refused(MatchRefusalCode.SEAT_TAKEN, f"seat {seat} is taken")
    if not match.open_seats or not free:
        raise Refused(MatchRefusalCode.SEATS_FULL, "no free seat in this match")
    if match.started:
        raise Refused(MatchRefusalCode.ALREADY_STARTED, "the match has started")
    if seat is None:
        seat = free[0]
    if bot is not None:
        return [SeatJoined(seat, bot_name(bot, seat), "", bot)]
    if match.rated and not command.player:
        raise Refused(
            MatchRefusalCode.REGISTRATION_REQUIRED, "a rated match seats registered players only"
        )
    name = command.name.strip() or f"seat {seat}"
    return [SeatJoined(seat, name, command.client_seed.hex(), player=command.player)]


def _start(match: Match, command: Start) -> list[MatchEvent]:
    if match.started:
        raise Refused(MatchRefusalCode.ALREADY_STARTED, "the match has started")
    if match.seats_free:
        raise Refused(MatchRefusalCode.NOT_STARTED, "seats are still free")
    committed = command.seed_commitment
    _require(_is_commitment(committed), "the seed commitment is not a sha256 in hex")
    _require(isinstance(command.shuffle_version, str), "no shuffle version")
    if command.seed and commitment(command.seed) != committed:
        raise Refused(RefusalCode.BAD_REQUEST, "the seed is not the one committed to")
    events: list[MatchEvent] = [
        MatchStarted(committed, command.shuffle_version, match.client_seeds)
    ]
    if command.seed:
        events += _rules(match.game, _deal(match, command.seed, 1)).events
    return events


def _not_ended(match: Match) -> None:
    if match.sealed:
        raise Refused(RefusalCode.GAME_OVER, "the match is sealed: nothing comes after MatchSealed")
    if match.seed:
        raise Refused(
            RefusalCode.GAME_OVER, "the match is over: only its seal comes after SeedRevealed"
        )


def _not_abandoned(match: Match) -> None:
    if match.abandoned:
        raise Refused(RefusalCode.GAME_OVER, f"the match was abandoned ({match.abandoned})")


def _abandon(match: Match, command: AbandonMatch) -> list[MatchEvent]:
    _not_abandoned(match)
    if match.game.phase == Phase.MATCH_OVER:
        raise Refused(RefusalCode.GAME_OVER, "the match is over: its seed is revealed next")
    try:
        reason = AbandonReason(command.reason)
    except ValueError:
        raise Refused(RefusalCode.BAD_REQUEST, f"no abandon reason {command.reason!r}") from None
    _require(_is_int(command.last_seq) and command.last_seq >= 0, "last_seq is not a seq")
    _require(
        isinstance(command.detail, str) and len(command.detail) <= MAX_ABANDON_DETAIL,
        f"an abandonment's detail is at most {MAX_ABANDON_DETAIL} characters",
    )
    abandoned = MatchAbandoned(reason, command.last_seq, command.detail)
    return [abandoned, _reveal(command.seed)] if command.seed else [abandoned]


def _reveal(seed: bytes) -> SeedRevealed:
    if not seed:
        raise Refused(RefusalCode.BAD_REQUEST, "no seed to reveal")
    return SeedRevealed(seed.hex())


def _seal(match: Match, command: Seal) -> list[MatchEvent]:
    if match.sealed:
        raise Refused(
            RefusalCode.WRONG_ACTION, "the match is sealed: nothing comes after MatchSealed"
        )
    if not match.over:
        raise Refused(RefusalCode.WRONG_ACTION, "the match is not over")
    if not match.seed:
        raise Refused(RefusalCode.WRONG_ACTION, "the seed is not revealed yet")
    # what the seal signs is the seal check's to judge, not the decider's
    return [MatchSealed(command.seal)]


# -- playing --------------------------------------------------------------------


def _play(match: Match, command: Act | TimeOut | DealGame | Reveal) -> Evolved:
    game = match.game
    match command:
        case Act(seat_command, seed):
            decided = _rules(game, seat_command)
            events = _then_chance(match, decided, seed)
            # the rules' fold is the game after, unless chance dealt or revealed after it
            return Evolved(events, decided.state if len(events) == len(decided.events) else None)
        case TimeOut(seed):
            if not match.turn_ms:
                raise Refused(RefusalCode.WRONG_ACTION, "the match has no turn timer")
            if game.phase != Phase.IN_GAME:
                raise Refused(RefusalCode.WRONG_ACTION, "no game is in play")
            action, waiting = timeout_action(game), game.waiting_for
            if action is None or waiting is None:
                raise Refused(RefusalCode.WRONG_ACTION, "no seat is to act")
            timed_out = TurnTimedOut(action.seat, waiting)
            return Evolved([timed_out, *_then_chance(match, _rules(game, action), seed)])
        case DealGame(deal):
            return Evolved([*_rules(game, deal).events])
        case Reveal(seed):
            if game.phase != Phase.MATCH_OVER:
                raise Refused(RefusalCode.WRONG_ACTION, "the match is not over")
            return Evolved([_reveal(seed)])
        case _:
            assert_never(command)


def _then_chance(match: Match, decided: Folded, seed: bytes) -> list[MatchEvent]:
    """The rules' events, then what chance does after them when the seed is known:
    the next game's deal once a game ends, the seed's reveal once the match ends."""
    events, after = decided.events, decided.state
    if not seed:
        return [*events]
    if after.phase == Phase.GAME_OVER:
        return [*events, *_rules(after, _deal(match, seed, after.game_number + 1)).events]
    if after.phase == Phase.MATCH_OVER:
        return [*events, SeedRevealed(seed.hex())]
    return [*events]


def _rules(game: MatchState, command: SeatCommand | Deal) -> Folded:
    """What the rules decide, and the game after it (the decider's own fold)."""
    decided = decide_and_fold(game, command)
    if isinstance(decided, Refusal):
        raise Refused(decided.code, decided.message)
    return decided


def _deal(match: Match, seed: bytes, game_number: int) -> Deal:
    return game_deal(match.rules, match.players, seed, game_number, match.client_seeds)


# -- checks -----------------------------------------------------------------------


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise Refused(RefusalCode.BAD_REQUEST, message)


def _bot_kind(kind: str) -> BotKind:
    try:
        return BotKind(kind)
    except ValueError:
        raise Refused(RefusalCode.BAD_REQUEST, f"no bot {kind!r}") from None


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_commitment(value: object, empty: bool = False) -> bool:
    """A sha256 in lowercase hex (``empty``: or none, as logs from before the
    commitment moved into MatchCreated have)."""
    if not isinstance(value, str):
        return False
    if not value:
        return empty
    return len(value) == 64 and all(char in "0123456789abcdef" for char in value)
