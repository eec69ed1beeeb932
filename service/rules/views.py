"""What a viewer may see: one function builds a view from the state and one
filters events. Every outward path (gRPC, REST, SSE, the page) goes through them.

A seat sees its own hand, counts of the others and public plays, and the
discard pile with its marked cards (docs/RULES.md §5.1, §5.6 #21), and every
ten-discarded or bombed card (§5.6 #25: face up, in every preset). A spectator
sees no hands. A player who leaves the game holding cards keeps them in their
hand until the next deal, seen by them alone. Blind and unused cards
are seen by nobody until the match ends, when everything is revealed
to everyone. The auditor's view (everything) opens only then; a replay of a
match that has ended shows every card at every step of it (``match_over``).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, fields
from typing import Any, assert_never

from . import events as ev
from . import memo
from .cards import (
    add_cards,
    cards_of,
    format_cards,
    mask_codes,
    mask_of,
    parse_card,
    parse_reading,
    parse_suits,
    suit_letters,
)
from .judging import marked_in_pile
from .melds import Kind, Meld, classify
from .readings import COLORS
from .records import to_record
from .rulesets import CANCELLED_BY_OMEN, RuleSet
from .state import MatchState, Position
from .vocabulary import (
    ORDER,
    Bottom,
    Color,
    ElevenBack,
    Phase,
    ViewerKind,
    WaitingFor,
)


@dataclass(frozen=True, slots=True)
class Viewer:
    kind: ViewerKind
    seat: int | None = None

    @staticmethod
    def of_seat(seat: int) -> Viewer:
        return Viewer(ViewerKind.SEAT, seat)

    def __str__(self) -> str:
        return f"seat {self.seat}" if self.kind == ViewerKind.SEAT else str(self.kind)


SPECTATOR = Viewer(ViewerKind.SPECTATOR)
AUDITOR = Viewer(ViewerKind.AUDITOR)


class ViewNotOpen(Exception):
    """The auditor's view before the match has ended."""


@dataclass(frozen=True, slots=True)
class View:
    """What one viewer may see of a match (``build_view``). Each field is declared once,
    in view_fields.py, with how it is made and read back."""

    # generated from service/rules/view_fields.py by tools/generate_views.py: fields
    viewer: str
    seat: int | None
    preset: str
    players: int
    phase: Phase
    game_number: int
    games_per_set: int
    turn: int | None
    waiting_for: WaitingFor | None
    step_count: int | None
    four_stop_seats: tuple[int, ...]
    hand: tuple[str, ...] | None
    hands: tuple[tuple[str, ...], ...] | None
    hand_sizes: tuple[int, ...]
    field: tuple[str, ...] | None
    field_jokers_as: tuple[str, ...]
    field_kind: str | None
    field_seat: int | None
    revolution: bool
    eleven_back: ElevenBack
    direction: int
    suit_lock: tuple[str, ...]
    number_lock: bool
    suit_run: int  # plays in a row with one suit set (a suit lock starts at rules.suit_lock_after)
    suit_run_suits: tuple[str, ...]
    number_run: int  # plays in a row, each one rank stronger (the number lock's run)
    omen: bool
    passed: tuple[int, ...]
    active: tuple[int, ...]
    seating: tuple[int, ...]  # the turn order, seats round the table
    places: dict[int, int]
    forbidden: tuple[int, ...]
    fallen: tuple[int, ...]  # read back as the bottom seats not forbidden
    previous_places: tuple[int, ...] | None
    results: tuple[tuple[int, ...], ...]
    blind: tuple[str, ...] | None
    unused: tuple[str, ...] | None
    # ten-discarded and bombed cards: face up, public (docs/RULES.md §5.6 #25)
    out_of_play: tuple[str, ...]
    options: dict[str, Any]  # read-only (ReadOnlyOptions): shared by the match's every view
    # docs/RULES.md §5: public to everyone
    two_back: bool = False
    discard_pile: tuple[str, ...] = ()
    marked: tuple[str, ...] = ()  # §5.6 #21: the cards picks took this game (never picked again)
    # those of them in the discard pile now, shown as marked there
    discard_pile_marked: tuple[str, ...] = ()
    color_lock: str | None = None  # "red" | "black"
    partial_lock: bool = False  # suit_lock is a partial lock
    # the rest of the public position, so that position_of reads the state back
    trick: tuple[str, ...] = ()  # every card played this trick
    last_play: tuple[str, ...] | None = None  # the last meld played: it outlives the flush
    last_play_jokers_as: tuple[str, ...] = ()
    last_seat: int | None = None  # who played last_play
    leader: int = 0  # who led the game's first trick
    trick_leader: int = 0  # who led this trick
    # (giver, receiver, count, strongest) still to give, in order
    exchange_steps: tuple[tuple[int, int, int, bool], ...] = ()
    pending: tuple[tuple[WaitingFor, int, int], ...] = ()  # (step, count, seat) still to take
    window: WaitingFor = WaitingFor.FOUR_STOP  # the answer window four_stop_seats are asked in
    pass_run: int = 0  # passes in a row since the last play (the stalemate rule)
    eleven_back_lasts: int = 0  # flushes a strong eleven-back outlives (§5 #41)
    recent_suits: tuple[str, ...] = ()  # the trick's last plays' suits; "joker": held one
    finished_in_trick: bool = False  # someone finished while this trick's field was on
    leisure_seat: int | None = None  # the previous 大富豪 before their first turn (§5 #54)
    seats_drawn: bool = False  # seating was drawn (else it is seat order)
    bottom: tuple[int, ...] = ()  # forbidden and fallen seats, in the order they left
    # end of the generated fields

    def to_dict(self) -> dict[str, Any]:
        return {f.name: _plain(getattr(self, f.name)) for f in fields(self)}


