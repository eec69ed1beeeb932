"""Actions between their messages and the rules' commands: one mapping for the
server and for the client SDK."""

from __future__ import annotations

import functools
from typing import assert_never

from ..rules.commands import SeatCommand
from ..rules.notation import seat_command, written
from ..rules.vocabulary import Action
from .gen.daifugo.v1 import match_service_pb2 as pb


def action_to_message(command: SeatCommand) -> pb.Action:
    """The message of a command (a shared one: copy it before changing it)."""
    return _action_message(command)


@functools.lru_cache(maxsize=8192)
def _action_message(command: SeatCommand) -> pb.Action:
    # a legal-action list repeats the same commands all match long
    notation = written(command)
    match notation.action:
        case Action.PLAY:
            return pb.Action(play=pb.Play(cards=notation.cards, jokers_as=notation.jokers_as))
        case Action.PASS:
            action = pb.Action()
            getattr(action, "pass").SetInParent()  # `pass` is a Python keyword
            return action
        case Action.GIVE:
            return pb.Action(give=pb.Give(cards=notation.cards))
        case Action.DISCARD:
            return pb.Action(discard=pb.Discard(cards=notation.cards))
        case Action.BOMB:
            return pb.Action(bomb=pb.Bomb(ranks=notation.ranks))
        case Action.PICK:
            return pb.Action(pick=pb.Pick(cards=notation.cards))
        case _:
            assert_never(notation.action)


def command_from_message(seat: int, action: pb.Action) -> SeatCommand:
    """The command an action message asks for; raises Refused(bad_request) on
    bad notation or an empty action."""
    kind = action.WhichOneof("kind")
    if kind == "play":
        return seat_command(seat, kind, action.play.cards, action.play.jokers_as)
    if kind in ("give", "discard"):
        return seat_command(seat, kind, getattr(action, kind).cards)
    if kind == "bomb":
        return seat_command(seat, kind, ranks=action.bomb.ranks)
    if kind == "pick":
        return seat_command(seat, kind, action.pick.cards)
    return seat_command(seat, kind or "nothing")
