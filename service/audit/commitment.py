"""The seed commitment check: the seed revealed at the end is the one committed
to in the first event (MatchCreated, before any client seed exists), MatchStarted
agrees with it, and every game was dealt from it exactly as the service deals
(``game_deal``, then the rules' ``Deal``)."""

from __future__ import annotations

from collections.abc import Sequence

from ..match import MatchAbandoned, MatchCreated, MatchStarted, SeedRevealed
from ..match.evolve import created
from ..match.shuffle import SHUFFLE_VERSION, commitment, game_deal
from ..rules import Refusal, decide, evolve
from ..rules.events import EVENT_TYPES, GameDealt
from .decoding import Decoded
from .report import CheckResult, failed, passed

NAME = "seed_commitment"


def check_seed_commitment(events: Sequence[Decoded]) -> CheckResult:
    if not events:
        return failed(NAME, None, "no events")
    revealed = _first(events, SeedRevealed)[1]
    if revealed is None:
        return failed(NAME, None, "match not over: the seed is not revealed yet")
    first = events[0]
    if not isinstance(first.event, MatchCreated):
        return failed(NAME, first.seq, "the log does not begin with MatchCreated")
    started_at, started = _first(events, MatchStarted)
    if started is None:
        if _first(events, MatchAbandoned)[1] is not None:
            return _unstarted(first, revealed)  # abandoned before it started: nothing dealt
        return failed(NAME, revealed.seq, "a seed is revealed, but no MatchStarted committed to it")
    start = started.event
    assert isinstance(start, MatchStarted)
    reveal = revealed.event
    assert isinstance(reveal, SeedRevealed)
    committed = first.event.seed_commitment
    if not committed:
        return failed(NAME, first.seq, "MatchCreated commits to no seed")
    if start.seed_commitment and start.seed_commitment != committed:
        return failed(
            NAME, started.seq, f"MatchStarted names another commitment than seq {first.seq}"
        )
    if start.shuffle_version != SHUFFLE_VERSION:
        return failed(
            NAME,
            started.seq,
            f"shuffle version {start.shuffle_version!r} is not the one this auditor knows "
            f"({SHUFFLE_VERSION!r})",
        )
    seed = _bytes(reveal.seed)
    if seed is None:
        return failed(NAME, revealed.seq, "the revealed seed is not hex")
    if commitment(seed) != committed:
        return failed(
            NAME,
            revealed.seq,
            f"sha256 of the revealed seed is not the commitment made at seq {first.seq}",
        )
    client_seeds = start.client_seeds
    if not isinstance(client_seeds, tuple) or any(_bytes(hexed) is None for hexed in client_seeds):
        return failed(NAME, started.seq, "the client seeds are not hex")
    detail = {"commitment": committed, "shuffle_version": SHUFFLE_VERSION}
    try:
        setup = created(first.event)
    except Exception as error:  # a tampered MatchCreated: legality names it
        return failed(NAME, first.seq, f"MatchCreated names no rule set: {error}")
    rules, state = setup.rules, setup.game
    games = 0
    for item in events[started_at + 1 :]:
        event = item.event
        if event is None:
            return failed(NAME, item.seq, f"cannot follow the games past it: {item.error}")
        if type(event).__name__ not in EVENT_TYPES:
            continue
        if isinstance(event, GameDealt):
            games += 1
            number = state.game_number + 1
            # exactly the service's deal: its deck for the game, then the rules
            deal = decide(state, game_deal(rules, state.players, seed, number, client_seeds))
            if isinstance(deal, Refusal):
                return failed(NAME, item.seq, f"the rules deal no game {number} here: {deal}")
            difference = _difference(deal[0], event)
            if difference:
                return failed(
                    NAME,
                    item.seq,
                    f"game {number} is not dealt as the seed deals it: {difference}",
                    games=games,
                    **detail,
                )
        try:
            state = evolve(state, event)  # type: ignore[arg-type]
        except Exception as error:  # a tampered value the rules choke on
            return failed(NAME, item.seq, f"cannot follow the games past it: {error!r}")
    return passed(NAME, games=games, **detail)


def _unstarted(first: Decoded, revealed: Decoded) -> CheckResult:
    """A match abandoned before it started: its seed must be the one committed to."""
    assert isinstance(first.event, MatchCreated) and isinstance(revealed.event, SeedRevealed)
    committed = first.event.seed_commitment
    if not committed:
        return failed(NAME, first.seq, "MatchCreated commits to no seed")
    seed = _bytes(revealed.event.seed)
    if seed is None:
        return failed(NAME, revealed.seq, "the revealed seed is not hex")
    if commitment(seed) != committed:
        return failed(
            NAME,
            revealed.seq,
            f"sha256 of the revealed seed is not the commitment made at seq {first.seq}",
        )
    return passed(NAME, games=0, commitment=committed, shuffle_version=SHUFFLE_VERSION)


def _first(events: Sequence[Decoded], kind: type) -> tuple[int, Decoded | None]:
    """The first event of ``kind`` and its index."""
    for index, item in enumerate(events):
        if isinstance(item.event, kind):
            return index, item
    return -1, None


def _bytes(hexed: object) -> bytes | None:
    if not isinstance(hexed, str):
        return None
    try:
        return bytes.fromhex(hexed)
    except ValueError:
        return None


def _difference(dealt: object, recorded: GameDealt) -> str:
    """How ``recorded`` differs from the deal the seed gives (empty: it does not)."""
    assert isinstance(dealt, GameDealt)
    if recorded.game_number != dealt.game_number:
        return f"it says game {recorded.game_number!r}"
    hands = recorded.hands
    if hands != dealt.hands:
        if not isinstance(hands, tuple) or len(hands) != len(dealt.hands):
            return "the hands are not one per seat"
        seats = [seat for seat, hand in enumerate(hands) if hand != dealt.hands[seat]]
        return f"the hands of seats {', '.join(map(str, seats))} differ"
    if recorded.blind != dealt.blind:
        return "the blind cards differ"
    if recorded.unused != dealt.unused:
        return "the unused cards differ"
    if recorded.seating != dealt.seating:
        return "the seating differs"
    if recorded.deal_start != dealt.deal_start:
        return "the deal starts at another seat"
    if recorded.stalemate != dealt.stalemate:
        return "the stalemate order differs"
    return ""
