"""What a bot can work out from its seat's view alone: its hand as a mask, the
rules that are public for the table, how likely a meld is to win its trick
against the cards not yet seen, how far a hand is from going out, and the
stronger bot's decision from all that (``Decision``, ``decision_for``).

Nothing here reads a match's hidden cards: every input is a ``View`` (what the
seat may see), the public position it shows (``position_of``: no card in it),
the seat's own hand and the legal actions. What a meld does under the rules is
the engine's own judgment (``service.rules.judging``, ``readings``) of that
position. Compiled with the engine (hatch_build.py): the expert's playouts
decide by ``Decision``.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import Any, Final

from service.rules.cards import (
    JOKER,
    JOKER_BIT,
    JOKER_MASK_BY_COUNT,
    REAL_CARDS,
    SUIT_COUNTS,
    add_cards,
    cards_of,
    joker_count,
    mask_of,
    parse_card,
    rank_count,
    rank_mask,
    remove_cards,
)
from service.rules.commands import Bomb, Discard, Give, Pass, Play, SeatCommand
from service.rules.evolve import runs_counted
from service.rules.judging import (
    FOUR_STOP_RANK,
    FOUR_STOP_SIZE,
    flush_reason,
    four_stop_applies,
    joker_returners,
    number_lock_admits,
    starts_number_lock,
    starts_suit_lock,
    suit_lock_admits,
)
from service.rules.melds import TOP_RANK, Kind, Meld, rank_strength
from service.rules.readings import cuts_eight, finishes_forbidden
from service.rules.rulesets import PRESETS, RuleSet, RuleSetError
from service.rules.state import Position
from service.rules.views import View, position_of
from service.rules.vocabulary import WaitingFor

from .policies import (
    PICKS,
    STEPS_OF_CARDS,
    WINDOWS,
    Effects,
    choose_pick,
    effects_on,
    given_strengths,
    meld_of,
    weakest_cards,
)

MAX_SPLITS: Final = 40  # ways to pick stairs out of one hand that a plan tries at most


# -- reading a view ------------------------------------------------------------


def hand_of(view: View) -> int:
    """The seat's own hand as a mask."""
    return mask_of(parse_card(code) for code in view.hand or ())


# -- the table's rules ---------------------------------------------------------


@dataclass(frozen=True)
class Table:
    """The rules in force at the table: public, as the lobby shows them."""

    rules: RuleSet

    @staticmethod
    def for_view(view: View, rules: RuleSet | None) -> Table:
        """The table's rules: given, else those the view carries, else the preset's."""
        if rules is not None:
            return Table(rules)
        options = tuple(sorted((k, v) for k, v in view.options.items() if k != "preset"))
        try:
            return Table(_rules_of(view.preset, options))
        except TypeError:  # an option whose value cannot be a cache key
            return Table(_rules_of.__wrapped__(view.preset, options))

    def position(self, view: View) -> Position:
        """The public position ``view`` shows, under these rules (it holds no card)."""
        return position_of(view, self.rules)


@functools.lru_cache(maxsize=64)
def _rules_of(preset_name: str, options: tuple[tuple[str, Any], ...]) -> RuleSet:
    """A table's rules from its view (a match's never change: read once, not each turn)."""
    preset = PRESETS.get(preset_name, PRESETS["torasobi"])
    try:
        return preset.with_options(dict(options))
    except RuleSetError:
        return preset  # a newer service's option this client does not know


# -- probabilities -------------------------------------------------------------


def _tail(cards: int, p: float, need: int) -> float:
    """P(Binomial(cards, p) >= need): one less the terms below ``need``, each from
    the one before (``need`` is a meld's size, so there are few)."""
    if need <= 0:
        return 1.0
    if cards < need:
        return 0.0
    q = 1.0 - p
    if q <= 0.0:
        return 1.0
    term = q**cards  # P(none of them)
    below = 0.0
    for i in range(need):
        below += term
        term *= p / q * (cards - i) / (i + 1)
    return max(0.0, 1.0 - below)


