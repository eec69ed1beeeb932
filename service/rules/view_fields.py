"""Each field of ``View`` declared once: its type, how ``build_view`` makes it from the
state, and how ``position_of`` reads it back into a ``Position``.

``generate_views.py`` (beside this file) writes the three places of views.py from this
table (the dataclass's fields, ``build_view``'s ``View(...)`` and ``position_of``'s
statements), between ``# generated`` markers; CI and tests/unit/test_view_fields.py
fail while they differ from what it writes. The generated code is plain code: the views
are built on every action, and copying fields by a loop over a table cost more.

A ``make`` expression reads the state (``state``) and ``build_view``'s locals
(``viewer``, ``seat``, ``revealed``, ``in_game``, ``field``, ``field_codes``,
``field_jokers_as``, ``last_codes``, ``last_jokers_as``). A ``read`` statement sets
the position (``state``) from ``view``; ``SAME`` reads the field into the position's
field of its name, ``WITH_OTHERS``: read together with other fields (by
``position_of``'s own code, or in another field's statement), ``None``: the position
does not hold it. The gRPC mapping of each field is
declared in service/grpc/view_fields.py."""

from __future__ import annotations

from dataclasses import dataclass

SAME = "state.{name} = view.{name}"
WITH_OTHERS = "with others"


@dataclass(frozen=True, slots=True)
class ViewField:
    name: str
    type: str
    make: str
    read: str | None = SAME
    default: str | None = None  # a field with a default comes after those without
    note: str = ""  # a comment above the field
    heading: str = ""  # a comment above the note, for this field and those below

    def read_statement(self) -> str | None:
        """The generated statement of ``position_of`` (None: none generated)."""
        if self.read is None or self.read == WITH_OTHERS:
            return None
        return self.read.format(name=self.name)


