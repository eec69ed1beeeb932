"""Rule sets: the four presets and the options a host may change (docs/RULES.md §1–§3, §5, §6).

A rule set is one frozen value. The presets differ only where docs/RULES.md §2 says
they read a rule differently; those readings are fields too (``*_reading``,
``*_after``…), so a preset is nothing but a set of field values.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any, Final, Literal

from .vocabulary import ElevenBack, LocalRule

EightCutReading = Literal["federation", "torasobi", "classic", "uecda"]
ForbiddenReading = Literal["federation", "torasobi", "classic"]
BottomOrder = Literal["federation", "newest_last"]

# Seed 001's 26 local rules, in the seed's order (docs/RULES.md §3), then the further
# local rules of docs/RULES.md §5, in its order (#27 on).
LOCAL_RULES: Final[tuple[LocalRule, ...]] = tuple(LocalRule)
SEED_RULES: Final = LOCAL_RULES[:26]
FURTHER_RULES: Final = LOCAL_RULES[26:]


@dataclass(frozen=True, slots=True)
class RuleSection:
    """A section of docs/RULES.md and the local rules it describes, in its order: how a
    new-table form groups the toggles."""

    section: str  # the document's section number, "§2"
    title: str
    rules: tuple[LocalRule, ...]


RULE_SECTIONS: Final[tuple[RuleSection, ...]] = (
    RuleSection("§2", "The shared rules, as each preset reads them", SEED_RULES[:8]),
    RuleSection("§3", "The other local rules of the torasobi room", SEED_RULES[8:]),
    RuleSection("§5", "Further local rules", FURTHER_RULES),
)

# what an omen switches off for the rest of the game (docs/RULES.md §3 #23, §5.1 Omen):
# §3's effects and §5's, but not the locks, the places and the first lead
CANCELLED_BY_OMEN: Final[frozenset[LocalRule]] = (
    frozenset(SEED_RULES[8:])
    | {LocalRule.REVOLUTION, LocalRule.EIGHT_CUT, LocalRule.SPADE3_RETURN}
    | (
        frozenset(FURTHER_RULES)
        - {LocalRule.COLOR_LOCK, LocalRule.PARTIAL_LOCK, LocalRule.KYO_OCHI,
           LocalRule.DAIFUGO_LEISURE, LocalRule.D3_START}
    )
)  # fmt: skip
# option names an older rule set used, and the names they go by now
_RENAMED: Final = {"first_lead_must_include_d3": "d3_start"}


class RuleSetError(ValueError):
    """An unknown preset or option, or an option value of the wrong kind."""


@dataclass(frozen=True, slots=True)
class RuleSet:
    preset: str
    # §1 common ground
    jokers: int = 2
    games_per_set: int = 5
    card_exchange: bool = True
    # §2 the first eight local rules
    revolution: bool = True
    stairs: bool = True
    eight_cut: bool = True
    spade3_return: bool = True
    forbidden_finish: bool = True
    suit_lock: bool = True
    number_lock: bool = False
    miyako_ochi: bool = True
    # §3 the other eighteen
    gekokujo: bool = False
    eleven_back: ElevenBack = ElevenBack.NONE
    queen_bomber: bool = False
    sandstorm: bool = False
    ambulance: bool = False
    rokurokubi: bool = False
    four_stop: bool = False
    five_skip: bool = False
    seven_pass: bool = False
    ten_discard: bool = False
    nine_reverse: bool = False
    emperor: bool = False
    coup: bool = False
    great_revolution: bool = False
    omen: bool = False
    down_number: bool = False
    lucky_seven: bool = False
    tenpenchi: bool = False
    # §5 the further local rules
    five_cut: bool = False
    six_cut: bool = False
    seven_cut: bool = False
    spade2_return: bool = False
    triple_three_return: bool = False
    joker_return: bool = False
    assassination: bool = False
    eight_cut_return: bool = False
    finish_flush: bool = False
    nanasan_revolution: bool = False
    joker_revolution: bool = False
    color_lock: bool = False
    partial_lock: bool = False
    queen_release: bool = False
    strong_eleven_back: bool = False
    six_return: bool = False
    two_back: bool = False
    six_reverse: bool = False
    queen_reverse: bool = False
    king_reverse: bool = False
    king_skip: bool = False
    ten_skip: bool = False
    salvage: bool = False
    kings_march: bool = False
    zombie: bool = False
    king_pastor: bool = False
    kyo_ochi: bool = False
    daifugo_leisure: bool = False
    d3_start: bool = False
    # how each preset reads the rules it shares (docs/RULES.md §1, §2)
    stairs_revolt: bool = True
    eight_cut_reading: EightCutReading = "torasobi"
    suit_lock_after: int = 2
    number_lock_after: int = 2
    passed_may_play_again: bool = False
    forbidden_reading: ForbiddenReading = "torasobi"
    forced_forbidden_finish: bool = False
    bottom_order: BottomOrder = "newest_last"
    blind_cards_with_four: int = 0
    unused_with_two: int = field(default=14)
    # the readings of the UECda contest's rules (docs/RULES.md §6); off elsewhere
    stairs_revolt_from: int = 4  # stairs of this many cards revolt (with stairs_revolt)
    stairs_overlap: bool = True  # False: stairs beat stairs only above (below) their span
    stairs_past_ends: bool = False  # a stairs joker may stand below the 3 or above the 2
    joker_suits: bool = False  # a joker counts as the suit it stands for; a single one lifts a lock
    last_player_passes: bool = False  # the trick ends when everyone in the game has passed
    leader_may_pass: bool = False
    d3_leads_every_game: bool = False  # the ♢3 holder after the exchange leads
    exchange_takes_strongest: bool = False  # the lower players' strongest cards are taken
    deal_from_daifugo: bool = False  # dealing starts at 大富豪 (else at a seat drawn)
    seat_change_every: int = 0  # seats are drawn again before games 1, 1 + k, 1 + 2k…
    rank_reset_every: int = 0  # games 1 + k, 1 + 2k… start like game 1
    stalemate_passes: int = 0  # this many passes in a row end the game in a drawn order
    points_for_last: int = 0  # points for a game: players - place + this

    def with_options(self, options: Mapping[str, Any]) -> RuleSet:
        """This rule set with ``options`` applied, each checked by name and type."""
        changes: dict[str, Any] = {}
        for name, value in options.items():
            name = _RENAMED.get(name, name)
            changes[name] = _checked_option(name, value)
        return replace(self, **changes)

    def switched_on(self) -> frozenset[LocalRule]:
        """The local rules that are on."""
        return frozenset(name for name in LOCAL_RULES if getattr(self, name))

    def options(self) -> dict[str, Any]:
        """Every field as a plain mapping (what events and the API carry)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