def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {str(key): item for key, item in value.items()}
    return value


def _options_of(rules: RuleSet) -> dict[str, Any]:
    # a match's rules never change, nor its rule set object: found by the object (hashing
    # its 41 fields to find them by value cost 4 µs a view)
    known = memo.OPTIONS_BY_RULES.get(id(rules))
    if known is not None and known[0] is rules:
        return known[1]
    entry = (rules, _options_by_value(rules))
    return memo.remember(memo.OPTIONS_BY_RULES, id(rules), entry, memo.OPTIONS_LIMIT)[1]


@functools.lru_cache(maxsize=64)
def _options_by_value(rules: RuleSet) -> dict[str, Any]:
    # Listing 41 fields for every view cost. Every view of equal rule sets (every
    # federation match's) shares one read-only dict, and so the API's one encoding of it.
    return ReadOnlyOptions(rules.options())


class ReadOnlyOptions(dict[str, Any]):
    """A rule set's options as every view of it shares them: a dict (JSON and msgspec
    encode it as one) that refuses every change; a copy of it is a plain dict."""

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError("a view's options are shared: copy them to change them")

    __setitem__ = __delitem__ = __ior__ = _refuse
    clear = pop = popitem = setdefault = update = _refuse

    def __reduce__(self) -> Any:  # copy, deepcopy and pickle give a plain dict
        return (dict, (dict(self),))


def build_view(state: MatchState, viewer: Viewer, *, match_over: bool = False) -> View:
    """The state as ``viewer`` may see it. ``match_over``: the state is a step of a
    match that has since ended (a replay), so every card of it is open."""
    revealed = match_over or state.phase == Phase.MATCH_OVER
    if viewer.kind == ViewerKind.AUDITOR and not revealed:
        raise ViewNotOpen("the auditor's view opens when the match ends")
    seat = viewer.seat if viewer.kind == ViewerKind.SEAT else None
    if seat is not None and not 0 <= seat < state.players:
        raise ValueError(f"no seat {seat} in this match")
    field, last = state.field, state.last_play
    field_codes = mask_codes(field.mask) if field else None
    field_jokers_as = tuple(format_cards(field.jokers_as)) if field else ()
    if last is not field:  # the field is the last play until the flush
        last_codes = mask_codes(last.mask) if last else None
        last_jokers_as = tuple(format_cards(last.jokers_as)) if last else ()
    else:
        last_codes, last_jokers_as = field_codes, field_jokers_as
    in_game = state.phase == Phase.IN_GAME
    # generated from service/rules/view_fields.py by tools/generate_views.py: view
    return View(
        viewer=str(viewer),
        seat=seat,
        preset=state.rules.preset,
        players=state.players,
        phase=state.phase,
        game_number=state.game_number,
        games_per_set=state.rules.games_per_set,
        turn=state.turn if in_game else None,
        waiting_for=state.waiting_for,
        step_count=state.pending[0][1] if in_game and state.pending else None,
        four_stop_seats=state.four_stop,
        hand=mask_codes(state.hands[seat]) if seat is not None else None,
        hands=tuple(mask_codes(hand) for hand in state.hands) if revealed else None,
        hand_sizes=tuple(hand.bit_count() for hand in state.hands),
        field=field_codes,
        field_jokers_as=field_jokers_as,
        field_kind=Kind(field.kind).name.lower() if field else None,
        field_seat=state.field_seat,
        revolution=state.revolution,
        eleven_back=state.eleven_back,
        direction=state.turn_direction,
        suit_lock=tuple(suit_letters(state.suit_lock)),
        number_lock=state.number_lock,
        suit_run=state.suit_run,
        suit_run_suits=tuple(suit_letters(state.suit_run_suits)),
        number_run=state.number_run,
        omen=state.omen,
        passed=tuple(s for s in range(state.players) if state.passed >> s & 1),
        active=tuple(s for s in range(state.players) if state.is_active(s)),
        seating=state.seating or tuple(range(state.players)),
        places=state.places(),
        forbidden=tuple(s for s, how in state.bottom if how == Bottom.FORBIDDEN),
        fallen=tuple(s for s, how in state.bottom if how == Bottom.FALLEN),
        previous_places=state.previous_places,
        results=state.results,
        blind=mask_codes(state.blind) if revealed else None,
        unused=mask_codes(state.unused) if revealed else None,
        out_of_play=mask_codes(state.out),
        options=_options_of(state.rules),
        two_back=state.two_back,
        discard_pile=mask_codes(state.pile),
        marked=mask_codes(state.marked),
        discard_pile_marked=mask_codes(marked_in_pile(state)),
        color_lock=COLORS.get(state.color_lock),
        partial_lock=state.partial_lock,
        trick=mask_codes(state.trick),
        last_play=last_codes,
        last_play_jokers_as=last_jokers_as,
        last_seat=state.last_seat,
        leader=state.leader,
        trick_leader=state.trick_leader,
        exchange_steps=state.exchange_steps,
        pending=state.pending,
        window=state.window,
        pass_run=state.pass_run,
        eleven_back_lasts=state.eleven_back_lasts,
        recent_suits=tuple(_suits_played(suits) for suits in state.recent_suits),
        finished_in_trick=state.finished_in_trick,
        leisure_seat=state.leisure_seat,
        seats_drawn=bool(state.seating),
        bottom=tuple(s for s, _ in state.bottom),
    )
    # end of the generated view


