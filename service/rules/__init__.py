"""The rules of Daifugō as a pure decider: cards, melds, rule sets, ``decide``,
``evolve``, legal actions and views. Imports nothing from the rest of the
project and does no I/O (a test enforces both)."""

from .commands import Bomb, Command, Deal, Discard, Give, Pass, Pick, Play, SeatCommand, SetUp
from .decider import Decision, Folded, decide, decide_and_fold
from .evolve import evolve, fold
from .refusals import REASON_CODES, Refusal
from .rulesets import LOCAL_RULES, PRESETS, RuleSet, RuleSetError, rule_set
from .state import MatchState, Position, initial_state

__all__ = [
    "LOCAL_RULES",
    "PRESETS",
    "REASON_CODES",
    "Bomb",
    "Command",
    "Deal",
    "Decision",
    "Discard",
    "Folded",
    "Give",
    "MatchState",
    "Pass",
    "Pick",
    "Play",
    "Position",
    "Refusal",
    "RuleSet",
    "RuleSetError",
    "SeatCommand",
    "SetUp",
    "decide",
    "decide_and_fold",
    "evolve",
    "fold",
    "initial_state",
    "rule_set",
]  # fmt: skip
