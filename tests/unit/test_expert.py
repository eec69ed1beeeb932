"""The expert bot: with a seed and a budget in playouts its moves repeat exactly,
and every move is one of the legal actions it was offered."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from clients.bots import StrongerBot
from clients.expert import ExpertBot, think
from clients.playouts import Rollout, play_out_with
from clients.policies import greedy_follow, rollout_decide, without_forbidden
from clients.strategy import Table, hand_of
from service.app.selfplay import play_match
from service.match.shuffle import game_deal
from service.rules import rule_set
from service.rules.cards import joker_count
from service.rules.commands import Pass, Play, SeatCommand
from service.rules.decider import Folded, decide_and_fold
from service.rules.state import initial_state
from service.rules.views import View
from service.rules.vocabulary import Phase, WaitingFor
from tools.check_compiled import searches


def _expert_match(seed: bytes) -> tuple[list[SeatCommand], list[object]]:
    rules = rule_set("torasobi").with_options({"games_per_set": 2})
    expert = ExpertBot(rules, playouts=30, seed=seed)
    moves: list[SeatCommand] = []

    def watched(view: View, actions: list[SeatCommand]) -> SeatCommand:
        choice = expert.choose(view, actions)
        assert choice in actions
        moves.append(choice)
        return choice

    bots = [watched, StrongerBot(rules), StrongerBot(rules), StrongerBot(rules)]
    played = play_match(rules, 4, b"expert-determinism", bots)
    return moves, list(played.events)


def test_same_seed_and_playouts_repeat_every_move() -> None:
    first_moves, first_events = _expert_match(b"seed")
    again_moves, again_events = _expert_match(b"seed")
    assert first_moves and first_moves == again_moves
    assert first_events == again_events


def test_a_search_spends_its_playout_budget_exactly() -> None:
    rules = rule_set("federation").with_options({"games_per_set": 1})
    expert = ExpertBot(rules, playouts=25, seed=b"budget")
    spent: list[int] = []

    def watched(view: View, actions: list[SeatCommand]) -> SeatCommand:
        choice = expert.choose(view, actions)
        if expert.last is not None:
            spent.append(expert.last.playouts)
            expert.last = None
        return choice

    play_match(rules, 5, b"expert-budget", [watched] + [StrongerBot(rules) for _ in range(4)])
    assert spent and set(spent) == {25}


def test_a_search_split_into_shares_answers_as_it_does_whole() -> None:
    """Each sample has its own seed: however many processes share a round, a
    playout budget plays the same samples and gives the same answer."""
    requests = searches("uecda", playouts=23)
    assert len(requests) > 5
    with ThreadPoolExecutor(3) as executor:
        for request in requests:
            whole = think(request)
            assert whole.playouts == 23
            for shards in (2, 3, 7):
                assert think(request, shards, executor) == whole


def _check_rollout_policy(preset: str, seed: bytes) -> tuple[int, int]:
    """A match of stronger bots; at every play the rollout policy's answer for the
    seat to act is checked. Returns the follows it played and the passes it chose."""
    rules = rule_set(preset).with_options({"games_per_set": 2})
    bots = [StrongerBot(rules) for _ in range(5)]
    follows = passes = 0

    def watched(view: View, actions: list[SeatCommand]) -> SeatCommand:
        nonlocal follows, passes
        if view.waiting_for == WaitingFor.PLAY and len(actions) > 1:
            position = Table.for_view(view, rules).position(view)
            hand = hand_of(view)
            choice = rollout_decide(position, hand, actions)
            assert choice in actions
            plays = [a for a in actions if isinstance(a, Play)]
            finishes = [p for p in without_forbidden(position, hand, plays) if p.cards == hand]
            if finishes:
                assert choice in finishes  # a finish that counts is taken at once
            elif isinstance(choice, Play) and position.field is not None:
                follows += 1
                jokers = joker_count(choice.cards)
                if jokers and choice.cards.bit_count() > jokers:  # only greedy's last resort
                    kept = without_forbidden(position, hand, plays) or plays
                    assert choice == greedy_follow(kept, position.reversed_order)
            passes += isinstance(choice, Pass)
        return bots[view.seat or 0].choose(view, actions)

    play_match(rules, 5, seed, [watched] * 5)
    return follows, passes


def test_the_rollout_policy_takes_finishes_and_spends_a_joker_in_a_meld_last() -> None:
    follows = passes = 0
    for preset in ("federation", "torasobi", "classic", "uecda"):
        found = _check_rollout_policy(preset, f"rollout/{preset}".encode())
        follows, passes = follows + found[0], passes + found[1]
    assert follows > 20 and passes > 0  # it follows, and holds strong cards back


def test_playouts_end_under_every_rollout_policy() -> None:
    for preset in ("federation", "torasobi", "classic", "uecda"):
        rules = rule_set(preset).with_options({"games_per_set": 1})
        folded = decide_and_fold(initial_state(rules, 5), game_deal(rules, 5, b"rollout", 1))
        assert isinstance(folded, Folded)
        for rollout in Rollout:
            ended, steps = play_out_with(folded.state, None, rollout)
            assert ended.phase != Phase.IN_GAME and steps > 0
            assert sorted(ended.results[-1]) == [1, 2, 3, 4, 5]
