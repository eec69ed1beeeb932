"""Game-playing bots. Each sees only its seat's ``View`` and the legal actions
(what a bot gets over the network API) and returns one of those actions.

* ``RandomBot``: uniform among the legal actions.
* ``GreedyBot``: the classic baseline: lead the weakest rank (as many of its
  cards as one meld holds), follow with the weakest meld that beats the field,
  give and discard the weakest cards.
* ``StrongerBot``: plans its hand as melds priced by how likely each is to win
  its trick against the cards it cannot see (neither in its hand, on the field
  nor in the discard pile), keeps what it may finish on for the end, weighs
  revolutions, locks and flushes, and passes rather than break its hand up. It
  remembers nothing between views, so the expert's playouts decide as it does.

A bot is a policy for ``service.app.selfplay.play_match`` as it stands (it is
callable). Use one bot per seat; ``reset()`` forgets the previous match.
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable, Sequence

from service.rules.commands import SeatCommand
from service.rules.rulesets import RuleSet
from service.rules.state import Position
from service.rules.views import View

from .policies import greedy_decide
from .strategy import Decision, Table, Weights, decision_for, hand_of


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

    def choose(self, view: View, actions: Sequence[SeatCommand]) -> SeatCommand:
        return self.ranked(view, actions, 1)[0]

    def ranked(self, view: View, actions: Sequence[SeatCommand], most: int) -> list[SeatCommand]:
        """Up to ``most`` of ``actions``, best first by this bot's valuation
        (``Decision.ranked``)."""
        if len(actions) == 1:
            return [actions[0]]
        try:
            return self._decision(view).ranked(actions)[:most]
        except Exception:  # a bot must always answer; fall back to the baseline
            if not self.safe:
                raise
            return [GreedyBot().choose(view, actions)]

    def _decision(self, view: View) -> Decision:
        position = Table.for_view(view, self.rules).position(view)
        seat = view.seat if view.seat is not None else -1
        return decision_for(position, hand_of(view), seat, view.hand_sizes, self.weights)


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