# each option's default, whose type is the option's type (annotations are
# strings here, and mypyc-compiled classes keep none)
_DEFAULTS: Final = {f.name: f.default for f in dataclasses.fields(RuleSet)}
_CHOICES: Final[dict[str, tuple[str, ...]]] = {
    "eight_cut_reading": ("federation", "torasobi", "classic", "uecda"),
    "forbidden_reading": ("federation", "torasobi", "classic"),
    "bottom_order": ("federation", "newest_last"),
}


def _checked_option(name: str, value: Any) -> Any:
    if name not in _DEFAULTS or name == "preset":
        raise RuleSetError(f"unknown option {name!r}")
    if name == "eleven_back":
        if value is True or value == ElevenBack.STRENGTH:
            return ElevenBack.STRENGTH
        if value is False or value in ("", None):
            return ElevenBack.NONE
        if value == ElevenBack.ORDER:
            return ElevenBack.ORDER
        raise RuleSetError("eleven_back takes true, false, 'strength' or 'order'")
    if name in _CHOICES:
        if value not in _CHOICES[name]:
            raise RuleSetError(f"{name} takes one of {', '.join(_CHOICES[name])}")
        return value
    if isinstance(_DEFAULTS[name], bool):
        if not isinstance(value, bool):
            raise RuleSetError(f"{name} takes true or false")
        return value
    if isinstance(value, bool) or not isinstance(value, int):
        raise RuleSetError(f"{name} takes a whole number")
    limits = {"jokers": (0, 2), "games_per_set": (1, 1000), "suit_lock_after": (2, 13),
              "number_lock_after": (2, 13), "blind_cards_with_four": (0, 10),
              "unused_with_two": (0, 14), "stairs_revolt_from": (3, 13),
              "seat_change_every": (0, 1000), "rank_reset_every": (0, 1000),
              "stalemate_passes": (0, 1000), "points_for_last": (0, 1)}  # fmt: skip
    low, high = limits[name]
    if not low <= value <= high:
        raise RuleSetError(f"{name} must be between {low} and {high}")
    return value


FEDERATION: Final = RuleSet(
    preset="federation",
    number_lock=False,
    stairs_revolt=False,
    eight_cut_reading="federation",
    forbidden_reading="federation",
    forced_forbidden_finish=True,
    bottom_order="federation",
    blind_cards_with_four=2,
)
TORASOBI: Final = RuleSet(
    preset="torasobi",
    number_lock=True,
    passed_may_play_again=True,
)
CLASSIC: Final = RuleSet(
    preset="classic",
    number_lock=True,
    eight_cut_reading="classic",
    suit_lock_after=3,
    number_lock_after=3,
    forbidden_reading="classic",
    d3_start=True,
)
# The UEC computer Daihinmin contest's standard rules, as its reference server
# plays them (docs/RULES.md §6).
UECDA: Final = RuleSet(
    preset="uecda",
    jokers=1,
    forbidden_finish=False,
    miyako_ochi=False,
    number_lock=False,
    stairs_revolt_from=5,
    eight_cut_reading="uecda",
    unused_with_two=13,
    stairs_overlap=False,
    stairs_past_ends=True,
    joker_suits=True,
    last_player_passes=True,
    leader_may_pass=True,
    d3_leads_every_game=True,
    exchange_takes_strongest=True,
    deal_from_daifugo=True,
    seat_change_every=3,
    rank_reset_every=100,
    stalemate_passes=20,
    points_for_last=1,
)
PRESETS: Final[dict[str, RuleSet]] = {r.preset: r for r in (FEDERATION, TORASOBI, CLASSIC, UECDA)}


def rule_set(preset: str, options: Mapping[str, Any] | None = None) -> RuleSet:
    """The preset named ``preset`` with ``options`` applied."""
    try:
        base = PRESETS[preset]
    except KeyError:
        raise RuleSetError(
            f"unknown preset {preset!r}; choose one of {', '.join(PRESETS)}"
        ) from None
    return base.with_options(options or {})


def all_local_rules_on(rules: RuleSet) -> RuleSet:
    """``rules`` with every local rule switched on (benchmarks, property tests)."""
    options: dict[str, Any] = {name: True for name in LOCAL_RULES}
    return rules.with_options(options)
