"""The rules engine's memo tables, all of them: each maps the arguments of a pure
function to its answer, so a hit is the very answer the function would give, and the
engine stays a function of its arguments. No other module of the rules keeps anything
between calls (tests/unit/test_rules_purity.py holds them to that).

A table past ``MEMO_LIMIT`` entries is emptied before it takes the next one: cheaper than
evicting one entry at a time on the engine's hottest paths, and play refills it at once.
A hit is a plain ``dict`` lookup where the table is used; only a miss calls ``remember``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final, TypeVar

if TYPE_CHECKING:
    from .commands import Play
    from .melds import Meld
    from .rulesets import RuleSet

K = TypeVar("K")
V = TypeVar("V")

MEMO_LIMIT: Final = 200_000

# melds.classify: (mask, jokers_as, reversed, stairs, emperor, past_ends, joker_suits)
CLASSIFIED: Final[dict[tuple[int, tuple[int, ...], bool, bool, bool, bool, bool], Meld | None]] = {}
# evolve: the meld a CardsPlayed event describes, by (cards, kind, low, high, jokers_as)
MELDS_PLAYED: Final[dict[tuple[int, int, int, int, tuple[int, ...]], Meld]] = {}
# legal: Play commands are values, each built once: by mask alone for each seat where no
# joker reading is named (most plays: the cheapest key to hash), else by (seat, mask, reading)
PLAYS_BY_MASK: Final[tuple[dict[int, Play], ...]] = tuple({} for _ in range(5))
PLAYS_WITH_READING: Final[dict[tuple[int, int, tuple[int, ...]], Play]] = {}
# legal: the melds of one rank's (or one suit's) cards, which repeat across hands
RANK_GROUPS: Final[dict[tuple[int, ...], list[Meld]]] = {}
SUIT_STAIRS: Final[dict[tuple[int, ...], list[Meld]]] = {}
# views: a rule set's options, by the rule set itself (its id, the entry holding it:
# hashing a rule set's 41 fields to find them cost more than the rest of the lookup)
OPTIONS_BY_RULES: Final[dict[int, tuple[RuleSet, dict[str, Any]]]] = {}
OPTIONS_LIMIT: Final = 4096  # rule set objects: one per match loaded (equal ones share options)


def remember(table: dict[K, V], key: K, value: V, limit: int = MEMO_LIMIT) -> V:
    """Keep ``value`` for ``key`` in one of the tables above; returns it."""
    if len(table) >= limit:
        table.clear()
    table[key] = value
    return value
