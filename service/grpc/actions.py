"""Actions between their messages and the rules' commands: one mapping for the
server and for the client SDK."""

from __future__ import annotations

import functools

from ..rules.cards import format_cards, format_mask, format_rank
from ..rules.commands import Bomb, Discard, Give, Pass, Pick, Play, SeatCommand
from ..rules.notation import seat_command
from .gen.daifugo.v1 import match_service_pb2 as pb


def action_to_message(command: SeatCommand) -> pb.Action:
    """The message of a command (a shared one: copy it before changing it)."""
    return _action_message(command)


@functools.lru_cache(maxsize=8192)
def _action_message(command: SeatCommand) -> pb.Action:
    # a legal-action list repeats the same commands all match long
    if isinstance(command, Play):
        return pb.Action(
            play=pb.Play(
                cards=format_mask(command.cards), jokers_as=format_cards(command.jokers_as)
            )
        )
    if isinstance(command, Pass):
        action = pb.Action()
        getattr(action, "pass").SetInParent()  # `pass` is a Python keyword
        return action
    if isinstance(command, Give):
        return pb.Action(give=pb.Give(cards=format_mask(command.cards)))
    if isinstance(command, Discard):
        return pb.Action(discard=pb.Discard(cards=format_mask(command.cards)))
    if isinstance(command, Pick):
        return pb.Action(pick=pb.Pick(cards=format_mask(command.cards)))
    assert isinstance(command, Bomb)
    return pb.Action(bomb=pb.Bomb(ranks=[format_rank(rank) for rank in command.ranks]))


def command_from_message(seat: int, action: pb.Action) -> SeatCommand:
    """The command an action message asks for; raises Refused(bad_request) on
    bad notation or an empty action."""
    kind = action.WhichOneof("kind")
    if kind == "play":
        return seat_command(seat, "play", list(action.play.cards), list(action.play.jokers_as))
    if kind == "pass":
        return seat_command(seat, "pass")
    if kind == "give":
        return seat_command(seat, "give", list(action.give.cards))
    if kind == "discard":
        return seat_command(seat, "discard", list(action.discard.cards))
    if kind == "bomb":
        return seat_command(seat, "bomb", ranks=list(action.bomb.ranks))
    if kind == "pick":
        return seat_command(seat, "pick", list(action.pick.cards))
    return seat_command(seat, "nothing")