def position_of(view: View, rules: RuleSet) -> Position:
    """The public position ``view`` shows, under the table's ``rules``: what a seat's
    client passes to the engine's own judgments (``judging``, ``readings``). It equals
    the match's state on every field of a ``Position`` (tests/unit/test_position.py)."""
    state = Position(rules, view.players, rules.switched_on())
    if view.omen:
        state.in_force = state.in_force - CANCELLED_BY_OMEN
    # generated from service/rules/view_fields.py by tools/generate_views.py: read back
    state.phase = view.phase
    state.game_number = view.game_number
    state.turn = view.turn
    state.four_stop = view.four_stop_seats
    state.field_seat = view.field_seat
    state.revolution = view.revolution
    state.eleven_back = view.eleven_back
    state.direction = -view.direction if view.eleven_back == ORDER else view.direction
    state.suit_lock = parse_suits(view.suit_lock)
    state.number_lock = view.number_lock
    state.suit_run = view.suit_run
    state.suit_run_suits = parse_suits(view.suit_run_suits)
    state.number_run = view.number_run
    state.omen = view.omen
    state.passed = _seat_mask(view.passed)
    state.active = _seat_mask(view.active)
    state.seating = view.seating if view.seats_drawn else ()
    state.previous_places = view.previous_places
    state.results = view.results
    state.two_back = view.two_back
    state.pile = _mask_of_codes(view.discard_pile)
    state.marked = _mask_of_codes(view.marked)
    state.color_lock = _COLOR_SUITS[Color(view.color_lock)] if view.color_lock else 0
    state.partial_lock = view.partial_lock
    state.trick = _mask_of_codes(view.trick)
    state.last_seat = view.last_seat
    state.leader = view.leader
    state.trick_leader = view.trick_leader
    state.exchange_steps = view.exchange_steps
    state.pending = view.pending
    state.window = view.window
    state.pass_run = view.pass_run
    state.eleven_back_lasts = view.eleven_back_lasts
    state.recent_suits = tuple(_suits_read(suits) for suits in view.recent_suits)
    state.finished_in_trick = view.finished_in_trick
    state.leisure_seat = view.leisure_seat
    # end of the generated read back
    forbidden = frozenset(view.forbidden)
    state.bottom = tuple(
        (seat, Bottom.FORBIDDEN if seat in forbidden else Bottom.FALLEN) for seat in view.bottom
    )
    # the seats that finished, in their order: those out of the game, not at the bottom
    gone = [s for s in view.places if not state.is_active(s) and s not in view.bottom]
    state.finished = tuple(sorted(gone, key=view.places.__getitem__))
    state.final_places = (
        tuple(view.places[seat] for seat in range(view.players))
        if view.phase in (Phase.GAME_OVER, Phase.MATCH_OVER)
        else None
    )
    state.field = _meld_of(view.field, view.field_jokers_as, state)
    state.last_play = _meld_of(view.last_play, view.last_play_jokers_as, state)
    # the first play of a match must hold the ♢3 (d3_start) until a play is made
    state.first_play_d3 = rules.d3_start and view.game_number == 1 and state.last_play is None
    return state


