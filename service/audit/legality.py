"""The legality check: replay the log through the rules, as the service would
have written it.

Events are facts, not commands, so where the rules take a decision the command
is read off the first event recorded for it (a play off ``CardsPlayed``, a
timed-out turn off ``timeout_action``, a deal off the dealt hands); ``decide``
must accept it and give exactly the events recorded next. Around the rules,
the service's own events must come where the service writes them.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..app.codec import MatchEvent
from ..app.match import Match, created, stream_of
from ..app.match_events import (
    BotKind,
    MatchCreated,
    MatchSealed,
    MatchStarted,
    SeatJoined,
    SeedRevealed,
    TurnTimedOut,
)
from ..rules import (
    Bomb,
    Deal,
    Decision,
    Discard,
    Give,
    MatchState,
    Pass,
    Play,
    Refusal,
    RuleSetError,
    SeatCommand,
    decide,
    fold,
)
from ..rules.events import CardsDiscarded, CardsGiven, CardsPlayed, GameDealt, Passed, RanksBombed
from ..rules.legal import timeout_action
from ..rules.state import BEFORE_DEAL, GAME_OVER, IN_GAME, MATCH_OVER
from .deals import deck_of_deal
from .decoding import Decoded, describe, describe_event, matches
from .report import CheckResult, failed, passed

NAME = "legality"


class _Illegal(Exception):
    def __init__(self, seq: int, reason: str) -> None:
        super().__init__(reason)
        self.seq = seq
        self.reason = reason


def check_legality(events: Sequence[Decoded]) -> CheckResult:
    if not events:
        return failed(NAME, None, "no events")
    replay = _Replay(events)
    try:
        replay.run()
    except _Illegal as illegal:
        return failed(NAME, illegal.seq, illegal.reason, **replay.counts())
    return passed(NAME, **replay.counts())


def command_of(event: MatchEvent) -> SeatCommand | None:
    """The seat command a recorded action begins with (None: no action begins so)."""
    if isinstance(event, CardsPlayed):
        return Play(event.seat, event.cards, event.jokers_as, event.reason)
    if isinstance(event, Passed):
        return Pass(event.seat, event.reason)
    if isinstance(event, CardsGiven):
        return Give(event.seat, event.cards)
    if isinstance(event, CardsDiscarded) and event.reason == "ten_discard":
        return Discard(event.seat, event.cards)
    if isinstance(event, RanksBombed):
        return Bomb(event.seat, event.ranks)
    return None


class _Replay:
    def __init__(self, items: Sequence[Decoded]) -> None:
        self.items = items
        self.next = 0  # index of the next event to account for
        self.setup: Match | None = None
        self.game: MatchState | None = None
        self.names: list[str] = []
        self.client_seeds: list[str] = []
        self.started = False
        self.revealed = False
        self.sealed = False
        self.games = self.actions = self.timeouts = 0

    def counts(self) -> dict[str, int]:
        return {"games": self.games, "actions": self.actions, "timeouts": self.timeouts}

    def run(self) -> None:
        while self.next < len(self.items):
            item = self.items[self.next]
            try:
                self._step(item)
            except _Illegal:
                raise
            except Exception as error:  # a tampered value the rules choke on
                raise _Illegal(item.seq, f"cannot replay {item.stored.type!r}: {error!r}") from None
        self._finish()

    def _end_seq(self) -> int:
        return self.items[-1].seq + 1

    def _step(self, item: Decoded) -> None:
        event = item.event
        if event is None:
            raise _Illegal(item.seq, item.error)
        if self.setup is None:
            self._create(item, event)
        elif self.sealed:
            raise _Illegal(item.seq, f"{item.stored.type} after MatchSealed, the last event")
        elif self.revealed:
            # the seal's record is the seal check's to judge
            _require(
                isinstance(event, MatchSealed),
                item.seq,
                f"{item.stored.type} after SeedRevealed: only the seal comes after it",
            )
            self.sealed = True
            self.next += 1
        elif isinstance(event, MatchCreated):
            raise _Illegal(item.seq, "a second MatchCreated")
        elif not self.started:
            self._seat(item, event)
        else:
            assert self.game is not None
            phase = self.game.phase
            if phase == IN_GAME:
                self._act(item, event)
            elif phase == MATCH_OVER:
                self._reveal(item, event)
            else:
                self._deal(item, event)

    # -- the service's own events ---------------------------------------------

    def _create(self, item: Decoded, event: MatchEvent) -> None:
        seq = item.seq
        if not isinstance(event, MatchCreated):
            raise _Illegal(seq, f"the log begins with {item.stored.type}, not MatchCreated")
        stream = item.stored.stream
        _require(
            isinstance(event.match_id, str) and stream == stream_of(event.match_id),
            seq,
            f"MatchCreated is for match {event.match_id!r}, but the log is stream {stream!r}",
        )
        _require(
            _is_int(event.players) and 2 <= event.players <= 5, seq, "a match has 2 to 5 seats"
        )
        _require(isinstance(event.open_seats, bool), seq, "open_seats is not true or false")
        for name in ("turn_ms", "spectator_delay_ms", "bot_pause_ms"):
            value = getattr(event, name)
            _require(_is_int(value) and value >= 0, seq, f"{name} is not a whole number ≥ 0")
        _require(
            isinstance(event.preset, str) and isinstance(event.options, dict),
            seq,
            "MatchCreated names no rule set",
        )
        try:
            self.setup = created(event, item.stored.at)
        except RuleSetError as error:
            raise _Illegal(seq, f"MatchCreated names no rule set: {error}") from None
        self.game = self.setup.game
        self.names = [""] * event.players
        self.next += 1

    def _seat(self, item: Decoded, event: MatchEvent) -> None:
        seq = item.seq
        free = [seat for seat, name in enumerate(self.names) if not name]
        if isinstance(event, SeatJoined):
            _require(bool(free), seq, "SeatJoined, but every seat is taken")
            # any free seat: a join takes the next one, an invite or a bot names its own
            _require(
                _is_int(event.seat) and event.seat in free,
                seq,
                f"SeatJoined for seat {event.seat!r}, which is not free (free: {free})",
            )
            _require(
                event.bot in ("", *BotKind) and not (event.bot and event.client_seed),
                seq,
                f"SeatJoined with the bot {event.bot!r}, which the service does not seat",
            )
            name = event.name
            _require(
                isinstance(name, str) and bool(name) and name == name.strip()[:40],
                seq,
                f"SeatJoined with the name {name!r}, which the service does not give",
            )
            _require(_is_hex(event.client_seed), seq, "the client seed is not hex")
            self.names[event.seat] = name
            if event.client_seed:
                self.client_seeds.append(event.client_seed)
        elif isinstance(event, MatchStarted):
            _require(not free, seq, f"MatchStarted while seats {free} are free")
            commitment = event.seed_commitment
            _require(
                _is_hex(commitment) and len(commitment) == 64,
                seq,
                "the seed commitment is not a sha256 in hex",
            )
            _require(isinstance(event.shuffle_version, str), seq, "no shuffle version")
            _require(
                event.client_seeds == tuple(self.client_seeds),
                seq,
                "MatchStarted's client seeds are not the seats', in the order they joined",
            )
            self.started = True
        else:
            raise _Illegal(seq, f"{item.stored.type} before MatchStarted")
        self.next += 1

    def _reveal(self, item: Decoded, event: MatchEvent) -> None:
        if not isinstance(event, SeedRevealed):
            raise _Illegal(
                item.seq,
                f"{item.stored.type} where the service reveals the seed (the match is over)",
            )
        _require(bool(event.seed) and _is_hex(event.seed), item.seq, "the seed is not hex")
        self.revealed = True
        self.next += 1

    def _finish(self) -> None:
        """A log may stop anywhere the service stops, never inside one append."""
        if not self.started:
            return
        assert self.game is not None
        phase, number = self.game.phase, self.game.game_number
        end = self._end_seq()
        if phase == BEFORE_DEAL:
            raise _Illegal(end, "the log ends before the first deal, written with MatchStarted")
        if phase == GAME_OVER:
            raise _Illegal(
                end,
                f"the log ends before the deal of game {number + 1}, "
                f"written with the end of game {number}",
            )
        if phase == MATCH_OVER and not self.revealed:
            raise _Illegal(end, "the log ends before SeedRevealed, written with MatchEnded")

    # -- the rules' decisions -------------------------------------------------

    def _deal(self, item: Decoded, event: MatchEvent) -> None:
        assert self.game is not None
        number = self.game.game_number + 1
        if not isinstance(event, GameDealt):
            raise _Illegal(item.seq, f"{item.stored.type} where the service deals game {number}")
        deck = deck_of_deal(self.game, event)
        _require(
            deck is not None,
            item.seq,
            f"game {number}'s hands are not dealt from one deck round the table",
        )
        assert deck is not None
        # the draws come from the seed (the seed commitment check's business);
        # the rules decide which of them this game uses
        deal = Deal(deck, _seats(event.seating), _seat(event.deal_start), _seats(event.stalemate))
        self._apply(decide(self.game, deal), self.next, "not a deal of the rules")
        self.games += 1

    def _act(self, item: Decoded, event: MatchEvent) -> None:
        game = self.game
        assert game is not None and self.setup is not None
        if isinstance(event, TurnTimedOut):
            _require(
                self.setup.turn_ms > 0, item.seq, "a turn timed out in a match with no turn timer"
            )
            command = timeout_action(game)
            _require(command is not None, item.seq, "a turn timed out where no seat may act")
            assert command is not None
            expected = TurnTimedOut(command.seat, game.waiting_for or "")
            _require(
                matches(item.stored, expected),
                item.seq,
                f"recorded {describe(item.stored.type, item.stored.data)}, "
                f"but the turn was {describe_event(expected)}",
            )
            # the service then does exactly what timeout_action gives
            self._apply(decide(game, command), self.next + 1, "illegal timed-out action")
            self.timeouts += 1
            return
        command = command_of(event)
        if command is None:
            raise _Illegal(
                item.seq,
                f"{item.stored.type} does not begin an action: "
                f"the game waits for {game.waiting_for} from seat {game.turn}",
            )
        self._apply(decide(game, command), self.next, "illegal action")
        self.actions += 1

    def _apply(self, decision: Decision, start: int, refused: str) -> None:
        """The events recorded from ``start`` must be ``decision``, in order."""
        assert self.game is not None
        if isinstance(decision, Refusal):
            seq = self.items[start].seq if start < len(self.items) else self._end_seq()
            raise _Illegal(seq, f"{refused}: {decision.code}: {decision.message}")
        for offset, expected in enumerate(decision):
            index = start + offset
            if index >= len(self.items):
                raise _Illegal(
                    self._end_seq(),
                    f"the log ends before {describe_event(expected)}, which the rules give next",
                )
            recorded = self.items[index]
            if recorded.event is None:
                raise _Illegal(recorded.seq, recorded.error)
            if not matches(recorded.stored, expected):
                raise _Illegal(
                    recorded.seq,
                    f"recorded {describe(recorded.stored.type, recorded.stored.data)}, "
                    f"but the rules give {describe_event(expected)}",
                )
        self.game = fold(self.game, decision)
        self.next = start + len(decision)


def _require(condition: bool, seq: int, reason: str) -> None:
    if not condition:
        raise _Illegal(seq, reason)


def _seats(value: object) -> tuple[int, ...]:
    return value if isinstance(value, tuple) else ()


def _seat(value: object) -> int:
    return value if _is_int(value) else -1  # type: ignore[return-value]


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_hex(value: object) -> bool:
    """A hex string (empty allowed), as ``bytes.fromhex`` reads it back."""
    if not isinstance(value, str):
        return False
    try:
        return bytes.fromhex(value).hex() == value
    except ValueError:
        return False
