"""The expert's playouts decide as the stronger bot does (``playouts.stronger_decide``,
``Rollout.STRONGER``): from the position and the seat's own hand, with the public
cards (the field and the pile) as the cards it knows out of play. Built from the
match's state, the decision is the one the bot makes from the seat's view: nothing
of the state a seat may not see goes into it, and the bot counts every public card
out, not only those it saw on the field at its turns."""

from __future__ import annotations

from clients.bots import StrongerBot
from clients.playouts import stronger_decide
from service.match.shuffle import game_deal
from service.rules import Deal, rule_set
from service.rules.commands import SeatCommand
from service.rules.decider import Folded, decide_and_fold
from service.rules.legal import legal_actions
from service.rules.state import initial_state
from service.rules.views import Viewer, build_view
from service.rules.vocabulary import Phase


def test_a_playout_seat_decides_as_from_its_own_view() -> None:
    compared = 0
    for preset in ("federation", "torasobi", "classic", "uecda"):
        rules = rule_set(preset).with_options({"games_per_set": 2})
        state = initial_state(rules, 5)
        bots = [StrongerBot(rules, safe=False) for _ in range(5)]
        while state.phase != Phase.MATCH_OVER:
            command: Deal | SeatCommand
            if state.phase in (Phase.BEFORE_DEAL, Phase.GAME_OVER):
                command = game_deal(rules, 5, preset.encode(), state.game_number + 1)
            else:
                seat = state.turn
                assert seat is not None
                legal = legal_actions(state)
                view = build_view(state, Viewer.of_seat(seat))
                command = bots[seat].choose(view, legal)
                if len(legal) > 1:
                    assert stronger_decide(state, seat, legal) == command
                    compared += 1
            folded = decide_and_fold(state, command)
            assert isinstance(folded, Folded)
            state = folded.state
    assert compared > 200
