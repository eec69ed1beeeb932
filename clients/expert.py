"""The expert bot: determinized Monte Carlo search (perfect-information Monte Carlo
over samples of the information set; Cowling, Powley and Whitehouse 2012).

For each decision it deals the cards it cannot see at random, in every way
consistent with what its seat saw (``Knowledge``): its own hand, every card on
the field or in the public discard pile, the hand sizes, the cards it gave in the
exchange (still in the receiver's hand unless played since) and what the rules
imply: the lower player's give in the exchange being its strongest cards, and the
first lead going to the holder of ♢3, which it keeps until it plays it. Each
candidate action is then played out on every sample to the end of the game, every
seat deciding as the stronger bot does (``clients.playouts``, compiled), the same
samples for every candidate. The stronger bot's own choice is played unless
another's places were lower on the same samples by a clear margin (``CONFIDENCE``
standard errors of the difference); a preset's points are a fixed amount less the
place, so the best place is the best points too.

A passed seat is not read as lacking the cards to beat the field: a pass is a
choice in every preset, never forced, so it rules no card out.

Thinking time is a budget in ms or in playouts; with a seed and a playout budget
the moves repeat exactly. A search's rounds are cut into shares (``play_share``,
a plain function of plain data), so the service plays them in a process pool, one
share a worker (``think_in_pool``, ``OffLoopExpert``), never on its loop.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import math
import multiprocessing
import os
import random
import time
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any, TypeVar

from service.rules import commands, decider, events, melds, refusals, rulesets
from service.rules.cards import (
    JOKER,
    JOKER_BIT,
    REAL_CARDS,
    add_cards,
    cards_of,
    mask_of,
    remove_cards,
)
from service.rules.commands import Give, SeatCommand
from service.rules.dealing import deck_for, exchange_pairs
from service.rules.rulesets import RuleSet
from service.rules.state import POSITION_FIELDS, MatchState, Position, initial_state
from service.rules.views import View
from service.rules.vocabulary import LocalRule, WaitingFor

from . import pickling
from .bots import Bot, StrongerBot
from .playouts import PlayoutError, Rollout, apply, place_after, play_out_with
from .policies import card_strength
from .strategy import Table, hand_of
from .workers import end_with_parent

log = logging.getLogger("daifugo.expert")
# what the pool's requests and answers carry: the modules mypyc compiles (hatch_build.py)
# that hold frozen dataclasses
pickling.by_constructor(commands, decider, events, melds, refusals, rulesets)
T = TypeVar("T")

# local rules that move cards between hands out of this seat's sight after the deal
# (gives it does not see, picks from the pile, swapped hands): with one in force, a
# give's or the exchange's knowledge may no longer hold, so it is not used
UNSEEN_MOVES = frozenset(
    {
        LocalRule.SEVEN_PASS,
        LocalRule.KING_PASTOR,
        LocalRule.TENPENCHI,
        LocalRule.SALVAGE,
        LocalRule.KINGS_MARCH,
        LocalRule.ZOMBIE,
    }
)
CANDIDATES = 5  # actions searched: the stronger bot's best few (a lead may have dozens)
DEFAULT_MS = 100
# how clearly a candidate must beat the stronger bot's choice: by this many standard
# errors of their places' difference on the same samples. The playouts' noise (a few
# dozen a candidate at 100 ms) otherwise picks a worse play as often as not
CONFIDENCE = 1.0
# the search as it was (``confidence`` None): by this much mean place, however noisy
MARGIN = 0.15
EVERY_CARD = (1 << 54) - 1  # a seat with no ceiling may hold any card
D3 = 1  # ♢3, card 0: the first lead goes to its holder


class SampleError(Exception):
    """No deal of the unseen cards fits what the seat knows (a bug, never expected)."""


@dataclass(frozen=True, slots=True)
class Knowledge:
    """What one seat knows of the hands at a decision. ``known[s]``: cards surely in
    seat ``s``'s hand (its own: the whole hand); ``allowed[s]``: the only cards
    seat ``s`` may hold besides those (EVERY_CARD when nothing rules any out)."""

    seat: int
    sizes: tuple[int, ...]
    known: tuple[int, ...]
    allowed: tuple[int, ...]
    unseen: int  # the cards in nobody's known hand, on no field and in no pile

    def consistent(self, hands: Sequence[int]) -> bool:
        """Whether ``hands`` could be the hands now, as far as the seat knows."""
        pool = Counter(cards_of(self.unseen))
        for seat, hand in enumerate(hands):
            held = Counter(cards_of(hand))
            known = Counter(cards_of(self.known[seat]))
            if hand.bit_count() != self.sizes[seat] or known - held:
                return False
            if seat == self.seat:
                if held != known:
                    return False
                continue
            others = held - known
            allowed = self.allowed[seat]
            if any(not allowed & _bit(card) for card in others):
                return False
            pool.subtract(others)
        return min(pool.values(), default=0) >= 0

    def loose(self) -> Knowledge:
        """Only what is surely so: the seat's own hand, the sizes, the public cards."""
        unseen = self.unseen
        for seat, cards in enumerate(self.known):
            if seat != self.seat:
                unseen = add_cards(unseen, cards)
        own = tuple(k if seat == self.seat else 0 for seat, k in enumerate(self.known))
        return Knowledge(self.seat, self.sizes, own, (EVERY_CARD,) * len(self.sizes), unseen)


