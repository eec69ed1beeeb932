"""How each preset reads the rules it shares, judged from the rules and the
meld alone (no match state): the engine's judging and the bots, which see only
a view, use the same readings (docs/RULES.md §2)."""

from __future__ import annotations

from .cards import RANK_2, RANK_3, RANK_8, RANK_J, SUIT_S, make_card
from .melds import Kind, Meld
from .rulesets import RuleSet

SPADE_3 = make_card(RANK_3, SUIT_S)


def group_of(meld: Meld, size: int, rank: int) -> bool:
    """A group of exactly ``size`` real cards of ``rank`` (jokers never count)."""
    return meld.kind == Kind.GROUP and meld.size == size and meld.real_count(rank) == size


def lock_suits(meld: Meld) -> int:
    """The suits a play shows to a lock where a joker counts as the suit it
    stands for (docs/RULES.md §6): its real cards' and its joker readings'."""
    suits = meld.suits
    for card in meld.jokers_as:
        suits |= 1 << (card & 3)
    return suits


def cuts_eight(rules: RuleSet, in_force: frozenset[str], meld: Meld) -> bool:
    """The eight-cut in each preset's reading (docs/RULES.md §2), from the rules
    alone: bots, which see a view and not the state, judge with it too."""
    if "eight_cut" not in in_force:
        return False
    eights = meld.real_count(RANK_8)
    reading = rules.eight_cut_reading
    if reading == "uecda":
        # a real 8, or stairs whose span (a joker included) holds the 8
        return bool(eights) or (meld.kind == Kind.STAIRS and meld.low <= RANK_8 <= meld.high)
    if not eights:
        return False
    if reading == "federation":
        return meld.kind in (Kind.SINGLE, Kind.GROUP) and eights + meld.jokers == meld.size
    if reading == "torasobi":
        return meld.kind != Kind.STAIRS
    return True


def finishes_forbidden(
    rules: RuleSet,
    in_force: frozenset[str],
    meld: Meld,
    *,
    revolution: bool,
    spade3_return: bool,
) -> bool:
    """The forbidden finish in each preset's reading, from the facts it needs."""
    if not rules.forbidden_finish:
        return False
    top = RANK_3 if revolution else RANK_2
    if rules.forbidden_reading == "federation":
        return bool(
            meld.real_count(top)
            or meld.jokers
            or cuts_eight(rules, in_force, meld)
            or meld.mask == 1 << SPADE_3
        )
    if rules.forbidden_reading == "classic":
        return bool(meld.real_count(top) or meld.real_count(RANK_8) or meld.jokers or spade3_return)
    if meld.size != 1:
        return False
    if meld.jokers:
        return True
    rank = meld.low
    return rank in (RANK_8, top) or (rank == RANK_J and bool(rules.eleven_back))
