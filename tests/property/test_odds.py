"""The stronger bot's sums (``clients.strategy``) against their definitions.

``Odds.group_wins`` reads a table built in one pass from the strongest rank down,
and must agree with counting rank by rank, as the odds under a lock still do.
``_tail`` adds the binomial's terms below ``need``, each from the one before, and
must agree with the tail summed from ``math.comb``. ``Planner._stairs_candidates``
passes a hand with no three cards in a row by, and must still find every stairs.
"""

from __future__ import annotations

from math import comb

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clients.strategy import Odds, Planner, _tail
from service.rules.cards import JOKER_MASK_BY_COUNT, REAL_CARDS
from service.rules.melds import TOP_RANK

from ._support import examples

unseen_cards = st.builds(
    lambda real, jokers: real | JOKER_MASK_BY_COUNT[jokers],
    st.integers(0, REAL_CARDS),
    st.integers(0, 2),
)


@settings(max_examples=examples(200))
@given(
    unseen=unseen_cards,
    opponents=st.lists(st.integers(0, 20), max_size=4),
    willing=st.floats(0.0, 1.0),
    returners=st.integers(0, REAL_CARDS),
)
def test_the_one_pass_table_agrees_with_counting_rank_by_rank(
    unseen: int, opponents: list[int], willing: float, returners: int
) -> None:
    odds = Odds(unseen, unseen.bit_count(), opponents, willing, returners)
    for size in range(1, 7):
        for power in range(TOP_RANK):
            for reversed_order in (False, True):
                by_rank = odds._group_wins(size, power, reversed_order, 0, False)
                assert odds.group_wins(size, power, reversed_order) == pytest.approx(
                    by_rank, abs=1e-12
                ), (size, power, reversed_order)


@settings(max_examples=examples(300))
@given(cards=st.integers(0, 16), p=st.floats(0.0, 1.0), need=st.integers(-1, 8))
def test_the_tail_is_the_binomial_s(cards: int, p: float, need: int) -> None:
    q = 1.0 - p
    summed = sum(comb(cards, i) * p**i * q ** (cards - i) for i in range(max(need, 0), cards + 1))
    assert _tail(cards, p, need) == pytest.approx(summed, abs=1e-12)


@settings(max_examples=examples(300))
@given(real=st.integers(0, REAL_CARDS))
def test_every_stairs_of_three_or_more_is_a_candidate(real: int) -> None:
    held = [
        (suit, low, high)
        for suit in range(4)
        for low in range(13)
        for high in range(low + 2, 13)
        if all(real >> (rank * 4 + suit) & 1 for rank in range(low, high + 1))
    ]
    assert Planner._stairs_candidates(real) == held