def _bit(card: int) -> int:
    return JOKER_BIT if card == JOKER else 1 << card


@dataclass
class Memory:
    """What the seat remembers of the game in play, from its own views and actions."""

    game: int = -1
    gave: dict[int, int] = field(default_factory=dict)  # seat -> cards given it
    # seat -> (strength, order): that seat's dealt cards, but for those it gave, are
    # at most this strong in that order (it gave its strongest to this seat)
    ceilings: dict[int, tuple[int, bool]] = field(default_factory=dict)

    def observe(self, view: View, position: Position) -> None:
        if view.game_number != self.game:
            self.game = view.game_number
            self.gave = {}
            self.ceilings = {}
            if view.waiting_for == WaitingFor.EXCHANGE and view.seat is not None:
                self._first_sight(view, position, hand_of(view))

    def _first_sight(self, view: View, position: Position, hand: int) -> None:
        """In the exchange, before this seat gave: a lower player that owed it cards
        gave its ``count`` strongest, all held here now, so none of the lower's other
        cards is stronger than this hand's ``count``-th strongest."""
        rules = position.rules
        if view.previous_places is None or not rules.card_exchange:
            return
        if position.in_force & UNSEEN_MOVES:
            return
        order = position.reversed_order
        ranked = sorted((card_strength(c, order) for c in cards_of(hand)), reverse=True)
        for lower, upper, count in exchange_pairs(view.previous_places):
            if upper == view.seat and count <= len(ranked):
                self.ceilings[lower] = (ranked[count - 1], order)

    def chose(self, view: View, position: Position, action: SeatCommand) -> None:
        if isinstance(action, Give) and view.waiting_for == WaitingFor.EXCHANGE:
            receiver = view.exchange_steps[0][1] if view.exchange_steps else None
            if receiver is not None:
                self.gave[receiver] = self.gave.get(receiver, 0) | action.cards

    def knowledge(self, view: View, position: Position) -> Knowledge:
        seat = view.seat
        assert seat is not None
        hand = hand_of(view)
        rules = position.rules
        deck = mask_of(deck_for(rules))
        gone = add_cards(position.pile, position.trick)  # public: on the field or in the pile
        unseen = remove_cards(remove_cards(deck, gone), hand)
        players = view.players
        known = [0] * players
        allowed = [EVERY_CARD] * players
        known[seat] = hand
        trusted = not position.in_force & UNSEEN_MOVES
        if trusted:
            for receiver, cards in self.gave.items():
                # neither played since nor given back here; not a joker: the two are
                # alike, so one seen played may have been the one given
                still = cards & unseen & REAL_CARDS
                if still and receiver != seat:
                    known[receiver] = add_cards(known[receiver], still)
                    unseen = remove_cards(unseen, still)
            for lower, (ceiling, order) in self.ceilings.items():
                allowed[lower] = mask_of(
                    c for c in cards_of(deck) if card_strength(c, order) <= ceiling
                )
            leader = position.leader
            if leader != seat and unseen & D3 and _led_by_d3(position):
                hidden = unseen.bit_count() + sum(k.bit_count() for k in known)
                if hidden == sum(view.hand_sizes):  # every card is dealt: none left over
                    known[leader] = add_cards(known[leader], D3)
                    unseen = remove_cards(unseen, D3)
        return Knowledge(seat, tuple(view.hand_sizes), tuple(known), tuple(allowed), unseen)


