"""The legality check: replay the log through the match decider
(``service.match.decide``, the rules composed within it), as the service decides.

Events are facts, not commands, so the command behind each decision is read off
the first event recorded for it (a play off ``CardsPlayed``, a timed-out turn off
``TurnTimedOut``, a seat off ``SeatJoined``, a deal off the dealt hands); the
decider must accept it and give exactly the events recorded next. No seed is
needed: a deal is replayed from a deck that deals the recorded hands (which deck
the seed gave is the seed commitment check's business), so a match still being
played can be checked too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..match import (
    AbandonMatch,
    Act,
    Create,
    DealGame,
    Join,
    Match,
    MatchAbandoned,
    MatchCommand,
    MatchCreated,
    MatchEvent,
    MatchSealed,
    MatchStarted,
    Reveal,
    Seal,
    SeatJoined,
    SeedRevealed,
    Start,
    TimeOut,
    TurnTimedOut,
    decide,
    fold,
    stream_of,
)
from ..rules import Deal, Refusal, SeatCommand
from ..rules.events import (
    CardChosen,
    CardsDiscarded,
    CardsGiven,
    CardsPlayed,
    Event,
    GameDealt,
    Passed,
    PilePicked,
    RanksBombed,
)
from ..rules.notation import Written, read
from ..rules.records import to_record
from ..rules.vocabulary import Action, DiscardReason, Phase
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


# the verb of the seat action each event can begin; the event's record (its card codes,
# joker readings, ranks) is that action's notation, read back by rules.notation
_BEGUN_BY: dict[type, Action] = {
    CardsPlayed: Action.PLAY,
    Passed: Action.PASS,
    CardsGiven: Action.GIVE,
    CardsDiscarded: Action.DISCARD,
    RanksBombed: Action.BOMB,
    PilePicked: Action.PICK,
    CardChosen: Action.GIVE,  # king pastor's choice
}
# the actions whose ``reason`` is the command's own (a service note), not the event's
_NOTED = (Action.PLAY, Action.PASS)


def command_of(event: MatchEvent, record: Mapping[str, Any] | None = None) -> SeatCommand | None:
    """The seat command a recorded action begins with (None: no action begins so),
    read with the commands' one notation from the event's ``record`` (as stored: it
    decoded to ``event``; by default the event's own record)."""
    if not isinstance(event, Event):
        return None  # a match event (a join, a deal, a seal…) begins no seat action
    action = _BEGUN_BY.get(type(event))
    if action is None or (
        isinstance(event, CardsDiscarded) and event.reason is not DiscardReason.TEN_DISCARD
    ):
        return None
    if record is None:
        record = to_record(event)
    notation = Written(
        action,
        tuple(record.get("cards", ())),
        tuple(record.get("jokers_as", ())),
        tuple(record.get("ranks", ())),
        record.get("reason", "") if action in _NOTED else "",
    )
    return read(record["seat"], notation)


# what a refused command was, in a reason
_REFUSED = {
    Create: "not a match the service creates",
    Join: "not a seat the service gives",
    Start: "not a start the service makes",
    Act: "illegal action",
    TimeOut: "illegal timed-out action",
    DealGame: "not a deal of the rules",
    AbandonMatch: "not an abandonment the service makes",
    Reveal: "not a reveal the service makes",
    Seal: "not a seal the service appends",
}


class _Replay:
    def __init__(self, items: Sequence[Decoded]) -> None:
        self.items = items
        self.next = 0  # index of the next event to account for
        self.match: Match | None = None
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
            except Exception as error:  # a tampered value the decider chokes on
                raise _Illegal(item.seq, f"cannot replay {item.stored.type!r}: {error!r}") from None
        self._finish()

    def _step(self, item: Decoded) -> None:
        event = item.event
        if event is None:
            raise _Illegal(item.seq, item.error)
        command = self._command(item, event)
        decision = decide(self.match, command)
        if isinstance(decision, Refusal):
            if decision.code == "wrong_action":  # the match waits for another kind of step
                reason = f"{item.stored.type} does not begin an action: {decision.message}"
            else:
                reason = f"{_REFUSED[type(command)]}: {decision.code}: {decision.message}"
            raise _Illegal(item.seq, reason)
        self._expect(decision)
        self.match = fold(self.match, decision)
        self.next += len(decision)
        if isinstance(command, DealGame):
            self.games += 1
        elif isinstance(command, Act):
            self.actions += 1
        elif isinstance(command, TimeOut):
            self.timeouts += 1

    def _expect(self, decision: Sequence[MatchEvent]) -> None:
        """The events recorded from the next one on must be ``decision``, in order."""
        for offset, expected in enumerate(decision):
            index = self.next + offset
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

    def _end_seq(self) -> int:
        return self.items[-1].seq + 1

    # -- the command behind an event ------------------------------------------

    def _command(self, item: Decoded, event: MatchEvent) -> MatchCommand:
        seq, match = item.seq, self.match
        if match is None:
            if not isinstance(event, MatchCreated):
                raise _Illegal(seq, f"the log begins with {item.stored.type}, not MatchCreated")
            stream = item.stored.stream
            _require(
                isinstance(event.match_id, str) and stream == stream_of(event.match_id),
                seq,
                f"MatchCreated is for match {event.match_id!r}, but the log is stream {stream!r}",
            )
            return self._create(event)
        if isinstance(event, MatchCreated):
            raise _Illegal(seq, "a second MatchCreated")
        if isinstance(event, SeatJoined):
            # the player id is the service's word (it checked the key): taken as recorded
            return Join(
                event.name,
                _bytes(event.client_seed, seq, "client seed"),
                event.seat,
                event.bot or "",
                event.player,
            )
        if isinstance(event, MatchStarted):
            return Start(event.seed_commitment, shuffle_version=event.shuffle_version)
        if isinstance(event, TurnTimedOut):
            return TimeOut()
        if isinstance(event, GameDealt):
            return DealGame(self._deal(seq, match, event))
        if isinstance(event, MatchAbandoned):
            _require(
                event.last_seq == seq - 1,
                seq,
                f"MatchAbandoned names seq {event.last_seq!r} as the last before it, not {seq - 1}",
            )
            return AbandonMatch(event.reason, event.last_seq, event.detail)
        if isinstance(event, SeedRevealed):
            return Reveal(_bytes(event.seed, seq, "seed"))
        if isinstance(event, MatchSealed):
            return Seal(event.seal)  # what it signs is the seal check's to judge
        command = command_of(event, item.stored.data)
        if command is None:
            game = match.game
            raise _Illegal(
                seq,
                f"{item.stored.type} does not begin an action: "
                f"the game waits for {game.waiting_for} from seat {game.turn}",
            )
        return Act(command)

    def _create(self, event: MatchCreated) -> Create:
        """MatchCreated's command, with the seats it takes at once: every seat of a
        closed match (the SeatJoined that follow, one per seat in seat order), the
        service's bots of an open one (the bots' SeatJoined that follow, in seat order;
        a later bot seated the same way makes the same events)."""
        players, options = event.players, event.options
        joined: list[SeatJoined] = []
        for item in self.items[self.next + 1 :]:
            seat = item.event
            if not isinstance(seat, SeatJoined) or (event.open_seats and not seat.bot):
                break
            if isinstance(players, int) and len(joined) >= players:
                break
            if event.open_seats and joined and not _after(seat.seat, joined[-1].seat):
                break
            joined.append(seat)
        if event.open_seats:
            seats = [(seat.seat, seat.bot or "") for seat in joined]
        else:  # the n-th SeatJoined is seat n's: its recorded number is compared
            seats = [(index, seat.bot) for index, seat in enumerate(joined) if seat.bot]
        seeds = tuple(
            _bytes(seat.client_seed, self.items[self.next + 1 + index].seq, "client seed")
            for index, seat in enumerate(joined)
        )
        return Create(
            event.match_id,
            event.preset,
            # the rule set in full, as MatchCreated records it, over its preset
            {name: value for name, value in options.items() if name != "preset"}
            if isinstance(options, dict)
            else options,
            players,
            event.seed_commitment,
            event.open_seats,
            event.turn_ms,
            event.spectator_delay_ms,
            event.bot_pause_ms,
            event.auto_start,
            event.invites,
            () if event.open_seats else seeds,
            tuple(seats),
            event.rated,
            event.lobby,
        )

    def _deal(self, seq: int, match: Match, event: GameDealt) -> Deal:
        number = match.game.game_number + 1
        deck = deck_of_deal(match.game, event)
        _require(
            deck is not None,
            seq,
            f"game {number}'s hands are not dealt from one deck round the table",
        )
        assert deck is not None
        # the draws come from the seed (the seed commitment check's business);
        # the rules decide which of them this game uses
        return Deal(deck, _seats(event.seating), _seat(event.deal_start), _seats(event.stalemate))

    def _finish(self) -> None:
        """A log may stop anywhere the service stops, never inside one append."""
        match = self.match
        end = self._end_seq()
        if match is not None and match.abandoned:
            _require(
                bool(match.seed),
                end,
                "the log ends before SeedRevealed, written with MatchAbandoned",
            )
            return
        if match is None or not match.started:
            return
        phase, number = match.game.phase, match.game.game_number
        if phase == Phase.BEFORE_DEAL:
            raise _Illegal(end, "the log ends before the first deal, written with MatchStarted")
        if phase == Phase.GAME_OVER:
            raise _Illegal(
                end,
                f"the log ends before the deal of game {number + 1}, "
                f"written with the end of game {number}",
            )
        if phase == Phase.MATCH_OVER and not match.seed:
            raise _Illegal(end, "the log ends before SeedRevealed, written with MatchEnded")


def _require(condition: bool, seq: int, reason: str) -> None:
    if not condition:
        raise _Illegal(seq, reason)


def _bytes(hexed: object, seq: int, what: str) -> bytes:
    """A hex string (empty allowed) as bytes, when it reads back as itself."""
    try:
        value = bytes.fromhex(hexed)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise _Illegal(seq, f"the {what} is not hex") from None
    _require(value.hex() == hexed, seq, f"the {what} is not hex")
    return value


def _after(seat: object, previous: int) -> bool:
    return _is_int(seat) and seat > previous  # type: ignore[operator]


def _seats(value: object) -> tuple[int, ...]:
    return value if isinstance(value, tuple) else ()


def _seat(value: object) -> int:
    return value if _is_int(value) else -1  # type: ignore[return-value]


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
