"""The plain ``uecda`` preset (docs/RULES.md §6) as a UECda table plays it: five
players, one joker, enough games for the seats to be drawn again. The other
property tests draw uecda with random local rules too; these keep its own.

Every match ends within the bound; the 53 cards are conserved after every
event; replay equals live; every listed action is accepted; turns go round
the seating drawn; the stalemate order never shows before the match ends."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from service.rules import events as ev
from service.rules import fold, initial_state, rule_set
from service.rules.legal import legal_actions
from service.rules.views import SPECTATOR, Viewer, visible_record

from ._support import Step, decide_accepted, examples, play_match, whole_deck
from .test_conservation import check_conserved

RULES = rule_set("uecda", {"games_per_set": 4})


@settings(max_examples=examples(25))
@given(data=st.data())
def test_uecda_tables(data: st.DataObject) -> None:
    deck = whole_deck(RULES)
    assert deck.bit_count() == 53

    def check(step: Step) -> None:
        state = step.before
        for event in step.events:
            state = fold(state, [event])
            if state.game_number:
                check_conserved(state, deck, type(event).__name__)
            if isinstance(event, ev.GameDealt):
                assert sorted(event.seating) == list(range(5))
                for viewer in (SPECTATOR, *map(Viewer.of_seat, range(5))):
                    assert visible_record(event, viewer, False)["stalemate"] is None
        after = step.after
        for action in legal_actions(after):
            decide_accepted(after, action)
        turn, before = after.turn, step.before.turn
        if (
            after.waiting_for == "play"
            and step.before.waiting_for == "play"
            and turn is not None
            and before is not None
            and not any(isinstance(e, ev.FieldFlushed | ev.PlayerFinished) for e in step.events)
        ):
            # the turn moves on round the seating to the next seat still waiting
            seating = after.seating
            gap = (seating.index(turn) - seating.index(before)) % 5
            between = [seating[(seating.index(before) + k) % 5] for k in range(1, gap)]
            assert all(not after.is_active(s) or after.passed >> s & 1 for s in between)

    match = play_match(data, RULES, 5, on_step=check)
    assert fold(initial_state(RULES, 5), match.events) == match.final
    assert len(match.final.results) == 4