def _led_by_d3(position: Position) -> bool:
    """Whether this game's first lead went to the holder of ♢3 (the weakest card dealt),
    after the exchange if any: that seat holds it until it plays it."""
    first_lead = position.previous_places is None or position.rules.d3_leads_every_game
    return first_lead and not position.exchange_steps


def sample_hands(knowledge: Knowledge, rng: random.Random) -> tuple[tuple[int, ...], int]:
    """The hands, dealt at random from the unseen cards as the seat's knowledge
    allows, and the unseen cards left over (in no hand: unused, or a blind)."""
    pool = list(cards_of(knowledge.unseen))
    rng.shuffle(pool)
    hands = list(knowledge.known)
    need = [
        size - known.bit_count()
        for size, known in zip(knowledge.sizes, knowledge.known, strict=True)
    ]
    # a seat with a ceiling first, from the cards it may hold; then the rest in order
    order = sorted(range(len(hands)), key=lambda s: knowledge.allowed[s] == EVERY_CARD)
    for seat in order:
        if need[seat] <= 0:
            continue
        allowed = knowledge.allowed[seat]
        taken: list[int] = []
        rest: list[int] = []
        for card in pool:
            if len(taken) < need[seat] and allowed & _bit(card):
                taken.append(card)
            else:
                rest.append(card)
        if len(taken) < need[seat]:
            raise SampleError(f"seat {seat} needs {need[seat]} cards, {len(taken)} fit")
        hands[seat] = _with(hands[seat], taken)
        pool = rest
    return tuple(hands), mask_of(pool)


def _with(hand: int, cards: list[int]) -> int:
    return add_cards(hand, mask_of(cards))


def sampled_state(
    position: Position, hands: tuple[int, ...], rest: int, rng: random.Random
) -> MatchState:
    """A whole state: the public position with sampled hands."""
    state = initial_state(position.rules, position.players)
    for name in POSITION_FIELDS:
        setattr(state, name, getattr(position, name))
    state.hands = hands
    state.unused = rest
    order = list(range(position.players))
    rng.shuffle(order)
    state.stalemate = tuple(order)  # drawn, and seen by nobody
    return state


# -- the search ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Search:
    """How the search spends its budget (``bench.strength --compare`` plays the
    defaults beside the search as it was: greedy rollouts, no halving)."""

    rollout: Rollout = Rollout.STRONGER
    candidates: int = CANDIDATES
    margin: float = MARGIN
    halving: bool = True  # sequential halving: the worse half dropped each round
    # a candidate beats the stronger bot's choice only by this many standard errors of
    # their difference on the same samples, and that choice, the one every candidate
    # is measured against, is kept to the last round; None: by ``margin`` mean place
    confidence: float | None = CONFIDENCE


@dataclass(frozen=True, slots=True)
class Request:
    """One decision to think about: plain data, sent to a worker process."""

    position: Position
    knowledge: Knowledge
    candidates: tuple[SeatCommand, ...]
    budget_ms: int | None
    playouts: int | None
    seed: bytes
    search: Search = Search()


@dataclass(frozen=True, slots=True)
class Thought:
    """The search's answer: the action, each candidate's mean place, and the work."""

    choice: SeatCommand
    means: tuple[float, ...]  # per candidate, in the request's order
    playouts: int
    samples: int


def think(request: Request, shards: int = 1, executor: Executor | None = None) -> Thought:
    """The search: in this process, or with ``executor`` each round split into
    ``shards`` shares played at once (``think_in_pool`` awaits the pool's)."""
    halving = Halving(request, shards)
    while (shares := halving.next_round()) is not None:
        if executor is None:
            halving.add([play_share(share) for share in shares])
        else:
            halving.add(list(executor.map(play_share, shares)))
    return halving.thought()


async def think_in_pool(request: Request) -> Thought:
    """The search in the pool, awaited: each round split over every worker."""
    halving = Halving(request, shards=WORKERS)
    while (shares := halving.next_round()) is not None:
        halving.add(await asyncio.gather(*(in_pool(play_share, share) for share in shares)))
    return halving.thought()