@dataclass(frozen=True)
class Weights:
    """The knobs of the evaluation (tuned by bench/bots.py)."""

    per_meld: float = 0.35  # each meld needs a turn of its own
    joker: float = 2.5  # a joker held is worth more than a single that wins
    lead_value: float = 0.7  # winning the trick: we lead the next one
    willing: float = 0.9  # chance an opponent who can beat a play does so
    no_safe_finish: float = 4.0  # a hand with nothing it may finish on
    sure_out: float = 6.0  # a hand that goes out by itself once it leads
    block: float = 0.6  # a play an opponent could go out on
    pass_cost: float = 0.6  # passing gives the trick away
    finish: float = 100.0


class Odds:
    """How likely a meld is to be beaten, from the cards not yet seen and the
    opponents who may still answer. Built per decision; memoised inside."""

    def __init__(
        self, unseen: int, pool: int, opponents: list[int], willing: float, joker_returners: int
    ) -> None:
        self.unseen = unseen
        self.joker_returners = joker_returners  # the cards that beat a single joker
        self.jokers = joker_count(unseen)
        self.willing = willing
        pool = max(pool, 1)
        self.shares = [min(1.0, size / pool) for size in opponents]
        self.unseen_by_rank = [rank_count(unseen, rank) for rank in range(13)]
        # memos keyed by an int packing the arguments: a tuple key's allocation and
        # hash cost more than the lookup they serve
        self._any: dict[int, float] = {}
        self._group: dict[int, list[float]] = {}
        self._stairs: dict[int, float] = {}
        self.joker_holder = self.any_holds(self.jokers, 1)

    def any_holds(self, cards: int, need: int) -> float:
        """P(some opponent holds ``need`` of ``cards`` particular unseen cards)."""
        key = cards << 4 | need  # need: a group's size, at most 4 cards and 2 jokers
        found = self._any.get(key)
        if found is None:
            none = 1.0
            for share in self.shares:
                none *= 1.0 - _tail(cards, share, need)
            found = self._any[key] = 1.0 - none
        return found

    def group_wins(
        self,
        size: int,
        power: int,
        reversed_order: bool,
        lock: int = 0,
        number_lock: bool = False,
    ) -> float:
        """P(a single or group of ``size`` with strength ``power`` is not beaten)."""
        if power >= TOP_RANK:
            if size == 1:
                return 1.0 - self.willing * self.joker_return_threat()
            return 1.0
        if not self.shares:
            return 1.0
        if lock or number_lock or power < 0:
            return self._group_wins(size, power, reversed_order, lock, number_lock)
        key = size << 1 | reversed_order
        table = self._group.get(key)
        if table is None:
            table = self._group[key] = self._group_table(size, reversed_order)
        return table[power]

    def _group_table(self, size: int, reversed_order: bool) -> list[float]:
        """``group_wins`` at every power below the top, in one pass from the
        strongest rank down: the ranks that beat a power are those that beat the
        next one up, and that one's rank."""
        table = [1.0] * TOP_RANK
        product = 1.0
        assist = 0.0
        for power in range(TOP_RANK - 1, -1, -1):
            table[power] = product * self._joker_factor(size, assist)
            rank = rank_strength(power, reversed_order)  # the order is its own inverse
            product, assist = self._beaten_by(self.unseen_by_rank[rank], size, product, assist)
        return table

    def _group_wins(
        self, size: int, power: int, reversed_order: bool, lock: int, number_lock: bool
    ) -> float:
        """``group_wins`` under a suit lock or a number lock: rank by rank."""
        product = 1.0
        assist = 0.0  # some stronger rank one card short, for a joker to fill
        lock_size = lock.bit_count()
        for rank in range(13):
            rank_power = rank_strength(rank, reversed_order)
            if rank_power <= power or (number_lock and not number_lock_admits(rank_power, power)):
                continue
            if lock:
                have = ((self.unseen >> (rank * 4)) & lock).bit_count() if lock_size == size else 0
            else:
                have = self.unseen_by_rank[rank]
            product, assist = self._beaten_by(have, size, product, assist)
        return product * self._joker_factor(size, assist)

    def _beaten_by(
        self, have: int, size: int, product: float, assist: float
    ) -> tuple[float, float]:
        """``product`` and ``assist`` once a stronger rank with ``have`` unseen cards
        that may answer counts: the chance it does not beat, and its help to a joker."""
        if have >= size:
            product *= 1.0 - self.willing * self.any_holds(have, size)
        if self.jokers and size > 1 and have >= size - 1:
            assist = max(assist, self.any_holds(have, size - 1))
        return product, assist

    def _joker_factor(self, size: int, assist: float) -> float:
        """The chance the unseen jokers do not beat: alone, or filling a group."""
        if not self.jokers:
            return 1.0
        if size == 1:
            return 1.0 - self.willing * self.joker_holder
        return 1.0 - self.willing * self.joker_holder * assist

    def joker_return_threat(self) -> float:
        """P(some opponent holds a card that beats a single joker)."""
        returners = (self.unseen & self.joker_returners).bit_count()
        return self.any_holds(returners, 1) if returners else 0.0

    def stairs_wins(self, size: int, meld_low: int, reversed_order: bool, lock: int = 0) -> float:
        """P(stairs of ``size`` from ``meld_low`` are not beaten)."""
        if not self.shares:
            return 1.0
        # a stairs' low may be -1, a joker read below the 3
        key = ((lock << 4 | size) << 4 | meld_low + 1) << 1 | reversed_order
        found = self._stairs.get(key)
        if found is None:
            found = self._stairs[key] = self._stairs_wins(size, meld_low, reversed_order, lock)
        return found

    def _stairs_wins(self, size: int, meld_low: int, reversed_order: bool, lock: int) -> float:
        reach = sum(share**size for share in self.shares)
        beaten = 0.0
        for suit in range(4):
            if lock and not suit_lock_admits(lock, 1 << suit):
                continue
            for low in range(14 - size):
                if reversed_order:
                    if low + size - 1 >= meld_low + size - 1:
                        continue
                elif low <= meld_low:
                    continue
                missing = 0
                for rank in range(low, low + size):
                    if not self.unseen >> (rank * 4 + suit) & 1:
                        missing += 1
                if missing > self.jokers:
                    continue
                beaten += reach
        return max(0.0, 1.0 - self.willing * min(1.0, beaten))


