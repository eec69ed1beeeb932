"""How each field of the rules' ``View`` travels in the ``View`` message, both ways,
declared once: the service's ``view_message`` and the SDK's ``view_from_message`` are
made from this table, and tests/unit/test_view_fields.py holds it to the dataclass
and to the proto (a View field without an entry, or a message field nobody fills,
fails there).

A field not named in ``_SPECIAL`` travels as itself in the message field of its name:
a tuple as a repeated field, a dict as a map, an optional scalar as a field with
presence (None: unset). ``_NONE_AS_EMPTY`` ones send None as the empty value."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any

from ..rules.views import View
from ..rules.vocabulary import ElevenBack, Phase, WaitingFor
from .gen.daifugo.v1 import match_service_pb2 as pb
from .words import ELEVEN_BACKS, FIELD_KINDS, PHASES, WAITS, ProtoWords

Encode = Callable[[View], dict[str, Any]]
Decode = Callable[[pb.View], Any]


@dataclass(frozen=True, slots=True)
class Special:
    """A View field that does not travel as itself: the message fields it fills
    (``writes``), how it fills them and how it is read back."""

    writes: tuple[str, ...]
    encode: Encode
    decode: Decode


def _with_value(name: str, words: ProtoWords, read: Callable[[str], Any]) -> Special:
    """A word sent twice: as its string (deprecated) and as the proto's enum
    (``<name>_value``); read from the enum, or from the string a service sent alone."""
    value = f"{name}_value"
    return Special(
        (name, value),
        lambda view: {name: getattr(view, name) or "", value: words.name(getattr(view, name))},
        lambda m: read(words.word(getattr(m, value)) or getattr(m, name)),
    )


def _last_play(view: View) -> dict[str, Any]:
    if view.last_play is None:
        return {}
    return {"last_play": pb.PlayedMeld(cards=view.last_play, jokers_as=view.last_play_jokers_as)}


_SPECIAL: dict[str, Special] = {
    "phase": _with_value("phase", PHASES, Phase),
    "waiting_for": _with_value(
        "waiting_for", WAITS, lambda word: WaitingFor(word) if word else None
    ),
    "field_kind": _with_value("field_kind", FIELD_KINDS, lambda word: word or None),
    "eleven_back": _with_value("eleven_back", ELEVEN_BACKS, ElevenBack),
    # a seat's own hand: empty is a hand of none, so the seat's presence says it is one
    "hand": Special(
        ("hand",),
        lambda view: {"hand": view.hand or ()},
        lambda m: tuple(m.hand) if m.HasField("seat") else None,
    ),
    "hands": Special((), lambda view: {}, lambda m: None),  # every hand: auditors only
    "seating": Special(
        ("seating",),
        lambda view: {"seating": view.seating},
        lambda m: tuple(m.seating) or tuple(range(m.players)),  # from before seating was sent
    ),
    "results": Special(
        ("results",),
        lambda view: {"results": [pb.GameResult(places=places) for places in view.results]},
        lambda m: tuple(tuple(result.places) for result in m.results),
    ),
    "last_play": Special(
        ("last_play",),
        _last_play,
        lambda m: tuple(m.last_play.cards) if m.HasField("last_play") else None,
    ),
    "last_play_jokers_as": Special(  # sent in last_play
        (), lambda view: {}, lambda m: tuple(m.last_play.jokers_as)
    ),
    "exchange_steps": Special(
        ("exchange_steps",),
        lambda view: {
            "exchange_steps": [
                pb.ExchangeStep(giver=giver, receiver=receiver, count=count, strongest=strongest)
                for giver, receiver, count, strongest in view.exchange_steps
            ]
        },
        lambda m: tuple(
            (step.giver, step.receiver, step.count, step.strongest) for step in m.exchange_steps
        ),
    ),
    "pending": Special(
        ("pending",),
        lambda view: {
            "pending": [
                pb.PendingStep(step=WAITS.name(step), count=count, seat=seat)
                for step, count, seat in view.pending
            ]
        },
        lambda m: tuple(
            (WaitingFor(WAITS.word(step.step)), step.count, step.seat) for step in m.pending
        ),
    ),
    "window": Special(
        ("window",),
        lambda view: {"window": WAITS.name(view.window)},
        lambda m: WaitingFor(WAITS.word(m.window) or WaitingFor.FOUR_STOP),
    ),
    # the options are the dear part of a message: view_message copies in one Struct per
    # rule set, and the SDK decodes each once (``OPTIONS`` is left for them)
    "options": Special(("options",), lambda view: {}, lambda m: None),
}
_NONE_AS_EMPTY = frozenset({"field", "previous_places", "blind", "unused", "color_lock"})
# message fields no View field fills: the servicer's, filled beside the view
OUTSIDE_THE_VIEW = frozenset({"turn_deadline_ms", "spectator_delay_ms"})

_MESSAGE_FIELDS = pb.View.DESCRIPTOR.fields_by_name
VIEW_FIELDS = tuple(f.name for f in fields(View))
# the View fields that travel as themselves (their message field holds the same value)
AS_THEMSELVES = tuple(
    name for name in VIEW_FIELDS if name not in _SPECIAL and name not in _NONE_AS_EMPTY
)


def _plain_decoder(name: str) -> Decode:
    field = _MESSAGE_FIELDS.get(name)
    if field is None:
        raise LookupError(f"View.{name} has no message field of its name: declare how it travels")
    if field.message_type is not None and field.message_type.GetOptions().map_entry:
        return lambda m: dict(getattr(m, name))
    if field.is_repeated:
        if name in _NONE_AS_EMPTY:
            return lambda m: tuple(getattr(m, name)) or None
        return lambda m: tuple(getattr(m, name))
    if name in _NONE_AS_EMPTY:
        return lambda m: getattr(m, name) or None
    if field.has_presence:
        return lambda m: getattr(m, name) if m.HasField(name) else None
    return lambda m: getattr(m, name)


def _decoders() -> dict[str, Decode]:
    return {
        name: _SPECIAL[name].decode if name in _SPECIAL else _plain_decoder(name)
        for name in VIEW_FIELDS
    }


DECODERS = _decoders()
_EMPTY = {name: () if _MESSAGE_FIELDS[name].is_repeated else ""
          for name in _NONE_AS_EMPTY}  # fmt: skip
_ENCODERS = tuple(special.encode for special in _SPECIAL.values())


def message_fields(view: View) -> dict[str, Any]:
    """The View message's fields for ``view`` (all but its options), as keywords."""
    values = {name: getattr(view, name) for name in AS_THEMSELVES}
    for name, empty in _EMPTY.items():
        value = getattr(view, name)
        values[name] = empty if value is None else value
    for encode in _ENCODERS:
        values.update(encode(view))
    return values


def written_fields() -> dict[str, str]:
    """Each message field a View field fills, by the View field that fills it."""
    written = {name: name for name in (*AS_THEMSELVES, *_NONE_AS_EMPTY)}
    for name, special in _SPECIAL.items():
        written.update({target: name for target in special.writes})
    return written


def view_fields(message: pb.View, options: dict[str, Any]) -> View:
    """The View a message carries, with ``options`` as its rule set."""
    values = {name: decode(message) for name, decode in DECODERS.items()}
    values["options"] = options
    return View(**values)