@dataclass(frozen=True, slots=True)
class Share:
    """One process's part of a round: samples ``first``, ``first + step``, … of the
    round (each drawn from its own seed, so which process plays it changes
    nothing), each played out with every candidate in ``alive``, until the
    round's ``samples`` or ``seconds``. The round's last sample plays only its
    first ``last_plays`` candidates (the playout budget ends there)."""

    request: Request
    round_number: int
    alive: tuple[int, ...]
    first: int
    step: int
    samples: int | None
    last_plays: int
    seconds: float | None


@dataclass(frozen=True, slots=True)
class Tally:
    """What a share played: per candidate the places' total and count, the work."""

    totals: tuple[float, ...]
    counts: tuple[int, ...]
    # per candidate, over the samples it and the first were both played out on: the
    # place's difference from the first's, summed, its square summed, and the count
    differences: tuple[float, ...]
    squares: tuple[float, ...]
    pairs: tuple[int, ...]
    playouts: int
    samples: int
    failures: int


class Halving:
    """Sequential halving (Karnin et al. 2013) over the candidates: the budget goes in
    rounds, the worse half dropped after each, so the close ones get the most
    playouts. Every candidate of a round is played out on the same samples (common
    random numbers: a difference between two is the actions', not the deals').
    Each round is cut into ``shards`` shares for as many processes; with a playout
    budget the samples, and so the answer, are the same however many there are.
    The first candidate (the stronger bot's choice) is played unless another beats
    it clearly: by the search's ``confidence`` standard errors of their difference
    on the same samples (``_surely_better``), or, without one, by ``margin``."""

    def __init__(self, request: Request, shards: int) -> None:
        self.request = request
        self.shards = max(1, shards)
        count = len(request.candidates)
        self.totals = [0.0] * count
        self.counts = [0] * count
        self.differences = [0.0] * count
        self.squares = [0.0] * count
        self.pairs = [0] * count
        self.alive = list(range(count))
        halving = request.search.halving
        self.rounds = max(1, (count - 1).bit_length()) if halving else 1
        self.round_number = -1
        self.playouts = self.samples = self.failures = 0

    @property
    def broken(self) -> bool:
        """The position does not play (never expected): answer what is known."""
        return _broken(self.failures, self.playouts)

    def next_round(self) -> list[Share] | None:
        """The next round's shares, or None when the search is done."""
        if self.round_number >= 0:
            if self.broken or self.round_number == self.rounds - 1:
                return None
            alive = sorted(self.alive, key=lambda i: (_mean(self.totals[i], self.counts[i]), i))
            self.alive = alive[: max(2, (len(alive) + 1) // 2)]
            if self.request.search.confidence is not None and 0 not in self.alive:
                self.alive = [0, *self.alive[:-1]]
        self.round_number += 1
        request, number = self.request, self.round_number
        samples, last_plays = None, len(self.alive)
        if request.playouts is not None:
            spent = request.playouts * number // self.rounds
            playouts = request.playouts * (number + 1) // self.rounds - spent
            samples = -(-playouts // len(self.alive))
            last_plays = playouts - (samples - 1) * len(self.alive)
            if not samples:
                return None
        seconds = None
        if request.budget_ms is not None:
            seconds = request.budget_ms / 1000 / self.rounds
        shards = self.shards if samples is None else min(self.shards, samples)
        return [
            Share(request, number, tuple(self.alive), first, shards, samples, last_plays, seconds)
            for first in range(shards)
        ]

    def add(self, tallies: Sequence[Tally]) -> None:
        for tally in tallies:
            for index in range(len(self.totals)):
                self.totals[index] += tally.totals[index]
                self.counts[index] += tally.counts[index]
                self.differences[index] += tally.differences[index]
                self.squares[index] += tally.squares[index]
                self.pairs[index] += tally.pairs[index]
            self.playouts += tally.playouts
            self.samples += tally.samples
            self.failures += tally.failures

    def thought(self) -> Thought:
        means = tuple(_mean(t, c) for t, c in zip(self.totals, self.counts, strict=True))
        confidence = self.request.search.confidence
        if confidence is not None:
            best = self._surely_better(confidence)
        else:
            best = min(self.alive, key=lambda i: (means[i], i))
            if 0 in self.alive and means[best] > means[0] - self.request.search.margin:
                best = 0  # the stronger bot's own choice, unless the playouts clearly beat it
        return Thought(self.request.candidates[best], means, self.playouts, self.samples)

    def _surely_better(self, confidence: float) -> int:
        """The candidate whose places were lowest against the first's on the same
        samples, if lower by ``confidence`` standard errors; else the first."""
        best, best_mean = 0, 0.0
        for index in self.alive:
            pairs = self.pairs[index]
            if index == 0 or pairs < 2:
                continue
            mean = self.differences[index] / pairs
            variance = max(0.0, self.squares[index] / pairs - mean * mean) * pairs / (pairs - 1)
            if mean < best_mean and mean < -confidence * math.sqrt(variance / pairs):
                best, best_mean = index, mean
        return best


def play_share(share: Share) -> Tally:
    """Sample after sample of the share, every candidate in ``alive`` played out on
    each, until its samples are played or its time is up (one sample at least)."""
    request = share.request
    knowledge = request.knowledge
    seat = knowledge.seat
    rollout = request.search.rollout
    base_seed = int.from_bytes(request.seed[:16], "big") + (share.round_number << 64)
    deadline = None if share.seconds is None else time.perf_counter() + share.seconds
    count = len(request.candidates)
    totals, counts = [0.0] * count, [0] * count
    differences, squares, pairs = [0.0] * count, [0.0] * count, [0] * count
    playouts = samples = failures = 0
    index = share.first
    while not _broken(failures, playouts):
        if share.samples is not None and index >= share.samples:
            break
        if deadline is not None and samples and time.perf_counter() >= deadline:
            break
        rng = random.Random(base_seed + index)
        try:
            hands, rest = sample_hands(knowledge, rng)
        except SampleError:  # never expected (tests/property): sample what is surely so
            hands, rest = sample_hands(knowledge.loose(), rng)
        base = sampled_state(request.position, hands, rest, rng)
        samples += 1
        last = share.samples is not None and index == share.samples - 1
        places: dict[int, int] = {}
        for candidate in share.alive[: share.last_plays] if last else share.alive:
            playouts += 1
            try:
                after, _ = play_out_with(apply(base, request.candidates[candidate]), seat, rollout)
            except PlayoutError:
                failures += 1
                continue
            place = places[candidate] = place_after(after, seat)
            totals[candidate] += place
            counts[candidate] += 1
        if 0 in places:
            for candidate, place in places.items():
                difference = place - places[0]
                differences[candidate] += difference
                squares[candidate] += difference * difference
                pairs[candidate] += 1
        index += share.step
    return Tally(
        tuple(totals), tuple(counts), tuple(differences), tuple(squares), tuple(pairs),
        playouts, samples, failures,
    )  # fmt: skip


def _broken(failures: int, playouts: int) -> bool:
    return failures > 8 and failures * 2 > playouts


def _mean(total: float, count: int) -> float:
    return total / count if count else float("inf")


def seed_of(seed: bytes, view: View) -> bytes:
    """A decision's own seed: the bot's, and what the seat sees (the same decision
    always draws the same samples)."""
    digest = hashlib.sha256(seed)
    seen = (view.game_number, view.hand, view.discard_pile, view.trick, view.turn,
            view.hand_sizes, view.waiting_for, view.pass_run, view.field)  # fmt: skip
    digest.update(repr(seen).encode())
    return digest.digest()


class ExpertBot(Bot):
    """Determinized Monte Carlo over the stronger bot's best few actions, at every
    step with a choice (a play or pass, a give, a discard, an answer window, a pick,
    a bomb): ``budget_ms`` of thinking a move, or exactly ``playouts`` playouts
    (then, with ``seed``, its moves repeat exactly)."""

    name = "expert"

    def __init__(
        self,
        rules: RuleSet | None = None,
        budget_ms: int | None = DEFAULT_MS,
        playouts: int | None = None,
        seed: bytes = b"expert",
        search: Search | None = None,
        shards: int = 1,
    ) -> None:
        if budget_ms is None and playouts is None:
            raise ValueError("the expert needs a budget: ms or playouts")
        self.rules = rules
        self.budget_ms = None if playouts is not None else budget_ms
        self.playouts = playouts
        self.seed = seed
        self.search = search or Search()
        self.shards = shards  # more than one: each search split over the pool's processes
        self.memories: dict[int, Memory] = {}
        self.stronger = StrongerBot(rules)  # ranks the candidates, decides the other steps
        self.last: Thought | None = None

    def reset(self) -> None:
        self.memories = {}

    def request(
        self, view: View, actions: Sequence[SeatCommand]
    ) -> tuple[Request | None, Position, SeatCommand]:
        """Remember what ``view`` shows; the search to run (None: none is needed), and
        the action to take without one."""
        position = Table.for_view(view, self.rules).position(view)
        seat = view.seat if view.seat is not None else -1
        memory = self.memories.setdefault(seat, Memory())
        memory.observe(view, position)
        candidates = tuple(self.stronger.ranked(view, actions, self.search.candidates))
        if len(candidates) == 1:
            return None, position, candidates[0]
        knowledge = memory.knowledge(view, position)
        seed = seed_of(self.seed, view)
        request = Request(
            position, knowledge, candidates, self.budget_ms, self.playouts, seed, self.search
        )
        return request, position, candidates[0]

    def chose(self, view: View, position: Position, action: SeatCommand) -> SeatCommand:
        """Remember ``action``, this seat's, and give it back."""
        seat = view.seat if view.seat is not None else -1
        self.memories.setdefault(seat, Memory()).chose(view, position, action)
        return action

    def choose(self, view: View, actions: Sequence[SeatCommand]) -> SeatCommand:
        request, position, default = self.request(view, actions)
        if request is None:
            return self.chose(view, position, default)
        executor = pool() if self.shards > 1 else None
        self.last = think(request, self.shards, executor)
        return self.chose(view, position, self.last.choice)


# -- off the serving loop ------------------------------------------------------

_POOL: ProcessPoolExecutor | None = None
WORKERS = len(os.sched_getaffinity(0))  # one a core this process may run on


def pool() -> ProcessPoolExecutor:
    """The processes the service's experts think in: one a core, so that one search
    may use them all, at a lower priority than the serving loop, which takes a
    core whenever it has work, and ending with it. Spawned: a fork of a serving
    process would copy its threads' locks."""
    global _POOL
    if _POOL is None:
        _POOL = ProcessPoolExecutor(
            WORKERS,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=end_with_parent,
            initargs=(os.getpid(),),
        )
    return _POOL


async def in_pool(fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` in the pool, awaited. A pool one of whose workers died (killed, out
    of memory) is broken for good: it is replaced, and the call made once more."""
    global _POOL
    loop = asyncio.get_running_loop()
    for attempt in range(2):
        current = pool()
        try:
            return await loop.run_in_executor(current, fn, *args)
        except BrokenProcessPool:
            if attempt:
                raise
            if _POOL is current:
                _POOL = None
                current.shutdown(wait=False, cancel_futures=True)
    raise AssertionError("unreachable")


class OffLoopExpert:
    """An expert seat for the service: its memory on the loop (cheap), its search
    in the process pool, awaited, so the loop serves everyone else meanwhile."""

    def __init__(
        self, rules: RuleSet, budget_ms: int | None = None, seed: bytes | None = None
    ) -> None:
        budget_ms = DEFAULT_MS if budget_ms is None else budget_ms
        self.bot = ExpertBot(rules, budget_ms=budget_ms, seed=seed or os.urandom(16))

    async def __call__(self, view: View, actions: Sequence[SeatCommand]) -> SeatCommand:
        request, position, default = self.bot.request(view, actions)
        if request is None:
            return self.bot.chose(view, position, default)
        try:
            thought = await think_in_pool(request)
        except BrokenProcessPool:  # workers that die again and again: the seat still acts
            log.exception("the expert's workers keep dying: a rule-based move is played")
            return self.bot.chose(view, position, default)
        return self.bot.chose(view, position, thought.choice)


__all__ = [
    "ExpertBot",
    "Knowledge",
    "OffLoopExpert",
    "Search",
    "in_pool",
    "sample_hands",
    "think",
    "think_in_pool",
]