# -- planning a hand ---------------------------------------------------------


@dataclass(frozen=True, init=False)
class Plan:
    """A hand split into melds: its cost (lower is better), whether it holds a
    meld it may finish on, and whether it goes out by itself once it leads."""

    cost: float
    melds: int
    safe: bool
    sure_out: bool

    # written out, so that mypyc compiles it (README.md, Speed)
    def __init__(self, cost: float, melds: int, safe: bool, sure_out: bool) -> None:
        object.__setattr__(self, "cost", cost)
        object.__setattr__(self, "melds", melds)
        object.__setattr__(self, "safe", safe)
        object.__setattr__(self, "sure_out", sure_out)


class Planner:
    """Splits hands into melds (groups by rank, stairs where they help) and
    prices each meld by how likely it is to win its trick. One per decision."""

    def __init__(self, position: Position, odds: Odds, weights: Weights) -> None:
        # a plan's melds are each priced as a lead, on an empty field
        self.lead = position.copy()
        self.lead.field = None
        self.rules = rules = position.rules
        self.in_force = position.in_force
        self.odds = odds
        self.weights = weights
        self.stairs = rules.stairs
        joker = Meld(Kind.SINGLE, JOKER_BIT, 1, TOP_RANK, TOP_RANK, 0, 1)
        self.joker_safe = not self._forbidden(joker, False)
        # memos keyed by an int packing the arguments, as Odds' are
        self._plans: dict[int, Plan] = {}
        self._groups: dict[int, tuple[float, bool, bool]] = {}
        self._stairs: dict[int, tuple[float, bool, bool]] = {}

    # each meld: (cost, safe to finish on, sure to win its trick)

    def group_price(self, rank: int, suits: int, reversed_order: bool) -> tuple[float, bool, bool]:
        key = (rank << 4 | suits) << 1 | reversed_order
        found = self._groups.get(key)
        if found is None:
            size = SUIT_COUNTS[suits]
            kind = Kind.SINGLE if size == 1 else Kind.GROUP
            meld = Meld(kind, suits << (rank * 4), size, rank, rank, suits, 0)
            wins = self.group_lead_wins(meld, reversed_order)
            safe = not self._forbidden(meld, reversed_order)
            cost = self.weights.per_meld + 1.0 - wins
            found = self._groups[key] = (cost, safe, wins >= 0.999)
        return found

    def group_lead_wins(self, meld: Meld, reversed_order: bool) -> float:
        """P(a group of real cards, led, wins its trick): sure when it flushes."""
        if flush_reason(self.lead, meld) is not None:
            if four_stop_applies(self.lead, meld):
                fours = self.odds.unseen_by_rank[FOUR_STOP_RANK]
                return 1.0 - self.odds.any_holds(fours, FOUR_STOP_SIZE)
            return 1.0
        return self.odds.group_wins(
            meld.size, rank_strength(meld.low, reversed_order), reversed_order
        )

    def _forbidden(self, meld: Meld, reversed_order: bool) -> bool:
        """Whether ``meld`` as the last cards would be a forbidden finish in the
        order ``reversed_order`` (docs/RULES.md §2, in each preset's reading)."""
        return finishes_forbidden(
            self.rules, self.in_force, meld, revolution=reversed_order, spade3_return=False
        )

    def joker_price(self) -> tuple[float, bool, bool]:
        wins = self.odds.group_wins(1, TOP_RANK, False)
        weights = self.weights
        cost = weights.per_meld + 1.0 - wins - weights.joker
        return (cost, self.joker_safe, wins >= 0.999)

    def stairs_price(
        self, suit: int, low: int, high: int, reversed_order: bool
    ) -> tuple[float, bool, bool]:
        key = (low << 4 | high) << 1 | reversed_order
        found = self._stairs.get(key)
        if found is None:
            found = self._stairs[key] = self._stairs_price(suit, low, high, reversed_order)
        return found

    def _stairs_price(
        self, suit: int, low: int, high: int, reversed_order: bool
    ) -> tuple[float, bool, bool]:
        # the price is the same in every suit: priced once, in the first one met
        size = high - low + 1
        mask = 0
        for rank in range(low, high + 1):
            mask |= 1 << (rank * 4 + suit)
        meld = Meld(Kind.STAIRS, mask, size, low, high, 1 << suit, 0)
        wins = self.odds.stairs_wins(size, low, reversed_order)
        if cuts_eight(self.rules, self.in_force, meld):
            wins = 1.0
        safe = not self._forbidden(meld, reversed_order)
        cost = self.weights.per_meld + 1.0 - wins
        return (cost, safe, wins >= 0.999)

    def plan(self, hand: int, reversed_order: bool) -> Plan:
        key = hand << 1 | reversed_order
        found = self._plans.get(key)
        if found is None:
            found = self._plans[key] = self._plan(hand, reversed_order)
        return found

    def _plan(self, hand: int, reversed_order: bool) -> Plan:
        if not hand:
            return Plan(0.0, 0, True, True)
        real = hand & REAL_CARDS
        jokers = joker_count(hand)
        base: list[tuple[float, bool, bool]] = [self.joker_price()] * jokers
        runs = self._stairs_candidates(real) if self.stairs else []
        splits = islice(self._disjoint(runs), MAX_SPLITS) if runs else ([],)
        best: Plan | None = None
        for chosen in splits:
            rest = real
            melds = list(base)
            for suit, low, high in chosen:
                for rank in range(low, high + 1):
                    rest &= ~(1 << (rank * 4 + suit))
                melds.append(self.stairs_price(suit, low, high, reversed_order))
            for rank in range(13):
                suits = (rest >> (rank * 4)) & 15
                if suits:
                    melds.append(self.group_price(rank, suits, reversed_order))
            plan = self._score(melds)
            if best is None or plan.cost < best.cost:
                best = plan
        assert best is not None
        return best

    def _score(self, melds: list[tuple[float, bool, bool]]) -> Plan:
        cost = 0.0
        safe = False
        sure = 0
        unsure_safe = True
        for meld_cost, meld_safe, meld_sure in melds:
            cost += meld_cost
            safe = safe or meld_safe
            if meld_sure:
                sure += 1
            elif not meld_safe:
                unsure_safe = False
        count = len(melds)
        sure_out = safe and (count - sure == 0 or (count - sure == 1 and unsure_safe))
        if not safe:
            cost += self.weights.no_safe_finish
        return Plan(cost, count, safe, sure_out)

    @staticmethod
    def _stairs_candidates(real: int) -> list[tuple[int, int, int]]:
        """Every stairs of 3+ real cards of one suit (sub-runs of the runs held)."""
        found: list[tuple[int, int, int]] = []
        if not real & real >> 4 & real >> 8:
            return found  # no card with the next two ranks of its suit: most hands
        for suit in range(4):
            rank = 0
            while rank < 13:
                if real >> (rank * 4 + suit) & 1:
                    end = rank
                    while end + 1 < 13 and real >> ((end + 1) * 4 + suit) & 1:
                        end += 1
                    if end - rank >= 2:
                        for low in range(rank, end - 1):
                            for high in range(low + 2, end + 1):
                                found.append((suit, low, high))
                    rank = end + 1
                else:
                    rank += 1
        return found

    @staticmethod
    def _disjoint(runs: list[tuple[int, int, int]]) -> Iterable[list[tuple[int, int, int]]]:
        """Sets of pairwise disjoint stairs among ``runs``: none first, then
        those led by the longest stairs (the caller stops after a few dozen)."""
        runs = sorted(runs, key=lambda run: run[1] - run[2])
        chosen: list[tuple[int, int, int]] = []

        def walk(start: int) -> Iterable[list[tuple[int, int, int]]]:
            yield list(chosen)
            for index in range(start, len(runs)):
                suit, low, high = runs[index]
                if any(s == suit and low <= top and bottom <= high for s, bottom, top in chosen):
                    continue
                chosen.append(runs[index])
                yield from walk(index + 1)
                chosen.pop()

        return walk(0)


