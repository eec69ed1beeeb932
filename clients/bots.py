"""Game-playing bots. Each sees only its seat's ``View`` and the legal actions
(what a bot gets over the network API) and returns one of those actions.

* ``RandomBot``: uniform among the legal actions.
* ``GreedyBot``: the classic baseline: lead the weakest rank (as many of its
  cards as one meld holds), follow with the weakest meld that beats the field,
  give and discard the weakest cards.
* ``StrongerBot``: plans its hand as melds priced by how likely each is to win
  its trick (from the cards it has not seen yet), keeps what it may finish on
  for the end, weighs revolutions, locks and flushes, and passes rather than
  break its hand up.

A bot is a policy for ``service.app.selfplay.play_match`` as it stands (it is
callable). Use one bot per seat; ``reset()`` forgets the previous match.
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable, Sequence

from service.rules.cards import (
    JOKER,
    JOKER_MASK_BY_COUNT,
    REAL_CARDS,
    cards_of,
    joker_count,
    mask_of,
    rank_mask,
    remove_cards,
)
from service.rules.commands import Bomb, Discard, Give, Pass, Play, SeatCommand
from service.rules.evolve import runs_counted
from service.rules.judging import (
    FOUR_STOP_RANK,
    FOUR_STOP_SIZE,
    joker_returners,
    starts_number_lock,
    starts_suit_lock,
)
from service.rules.melds import Kind, Meld
from service.rules.rulesets import RuleSet
from service.rules.state import Position
from service.rules.views import View
from service.rules.vocabulary import WaitingFor

from .policies import (
    PICKS,
    STEPS_OF_CARDS,
    WINDOWS,
    Effects,
    choose_pick,
    effects_on,
    given_strengths,
    greedy_decide,
    meld_of,
    weakest_cards,
)
from .strategy import Odds, Plan, Planner, Table, Tracker, Weights, hand_of, strength


class Bot:
    """A policy with memory: ``choose`` one of ``actions`` from ``view``."""

    name = "bot"

    def choose(self, view: View, actions: Sequence[SeatCommand]) -> SeatCommand:
        raise NotImplementedError

    def decide(self, position: Position, hand: int, actions: Sequence[SeatCommand]) -> SeatCommand:
        """``choose`` from the public position and the seat's own hand, with no view
        built (the expert's playouts): for the bots that need nothing more."""
        raise NotImplementedError

    def reset(self) -> None:
        """Forget everything remembered from an earlier match."""

    def __call__(self, view: View, actions: Sequence[SeatCommand]) -> SeatCommand:
        return self.choose(view, actions)


# -- random ---------------------------------------------------------------------


class RandomBot(Bot):
    name = "random"

    def __init__(self, seed: int | str | bytes | None = 0) -> None:
        self.seed = seed
        self.rng = random.Random(seed)

    def reset(self) -> None:
        self.rng = random.Random(self.seed)

    def choose(self, view: View, actions: Sequence[SeatCommand]) -> SeatCommand:
        return actions[self.rng.randrange(len(actions))]

    def decide(self, position: Position, hand: int, actions: Sequence[SeatCommand]) -> SeatCommand:
        return actions[self.rng.randrange(len(actions))]


# -- greedy ---------------------------------------------------------------------


class GreedyBot(Bot):
    """The classic baseline (``policies.greedy_decide``). ``avoid_forbidden`` (off by
    default) makes it refuse, when it has another choice, a forbidden finishing play
    and a play that leaves it only cards it may not finish on."""

    name = "greedy"

    def __init__(self, avoid_forbidden: bool = False, rules: RuleSet | None = None) -> None:
        self.avoid_forbidden = avoid_forbidden
        self.rules = rules

    def choose(self, view: View, actions: Sequence[SeatCommand]) -> SeatCommand:
        if len(actions) == 1:
            return actions[0]
        position = Table.for_view(view, self.rules).position(view)
        return greedy_decide(position, hand_of(view), actions, self.avoid_forbidden)

    def decide(self, position: Position, hand: int, actions: Sequence[SeatCommand]) -> SeatCommand:
        return greedy_decide(position, hand, actions, self.avoid_forbidden)


def locks_after(position: Position, meld: Meld) -> tuple[int, bool]:
    """The suit lock and the number lock in force once ``meld`` is played on
    ``position``: the engine counts the play's runs, and judges whether they lock."""
    after = runs_counted(position, meld)
    suits = after.suit_lock or (after.suit_run_suits if starts_suit_lock(after) else 0)
    return suits, after.number_lock or starts_number_lock(after)


# -- stronger -------------------------------------------------------------------


class StrongerBot(Bot):
    """Plans its hand and prices each action by the hand it leaves behind.

    ``rules``: the table's rule set (public); without it the preset's defaults
    are assumed. ``safe``: on an internal error, fall back to a legal action
    rather than raise (tests turn it off).
    """

    name = "stronger"

    def __init__(
        self,
        rules: RuleSet | None = None,
        weights: Weights | None = None,
        safe: bool = True,
    ) -> None:
        self.rules = rules
        self.weights = weights or Weights()
        self.safe = safe
        self.trackers: dict[int, Tracker] = {}
        self._last_total: dict[int, int] = {}

    def reset(self) -> None:
        self.trackers = {}
        self._last_total = {}

    def choose(self, view: View, actions: Sequence[SeatCommand]) -> SeatCommand:
        return self.noted(view, self.ranked(view, actions, 1)[0])

    def ranked(self, view: View, actions: Sequence[SeatCommand], most: int) -> list[SeatCommand]:
        """Up to ``most`` of ``actions``, best first by this bot's valuation (a play or
        a pass; any other step has its one choice). Call ``noted`` with the action
        taken, to remember it."""
        tracker = self._tracker(view)
        tracker.observe(view)
        if len(actions) == 1:
            return [actions[0]]
        try:
            if view.waiting_for == WaitingFor.PLAY and most > 1:
                table = Table.for_view(view, self.rules)
                ranked = _Decision(view, table, tracker, self.weights).ranked_plays(actions)
                return ranked[:most] or [actions[0]]
            return [self._decide(view, actions, tracker)]
        except Exception:  # a bot must always answer; fall back to the baseline
            if not self.safe:
                raise
            return [GreedyBot().choose(view, actions)]

    def noted(self, view: View, choice: SeatCommand) -> SeatCommand:
        """Remember the cards ``choice`` puts out of play (it is this seat's action)."""
        tracker = self._tracker(view)
        if isinstance(choice, Play | Discard):
            tracker.remember(choice.cards)
        elif isinstance(choice, Bomb):
            tracker.bombed(choice.ranks)
        return choice

    def _tracker(self, view: View) -> Tracker:
        seat = view.seat if view.seat is not None else -1
        total = sum(view.hand_sizes)
        tracker = self.trackers.get(seat)
        if tracker is None or total > self._last_total.get(seat, 0):
            tracker = self.trackers[seat] = Tracker()  # a new game was dealt
        self._last_total[seat] = total
        return tracker

    # -- one decision ---------------------------------------------------------

    def _decide(self, view: View, actions: Sequence[SeatCommand], tracker: Tracker) -> SeatCommand:
        waiting = view.waiting_for
        if waiting in WINDOWS:
            return next((a for a in actions if isinstance(a, Play)), actions[0])
        table = Table.for_view(view, self.rules)
        if waiting in PICKS:
            return choose_pick(table.position(view), actions)
        decision = _Decision(view, table, tracker, self.weights)
        if waiting == WaitingFor.QUEEN_BOMBER:
            return decision.bomb(actions)
        if waiting in STEPS_OF_CARDS:
            return decision.give(actions)
        return decision.play(actions)


class _Decision:
    """Everything one decision works out once: the hand, the unseen cards, the
    odds against the opponents, the plan of the hand now."""

    def __init__(self, view: View, table: Table, tracker: Tracker, weights: Weights) -> None:
        self.view = view
        self.table = table
        self.position = position = table.position(view)
        self.weights = weights
        self.hand = hand_of(view)
        self.me = view.seat if view.seat is not None else -1
        jokers_left = max(0, table.rules.jokers - joker_count(self.hand) - tracker.jokers_out)
        self.unseen = (REAL_CARDS & ~self.hand & ~tracker.out) | JOKER_MASK_BY_COUNT[
            min(2, jokers_left)
        ]
        self.pool = self.unseen.bit_count()
        self.opponents = [
            seat for seat in view.active if seat != self.me and view.hand_sizes[seat] > 0
        ]
        self.joker_returners = joker_returners(position)
        self._odds: dict[tuple[int, ...], Odds] = {}
        self.odds = self.odds_for(self.opponents)
        self.planner = Planner(position, self.odds, weights)
        self.base_order = view.revolution

    def odds_for(self, seats: list[int]) -> Odds:
        key = tuple(seats)
        found = self._odds.get(key)
        if found is None:
            sizes = [self.view.hand_sizes[seat] for seat in seats]
            found = self._odds[key] = Odds(
                self.unseen, self.pool, sizes, self.weights.willing, self.joker_returners
            )
        return found

    def plan(self, hand: int, reversed_order: bool) -> Plan:
        return self.planner.plan(hand, reversed_order)

    # -- gives, discards, bombs ---------------------------------------------

    def give(self, actions: Sequence[SeatCommand]) -> SeatCommand:
        cards = [a for a in actions if isinstance(a, Give | Discard)]
        if not cards:
            return actions[0]
        if len(cards) > 60:
            cards = self._shortlist(cards)
        order = self.base_order

        def value(action: Give | Discard) -> tuple[float, tuple[int, ...]]:
            left = remove_cards(self.hand, action.cards)
            weakest = tuple(-s for s in given_strengths(action.cards, order))
            return (-self.plan(left, order).cost, weakest)

        return max(cards, key=value)

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
            theirs = self.odds.unseen_by_rank[rank] * (strength(rank, order) - 6) / 6 * 0.3
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
        view = self.view
        trick_order = self.position.reversed_order
        lead = view.field is None
        now = self.plan(self.hand, self.base_order)
        valued: list[tuple[float, int, SeatCommand]] = []
        for index, action in enumerate(actions):
            if isinstance(action, Pass):
                if lead:  # a leader's pass (uecda) only hands the lead on
                    continue
                value = -now.cost - self.weights.pass_cost
            elif isinstance(action, Play):
                meld = meld_of(action.cards, action.jokers_as, trick_order)
                if meld is None:
                    continue
                value = self._play_value(meld, lead, trick_order)
            else:
                continue
            valued.append((round(value, 9), -index, action))
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
        if lead or not self.table.holds_passes:
            return self.opponents
        passed = set(self.view.passed)
        return [seat for seat in self.opponents if seat not in passed]

    def _someone_goes_out_on(self, meld: Meld, lead: bool) -> bool:
        sizes = self.view.hand_sizes
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


__all__ = ["Bot", "GreedyBot", "RandomBot", "StrongerBot"]


# what the service seats: a bot's choice now, or (the expert) one awaited off its loop
SeatPolicy = Callable[[View, Sequence[SeatCommand]], SeatCommand | Awaitable[SeatCommand]]


def bot_of_kind(kind: str, rules: RuleSet) -> SeatPolicy:
    """A fresh bot of a named kind (``random``, ``greedy``, ``stronger``, ``expert``)
    for a match with these rules: the bots the service seats itself."""
    match kind:
        case "random":
            return RandomBot(random.getrandbits(64))
        case "greedy":
            return GreedyBot(avoid_forbidden=True, rules=rules)
        case "stronger":
            return StrongerBot(rules)
        case "expert":
            from .expert import OffLoopExpert  # the expert is built on these bots

            return OffLoopExpert(rules)
        case _:
            raise ValueError(f"no bot {kind!r}")
