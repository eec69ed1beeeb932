"""The expert bot: with a seed and a budget in playouts its moves repeat exactly,
and every move is one of the legal actions it was offered."""

from __future__ import annotations

import random
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

from clients.bots import StrongerBot
from clients.expert import (
    D3,
    ExpertBot,
    Halving,
    Memory,
    Request,
    Search,
    Tally,
    play_share,
    think,
)
from clients.playouts import Rollout, play_out_with
from clients.policies import greedy_follow, rollout_decide, without_forbidden
from clients.strategy import Table, hand_of
from service.app.selfplay import play_match, random_policy
from service.match.shuffle import game_deal
from service.rules import rule_set
from service.rules.cards import joker_count
from service.rules.commands import Pass, Play, SeatCommand
from service.rules.decider import Folded, decide_and_fold
from service.rules.legal import legal_actions
from service.rules.state import initial_state
from service.rules.views import View, Viewer, build_view
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


def _paired(request: Request, pairs: dict[int, list[int]]) -> Halving:
    """A search's tallies where candidate ``c`` placed ``pairs[c]`` places worse than
    the first (negative: better) on the same samples, the first always 3rd."""
    halving = Halving(request, 1)
    count = len(request.candidates)
    totals, counts = [0.0] * count, [0] * count
    differences, squares, paired = [0.0] * count, [0.0] * count, [0] * count
    for candidate, found in pairs.items():
        totals[candidate] = sum(3 + d for d in found)
        counts[candidate] = paired[candidate] = len(found)
        differences[candidate] = sum(found)
        squares[candidate] = sum(d * d for d in found)
    halving.add([Tally(*map(tuple, (totals, counts, differences, squares, paired)), 0, 0, 0)])
    return halving


def test_a_candidate_beats_the_stronger_bot_s_choice_only_by_enough_standard_errors() -> None:
    request = next(r for r in searches("torasobi") if len(r.candidates) >= 3)
    request = replace(request, search=Search(Rollout.STRONGER, confidence=1.0))
    first = [0] * 10
    # 1: better by 0.6 places, standard error 0.16; 2: by 0.7, standard error 0.82
    clear, lucky = [-1] * 6 + [0] * 4, [-8, 1] + [0] * 8
    halving = _paired(request, {0: first, 1: clear, 2: lucky})
    assert halving.thought().choice == request.candidates[1]
    # 2's mean place is the best, but a single sample makes it: the first stays
    halving = _paired(request, {0: first, 2: lucky})
    assert halving.thought().means[2] < halving.thought().means[0] - 0.15
    assert halving.thought().choice == request.candidates[0]
    strict = replace(request, search=Search(Rollout.STRONGER, confidence=4.0))
    assert _paired(strict, {0: first, 1: clear}).thought().choice == request.candidates[0]


def test_the_stronger_bot_s_choice_is_played_out_to_the_last_round() -> None:
    for request in searches("uecda", playouts=60)[:8]:
        request = replace(request, search=Search(Rollout.STRONGER, confidence=1.0))
        halving = Halving(request, 1)
        while (shares := halving.next_round()) is not None:
            assert 0 in halving.alive
            halving.add([play_share(share) for share in shares])
        assert halving.pairs[0] == halving.counts[0] > 0  # against itself: every sample


LOCAL_STEPS = {"queen_bomber": True, "four_stop": True, "eight_cut_return": True,
               "salvage": True, "ten_discard": True, "seven_pass": True}  # fmt: skip


def test_every_step_with_a_choice_is_searched_the_stronger_bot_s_choice_first() -> None:
    """A give, a discard, an answer window, a pick or a bomb is searched as a play is:
    the candidates are the stronger bot's choice and others of the legal actions, and
    the search answers one of them."""
    rules = rule_set("classic").with_options({"games_per_set": 2, **LOCAL_STEPS})
    expert = ExpertBot(rules, playouts=12, seed=b"steps")
    stronger = StrongerBot(rules)
    searched: set[WaitingFor] = set()

    def watched(view: View, actions: list[SeatCommand]) -> SeatCommand:
        request, _, _ = expert.request(view, actions)
        if len(actions) > 1:
            assert request is not None
            assert request.candidates[0] == stronger.choose(view, actions)
            assert len(set(request.candidates)) == len(request.candidates) > 1
            assert set(request.candidates) <= set(actions)
            assert view.waiting_for is not None
            if view.waiting_for not in searched:
                assert think(request).choice in request.candidates
            searched.add(view.waiting_for)
        return stronger.choose(view, actions)

    for deal in range(6):
        play_match(rules, 4, f"expert-steps/{deal}".encode(), [watched] * 4)
    assert searched == {
        WaitingFor.PLAY, WaitingFor.EXCHANGE, WaitingFor.QUEEN_BOMBER, WaitingFor.FOUR_STOP,
        WaitingFor.EIGHT_CUT_RETURN, WaitingFor.SALVAGE, WaitingFor.TEN_DISCARD,
        WaitingFor.SEVEN_PASS,
    }  # fmt: skip


def test_the_seat_the_first_lead_went_to_is_known_to_hold_the_three_of_diamonds() -> None:
    """The first lead goes to the holder of ♢3 (the weakest card, every card dealt):
    in each game of uecda (after the exchange) and in a set's first game elsewhere.
    Until it is played, every other seat's knowledge puts it in that seat's hand, and
    (but for a ♢3 the seat gave it) only then: not in the exchange, nor in a later
    game led by someone else."""
    told = 0
    for preset in ("uecda", "torasobi", "federation"):
        rules = rule_set(preset).with_options({"games_per_set": 3})
        # random play: a stronger bot leads its ♢3 at once, and then there is nothing to tell
        choose = random_policy(random.Random(preset))
        memories = [Memory() for _ in range(5)]
        state = initial_state(rules, 5)
        while state.phase != Phase.MATCH_OVER:
            if state.phase != Phase.IN_GAME:
                deck = game_deal(rules, 5, b"d3-" + preset.encode(), state.game_number + 1)
                folded = decide_and_fold(state, deck)
                assert isinstance(folded, Folded)
                state = folded.state
                continue
            seat = state.turn
            assert seat is not None
            view = build_view(state, Viewer.of_seat(seat))
            position = Table.for_view(view, rules).position(view)
            memories[seat].observe(view, position)
            knowledge = memories[seat].knowledge(view, position)
            leader = state.leader
            gave_it = memories[seat].gave.get(leader, 0) & D3  # known from its own give
            if leader != seat and not gave_it:
                first_lead = state.game_number == 1 or rules.d3_leads_every_game
                expected = (
                    first_lead
                    and not state.exchange_steps
                    and bool(state.hands[leader] & D3)  # held, unplayed: then unseen here
                )
                assert bool(knowledge.known[leader] & D3) == expected
                told += expected
            action = choose(view, legal_actions(state))
            memories[seat].chose(view, position, action)
            folded = decide_and_fold(state, action)
            assert isinstance(folded, Folded)
            state = folded.state
    assert told > 30