# -- one decision -------------------------------------------------------------


def locks_after(position: Position, meld: Meld) -> tuple[int, bool]:
    """The suit lock and the number lock in force once ``meld`` is played on
    ``position``: the engine counts the play's runs, and judges whether they lock."""
    after = runs_counted(position, meld)
    suits = after.suit_lock or (after.suit_run_suits if starts_suit_lock(after) else 0)
    return suits, after.number_lock or starts_number_lock(after)


class Decision:
    """The stronger bot's decision (``clients.bots.StrongerBot``), from what its seat
    may see: the public ``position``, its ``hand``, the hand ``sizes`` and the cards
    it knows are out of play (``out``, real cards; ``jokers_out``). It works out
    once the unseen cards, the odds against the opponents and the plan of the hand
    now. The expert's playouts decide by it too (``clients.playouts``)."""

    def __init__(
        self,
        position: Position,
        hand: int,
        seat: int,
        sizes: Sequence[int],
        out: int,
        jokers_out: int,
        weights: Weights,
    ) -> None:
        self.position = position
        self.rules = rules = position.rules
        self.weights = weights
        self.hand = hand
        self.me = seat
        self.sizes = sizes
        jokers_left = max(0, rules.jokers - joker_count(hand) - jokers_out)
        self.unseen = (REAL_CARDS & ~hand & ~out) | JOKER_MASK_BY_COUNT[min(2, jokers_left)]
        self.pool = self.unseen.bit_count()
        active = position.active
        self.opponents = [
            other
            for other in range(position.players)
            if other != seat and active >> other & 1 and sizes[other] > 0
        ]
        self.joker_returners = joker_returners(position)
        self._odds: dict[tuple[int, ...], Odds] = {}
        self.odds = self.odds_for(self.opponents)
        self.planner = Planner(position, self.odds, weights)
        self.base_order = position.revolution

    def decide(self, actions: Sequence[SeatCommand]) -> SeatCommand:
        """The action to take among ``actions``, those of the step the position waits for."""
        waiting = self.position.waiting_for
        if waiting in WINDOWS:
            return next((a for a in actions if isinstance(a, Play)), actions[0])
        if waiting in PICKS:
            return choose_pick(self.position, actions)
        if waiting == WaitingFor.QUEEN_BOMBER:
            return self.bomb(actions)
        if waiting in STEPS_OF_CARDS:
            return self.give(actions)
        return self.play(actions)

    def ranked(self, actions: Sequence[SeatCommand]) -> list[SeatCommand]:
        """``actions`` best first: plays and the pass by their value, gives and discards
        by the hand they leave; at any other step (a window, a pick, a bomb) this bot's
        choice, then the rest in their order."""
        waiting = self.position.waiting_for
        if waiting == WaitingFor.PLAY:
            ranked = self.ranked_plays(actions)
        elif waiting in STEPS_OF_CARDS:
            ranked = self.ranked_gives(actions)
        else:
            choice = self.decide(actions)
            ranked = [choice, *(action for action in actions if action != choice)]
        return ranked or [actions[0]]

    def odds_for(self, seats: list[int]) -> Odds:
        key = tuple(seats)
        found = self._odds.get(key)
        if found is None:
            sizes = [self.sizes[seat] for seat in seats]
            found = self._odds[key] = Odds(
                self.unseen, self.pool, sizes, self.weights.willing, self.joker_returners
            )
        return found

    def plan(self, hand: int, reversed_order: bool) -> Plan:
        return self.planner.plan(hand, reversed_order)

    # -- gives, discards, bombs ---------------------------------------------

    def give(self, actions: Sequence[SeatCommand]) -> SeatCommand:
        ranked = self.ranked_gives(actions)
        return ranked[0] if ranked else actions[0]

    def ranked_gives(self, actions: Sequence[SeatCommand]) -> list[SeatCommand]:
        """The gives and discards among ``actions``, best first: the hand left plans
        cheapest, then the weakest cards go (equals in their order)."""
        cards = [a for a in actions if isinstance(a, Give | Discard)]
        if len(cards) > 60:
            cards = self._shortlist(cards)
        order = self.base_order

        def value(action: Give | Discard) -> tuple[float, tuple[int, ...]]:
            left = remove_cards(self.hand, action.cards)
            weakest = tuple(-s for s in given_strengths(action.cards, order))
            return (-self.plan(left, order).cost, weakest)

        return [*sorted(cards, key=value, reverse=True)]

    def _shortlist(self, cards: list[Give | Discard]) -> list[Give | Discard]:
        """Only the gives made of the cards whose loss costs the hand least."""
        count = cards[0].cards.bit_count()
        base = self.plan(self.hand, self.base_order).cost
        scored = []
        for card in set(cards_of(self.hand)):
            left = remove_cards(self.hand, mask_of((card,)))
            scored.append((base - self.plan(left, self.base_order).cost, card))
        scored.sort(reverse=True)
        keep = 0
        jokers = 0
        for _, card in scored[: count + 3]:
            if card == JOKER:
                jokers = joker_count(self.hand)
            else:
                keep |= 1 << card
        short = [
            a
            for a in cards
            if not (a.cards & REAL_CARDS & ~keep) and joker_count(a.cards) <= jokers
        ]
        return short or cards

    def bomb(self, actions: Sequence[SeatCommand]) -> SeatCommand:
        bombs = [a for a in actions if isinstance(a, Bomb)]
        if not bombs:
            return actions[0]
        count = len(bombs[0].ranks)
        order = self.base_order
        base = self.plan(self.hand, order).cost
        scores = []
        for rank in range(13):
            mine = self.hand & rank_mask(rank)
            gain = base - self.plan(self.hand & ~mine, order).cost if mine else 0.0
            theirs = self.odds.unseen_by_rank[rank] * (rank_strength(rank, order) - 6) / 6 * 0.3
            scores.append((gain + theirs, rank))
        scores.sort(reverse=True)
        wanted = tuple(sorted(rank for _, rank in scores[:count]))
        return next((b for b in bombs if tuple(b.ranks) == wanted), bombs[0])

    # -- plays -------------------------------------------------------------

    def play(self, actions: Sequence[SeatCommand]) -> SeatCommand:
        ranked = self.ranked_plays(actions)
        return ranked[0] if ranked else actions[0]

    def ranked_plays(self, actions: Sequence[SeatCommand]) -> list[SeatCommand]:
        """The plays and the pass among ``actions``, best first (equals in their order)."""
        trick_order = self.position.reversed_order
        lead = self.position.field is None
        valued: list[tuple[int, int, SeatCommand]] = []
        for index, action in enumerate(actions):
            if isinstance(action, Pass):
                if lead:  # a leader's pass (uecda) only hands the lead on
                    continue
                value = -self.plan(self.hand, self.base_order).cost - self.weights.pass_cost
            elif isinstance(action, Play):
                meld = meld_of(action.cards, action.jokers_as, trick_order)
                if meld is None:
                    continue
                value = self._play_value(meld, lead, trick_order)
            else:
                continue
            # to 1e-9, so that equals keep their order: round() by ndigits formats the float
            valued.append((round(value * 1e9), -index, action))
        valued.sort(key=lambda item: (item[0], item[1]), reverse=True)
        return [action for _, _, action in valued]

    def _play_value(self, meld: Meld, lead: bool, trick_order: bool) -> float:
        weights = self.weights
        effects = effects_on(self.position, meld, self.hand)
        if effects.finishes:
            return -weights.finish if effects.forbidden else weights.finish
        if effects.great_revolution:
            return weights.finish
        base_order = self.base_order != effects.revolts
        after_order = trick_order ^ effects.revolts ^ effects.eleven_strength
        left = remove_cards(self.hand, meld.mask)
        shed = effects.sevens + effects.tens
        if shed:
            left = remove_cards(left, weakest_cards(left, shed, base_order))
            if not left:
                return weights.finish * 0.5
        plan = self.plan(left, base_order)
        wins = self._trick_odds(meld, effects, lead, after_order)
        value = -plan.cost + weights.lead_value * wins
        if plan.sure_out:
            value += weights.sure_out * wins
        if effects.lucky_seven:
            value = wins * weights.finish * 0.5 + (1 - wins) * value
        if wins < 1.0 and self._someone_goes_out_on(meld, lead):
            value -= weights.block * (1.0 - wins)
        # among equals: fewer jokers, weaker cards
        value -= 0.05 * meld.jokers + 0.001 * meld.strength(trick_order)
        return value

    def _responders(self, lead: bool) -> list[int]:
        if lead or self.rules.passed_may_play_again:
            return self.opponents
        passed = self.position.passed
        return [seat for seat in self.opponents if not passed >> seat & 1]

    def _someone_goes_out_on(self, meld: Meld, lead: bool) -> bool:
        sizes = self.sizes
        return any(sizes[seat] == meld.size for seat in self._responders(lead))

    def _trick_odds(self, meld: Meld, effects: Effects, lead: bool, order: bool) -> float:
        """P(nobody beats this play, so we lead next)."""
        if effects.flushes:
            if effects.four_stop:
                fours = self.odds.unseen_by_rank[FOUR_STOP_RANK]
                return 1.0 - self.odds.any_holds(fours, FOUR_STOP_SIZE)
            return 1.0
        responders = self._responders(lead)
        if not responders:
            return 1.0
        odds = self.odds_for(responders)
        if meld.kind == Kind.EMPEROR:
            return 1.0
        lock, number_lock = locks_after(self.position, meld)
        if meld.kind == Kind.STAIRS:
            return odds.stairs_wins(meld.size, meld.low, order, lock)
        return odds.group_wins(meld.size, meld.strength(order), order, lock, number_lock)


def decision_for(
    position: Position, hand: int, seat: int, sizes: Sequence[int], weights: Weights
) -> Decision:
    """``seat``'s decision, with every card on the field or in the discard pile
    counted out of play: they are public, so every seat has seen them leave."""
    gone = add_cards(position.pile, position.trick)
    return Decision(
        position, hand, seat, sizes, gone & REAL_CARDS, min(2, joker_count(gone)), weights
    )