JOKER_PLAYED = "joker"  # recent_suits: a play that held a joker


def _suits_played(suits: int) -> str:
    return JOKER_PLAYED if suits < 0 else "".join(suit_letters(suits))


def _suits_read(letters: str) -> int:
    return -1 if letters == JOKER_PLAYED else parse_suits(letters)


_COLOR_SUITS = {color: suits for suits, color in COLORS.items()}


def _mask_of_codes(codes: tuple[str, ...]) -> int:
    mask = 0
    for code in codes:  # jokers repeat
        mask = add_cards(mask, mask_of((parse_card(code),)))
    return mask


def _seat_mask(seats: tuple[int, ...]) -> int:
    mask = 0
    for seat in seats:
        mask |= 1 << seat
    return mask


def _meld_of(
    codes: tuple[str, ...] | None, jokers_as: tuple[str, ...], position: Position
) -> Meld | None:
    """A meld read back from its card codes and joker readings."""
    if not codes:
        return None
    return classify(
        _mask_of_codes(codes),
        tuple(parse_reading(code) for code in jokers_as),
        reversed_order=position.reversed_order,
        stairs_allowed=True,
        emperor_allowed=True,
        past_ends=True,
        joker_suits=position.rules.joker_suits,
    )


# -- events --------------------------------------------------------------------


def event_record(event: ev.Event) -> dict[str, Any]:
    """An event in its public notation (card codes), with nothing hidden."""
    return {"type": type(event).__name__, **to_record(event)}


def visible_record(event: ev.Event, viewer: Viewer, revealed: bool) -> dict[str, Any]:
    """``event`` as ``viewer`` may see it; ``revealed`` once the match has ended.
    A hidden card list becomes ``null`` beside a ``*_count``."""
    if viewer.kind == ViewerKind.AUDITOR and not revealed:
        raise ViewNotOpen("the auditor's view opens when the match ends")
    record = event_record(event)
    if revealed:
        return record
    seat = viewer.seat if viewer.kind == ViewerKind.SEAT else None
    match event:
        case ev.GameDealt():
            record["hand_sizes"] = [hand.bit_count() for hand in event.hands]
            record["hands"] = [
                cards if index == seat else None for index, cards in enumerate(record["hands"])
            ]
            _hide(record, "blind", event.blind)
            _hide(record, "unused", event.unused)
            if event.stalemate:
                record["stalemate"] = None  # the draw a stalemate would rank by
        case ev.HandsSwapped():
            record["hand_sizes"] = [hand.bit_count() for hand in event.hands]
            record["hands"] = [
                cards if event.seats[index] == seat else None
                for index, cards in enumerate(record["hands"])
            ]
        case ev.CardChosen():
            if seat != event.seat:
                _hide(record, "cards", event.cards)
        case ev.CardsGiven():
            if seat not in (event.seat, event.to):
                _hide(record, "cards", event.cards)
        case ev.PlayerFinished() | ev.PlayerFell():
            if seat != event.seat:
                _hide(record, "leftover", event.leftover)
        case (
            ev.ExchangeStarted() | ev.CardsPlayed() | ev.Passed() | ev.RevolutionChanged()
            | ev.OmenInvoked() | ev.ElevenBackStarted() | ev.ElevenBackStrengthened()
            | ev.ElevenBackEnded() | ev.TwoBackStarted() | ev.SuitLocked() | ev.ColorLocked()
            | ev.LocksReleased() | ev.NumberLocked() | ev.DirectionReversed()
            | ev.PlayersSkipped() | ev.StepRequired() | ev.FourStopOffered()
            | ev.EightCutReturnOffered() | ev.PilePicked() | ev.PickLapsed() | ev.RanksBombed()
            | ev.CardsDiscarded()  # the discard pile is face up (docs/RULES.md §5.1)
            | ev.FieldFlushed() | ev.TurnMoved() | ev.GameEnded() | ev.MatchEnded()
        ):  # fmt: skip
            pass  # public: everyone sees all of it
        case _:
            assert_never(event)
    return record


def _hide(record: dict[str, Any], name: str, mask: int) -> None:
    record[name] = None
    record[f"{name}_count"] = len(cards_of(mask))