FIELDS: tuple[ViewField, ...] = (
    ViewField("viewer", "str", "str(viewer)", None),
    ViewField("seat", "int | None", "seat", None),
    ViewField("preset", "str", "state.rules.preset", None),
    ViewField("players", "int", "state.players", WITH_OTHERS),
    ViewField("phase", "Phase", "state.phase"),
    ViewField("game_number", "int", "state.game_number"),
    ViewField("games_per_set", "int", "state.rules.games_per_set", None),
    ViewField("turn", "int | None", "state.turn if in_game else None"),
    ViewField("waiting_for", "WaitingFor | None", "state.waiting_for", None),
    ViewField(
        "step_count",
        "int | None",
        "state.pending[0][1] if in_game and state.pending else None",
        None,
    ),
    ViewField(
        "four_stop_seats",
        "tuple[int, ...]",
        "state.four_stop",
        "state.four_stop = view.four_stop_seats",
    ),
    ViewField(
        "hand",
        "tuple[str, ...] | None",
        "mask_codes(state.hands[seat]) if seat is not None else None",
        None,
    ),
    ViewField(
        "hands",
        "tuple[tuple[str, ...], ...] | None",
        "tuple(mask_codes(hand) for hand in state.hands) if revealed else None",
        None,
    ),
    ViewField(
        "hand_sizes", "tuple[int, ...]", "tuple(hand.bit_count() for hand in state.hands)", None
    ),
    ViewField("field", "tuple[str, ...] | None", "field_codes", WITH_OTHERS),
    ViewField("field_jokers_as", "tuple[str, ...]", "field_jokers_as", WITH_OTHERS),
    ViewField("field_kind", "str | None", "Kind(field.kind).name.lower() if field else None", None),
    ViewField("field_seat", "int | None", "state.field_seat"),
    ViewField("revolution", "bool", "state.revolution"),
    ViewField("eleven_back", "ElevenBack", "state.eleven_back"),
    ViewField(
        "direction",
        "int",
        "state.turn_direction",
        # the view shows the direction turns go in now; the state keeps the table's
        "state.direction = -view.direction if view.eleven_back == ORDER else view.direction",
    ),
    ViewField(
        "suit_lock",
        "tuple[str, ...]",
        "tuple(suit_letters(state.suit_lock))",
        "state.suit_lock = parse_suits(view.suit_lock)",
    ),
    ViewField("number_lock", "bool", "state.number_lock"),
    ViewField(
        "suit_run",
        "int",
        "state.suit_run",
        note="plays in a row with one suit set (a suit lock starts at rules.suit_lock_after)",
    ),
    ViewField(
        "suit_run_suits",
        "tuple[str, ...]",
        "tuple(suit_letters(state.suit_run_suits))",
        "state.suit_run_suits = parse_suits(view.suit_run_suits)",
    ),
    ViewField(
        "number_run",
        "int",
        "state.number_run",
        note="plays in a row, each one rank stronger (the number lock's run)",
    ),
    ViewField("omen", "bool", "state.omen"),
    ViewField(
        "passed",
        "tuple[int, ...]",
        "tuple(s for s in range(state.players) if state.passed >> s & 1)",
        "state.passed = _seat_mask(view.passed)",
    ),
    ViewField(
        "active",
        "tuple[int, ...]",
        "tuple(s for s in range(state.players) if state.is_active(s))",
        "state.active = _seat_mask(view.active)",
    ),
    ViewField(
        "seating",
        "tuple[int, ...]",
        "state.seating or tuple(range(state.players))",
        "state.seating = view.seating if view.seats_drawn else ()",
        note="the turn order, seats round the table",
    ),
    ViewField("places", "dict[int, int]", "state.places()", WITH_OTHERS),
    ViewField(
        "forbidden",
        "tuple[int, ...]",
        "tuple(s for s, how in state.bottom if how == Bottom.FORBIDDEN)",
        WITH_OTHERS,
    ),
    ViewField(
        "fallen",
        "tuple[int, ...]",
        "tuple(s for s, how in state.bottom if how == Bottom.FALLEN)",
        None,
        note="read back as the bottom seats not forbidden",
    ),
    ViewField("previous_places", "tuple[int, ...] | None", "state.previous_places"),
    ViewField("results", "tuple[tuple[int, ...], ...]", "state.results"),
    ViewField(
        "blind", "tuple[str, ...] | None", "mask_codes(state.blind) if revealed else None", None
    ),
    ViewField(
        "unused", "tuple[str, ...] | None", "mask_codes(state.unused) if revealed else None", None
    ),
    ViewField(
        "out_of_play",
        "tuple[str, ...]",
        "mask_codes(state.out)",
        None,
        note="ten-discarded and bombed cards: face up, public (docs/RULES.md §5.6 #25)",
    ),
    ViewField(
        "options",
        "dict[str, Any]",
        "_options_of(state.rules)",
        None,
        note="read-only (ReadOnlyOptions): shared by the match's every view",
    ),
    ViewField(
        "two_back",
        "bool",
        "state.two_back",
        default="False",
        heading="docs/RULES.md §5: public to everyone",
    ),
    ViewField(
        "discard_pile",
        "tuple[str, ...]",
        "mask_codes(state.pile)",
        "state.pile = _mask_of_codes(view.discard_pile)",
        default="()",
    ),
    ViewField(
        "marked",
        "tuple[str, ...]",
        "mask_codes(state.marked)",
        "state.marked = _mask_of_codes(view.marked)",
        default="()",
        note="§5.6 #21: the cards picks took this game (never picked again)",
    ),
    ViewField(
        "discard_pile_marked",
        "tuple[str, ...]",
        "mask_codes(marked_in_pile(state))",
        None,
        default="()",
        note="those of them in the discard pile now, shown as marked there",
    ),
    ViewField(
        "color_lock",
        "str | None",
        "COLORS.get(state.color_lock)",
        "state.color_lock = _COLOR_SUITS[Color(view.color_lock)] if view.color_lock else 0",
        default="None",
        note='"red" | "black"',
    ),
    ViewField(
        "partial_lock",
        "bool",
        "state.partial_lock",
        default="False",
        note="suit_lock is a partial lock",
    ),
    ViewField(
        "trick",
        "tuple[str, ...]",
        "mask_codes(state.trick)",
        "state.trick = _mask_of_codes(view.trick)",
        default="()",
        note="every card played this trick",
        heading="the rest of the public position, so that position_of reads the state back",
    ),
    ViewField(
        "last_play",
        "tuple[str, ...] | None",
        "last_codes",
        WITH_OTHERS,
        default="None",
        note="the last meld played: it outlives the flush",
    ),
    ViewField(
        "last_play_jokers_as", "tuple[str, ...]", "last_jokers_as", WITH_OTHERS, default="()"
    ),
    ViewField(
        "last_seat", "int | None", "state.last_seat", default="None", note="who played last_play"
    ),
    ViewField("leader", "int", "state.leader", default="0", note="who led the game's first trick"),
    ViewField("trick_leader", "int", "state.trick_leader", default="0", note="who led this trick"),
    ViewField(
        "exchange_steps",
        "tuple[tuple[int, int, int, bool], ...]",
        "state.exchange_steps",
        default="()",
        note="(giver, receiver, count, strongest) still to give, in order",
    ),
    ViewField(
        "pending",
        "tuple[tuple[WaitingFor, int, int], ...]",
        "state.pending",
        default="()",
        note="(step, count, seat) still to take",
    ),
    ViewField(
        "window",
        "WaitingFor",
        "state.window",
        default="WaitingFor.FOUR_STOP",
        note="the answer window four_stop_seats are asked in",
    ),
    ViewField(
        "pass_run",
        "int",
        "state.pass_run",
        default="0",
        note="passes in a row since the last play (the stalemate rule)",
    ),
    ViewField(
        "eleven_back_lasts",
        "int",
        "state.eleven_back_lasts",
        default="0",
        note="flushes a strong eleven-back outlives (§5 #41)",
    ),
    ViewField(
        "recent_suits",
        "tuple[str, ...]",
        "tuple(_suits_played(suits) for suits in state.recent_suits)",
        "state.recent_suits = tuple(_suits_read(suits) for suits in view.recent_suits)",
        default="()",
        note="the trick's last plays' suits; \"joker\": held one",
    ),
    ViewField(
        "finished_in_trick",
        "bool",
        "state.finished_in_trick",
        default="False",
        note="someone finished while this trick's field was on",
    ),
    ViewField(
        "leisure_seat",
        "int | None",
        "state.leisure_seat",
        default="None",
        note="the previous 大富豪 before their first turn (§5 #54)",
    ),
    ViewField(
        "seats_drawn",
        "bool",
        "bool(state.seating)",
        WITH_OTHERS,
        default="False",
        note="seating was drawn (else it is seat order)",
    ),
    ViewField(
        "bottom",
        "tuple[int, ...]",
        "tuple(s for s, _ in state.bottom)",
        WITH_OTHERS,
        default="()",
        note="forbidden and fallen seats, in the order they left",
    ),
)
