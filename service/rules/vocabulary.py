"""The closed sets of words the rules speak: each one ``StrEnum``, whose values are
the words events, scenarios and the APIs carry (docs/RULES.md §7), so a member
compares equal to its word and encodes as it.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Final


class Phase(StrEnum):
    """Where a match stands."""

    BEFORE_DEAL = "before_deal"
    IN_GAME = "in_game"
    GAME_OVER = "game_over"
    MATCH_OVER = "match_over"


class WaitingFor(StrEnum):
    """What the game waits for from the seat whose turn it is. SEVEN_PASS,
    TEN_DISCARD, QUEEN_BOMBER, the picks and KING_PASTOR are also the steps a play
    may require (``StepRequired``); FOUR_STOP and EIGHT_CUT_RETURN are answer
    windows (docs/RULES.md §5.4)."""

    PLAY = "play"
    EXCHANGE = "exchange"
    SEVEN_PASS = "seven_pass"
    TEN_DISCARD = "ten_discard"
    QUEEN_BOMBER = "queen_bomber"
    FOUR_STOP = "four_stop"
    EIGHT_CUT_RETURN = "eight_cut_return"
    SALVAGE = "salvage"
    KINGS_MARCH = "kings_march"
    ZOMBIE = "zombie"
    KING_PASTOR = "king_pastor"


class Action(StrEnum):
    """The verbs of a seat's commands, in their notation."""

    PLAY = "play"
    PASS = "pass"
    GIVE = "give"
    DISCARD = "discard"
    BOMB = "bomb"
    PICK = "pick"


class GiveReason(StrEnum):
    """Why cards move from one hand to another (``CardsGiven``)."""

    EXCHANGE = "exchange"
    SEVEN_PASS = "seven_pass"
    TAKEN = "taken"  # the automatic exchange took them before any give
    KING_PASTOR = "king_pastor"  # the chosen cards pass on (docs/RULES.md §5 #52)


class DiscardReason(StrEnum):
    """Why cards leave play (``CardsDiscarded``)."""

    TEN_DISCARD = "ten_discard"
    QUEEN_BOMBER = "queen_bomber"


class FlushReason(StrEnum):
    """Why the field was flushed (``FieldFlushed``)."""

    EIGHT_CUT = "eight_cut"
    SPADE3_RETURN = "spade3_return"
    ALL_PASSED = "all_passed"
    AMBULANCE = "ambulance"
    ROKUROKUBI = "rokurokubi"
    SANDSTORM = "sandstorm"
    EMPEROR = "emperor"
    FOUR_STOP = "four_stop"
    FIVE_CUT = "five_cut"
    SIX_CUT = "six_cut"
    SEVEN_CUT = "seven_cut"
    SPADE2_RETURN = "spade2_return"
    TRIPLE_THREE_RETURN = "triple_three_return"
    ASSASSINATION = "assassination"
    FINISH_FLUSH = "finish_flush"


class RevolutionCause(StrEnum):
    """What turned the strength order (``RevolutionChanged``)."""

    REVOLUTION = "revolution"
    STAIRS_REVOLUTION = "stairs_revolution"
    COUP = "coup"
    OMEN = "omen"
    GREAT_REVOLUTION = "great_revolution"
    EMPEROR = "emperor"
    NANASAN_REVOLUTION = "nanasan_revolution"
    JOKER_REVOLUTION = "joker_revolution"


class FinishCause(StrEnum):
    """How a seat left the game (``PlayerFinished``)."""

    PLAY = "play"  # its last cards were played
    EMPTIED = "emptied"  # a give, discard or bomb emptied its hand
    GREAT_REVOLUTION = "great_revolution"
    LUCKY_SEVEN = "lucky_seven"
    FORCED = "forced"  # federation: a leader holding only forbidden cards
    STALEMATE = "stalemate"
    LAST = "last"  # the last player in when the game ended


class FallCause(StrEnum):
    """Why a seat fell to the bottom (``PlayerFell``)."""

    MIYAKO_OCHI = "miyako_ochi"
    KYO_OCHI = "kyo_ochi"  # the previous 富豪 (docs/RULES.md §5 #53)


class ReverseCause(StrEnum):
    """The rank that reversed the turn order (``DirectionReversed``)."""

    NINE_REVERSE = "nine_reverse"
    SIX_REVERSE = "six_reverse"
    QUEEN_REVERSE = "queen_reverse"
    KING_REVERSE = "king_reverse"


class SkipCause(StrEnum):
    """The skip rules of a play (``PlayersSkipped``); their skips add up."""

    FIVE_SKIP = "five_skip"
    KING_SKIP = "king_skip"
    TEN_SKIP = "ten_skip"


class Color(StrEnum):
    """The colour a colour lock holds the field to (``ColorLocked``)."""

    RED = "red"
    BLACK = "black"


class EndCause(StrEnum):
    """What ended a lock or an eleven-back before its flush (``ElevenBackEnded``,
    ``LocksReleased``)."""

    SIX_RETURN = "six_return"
    QUEEN_RELEASE = "queen_release"


class LocalRule(StrEnum):
    """The local rules a host switches on or off, each by its RuleSet option's name:
    §3's seed of 26 in its order (docs/RULES.md §3), then §5's further ones."""

    REVOLUTION = "revolution"
    STAIRS = "stairs"
    EIGHT_CUT = "eight_cut"
    SPADE3_RETURN = "spade3_return"
    FORBIDDEN_FINISH = "forbidden_finish"
    SUIT_LOCK = "suit_lock"
    NUMBER_LOCK = "number_lock"
    MIYAKO_OCHI = "miyako_ochi"
    GEKOKUJO = "gekokujo"
    ELEVEN_BACK = "eleven_back"
    QUEEN_BOMBER = "queen_bomber"
    SANDSTORM = "sandstorm"
    AMBULANCE = "ambulance"
    ROKUROKUBI = "rokurokubi"
    FOUR_STOP = "four_stop"
    FIVE_SKIP = "five_skip"
    SEVEN_PASS = "seven_pass"
    TEN_DISCARD = "ten_discard"
    NINE_REVERSE = "nine_reverse"
    EMPEROR = "emperor"
    COUP = "coup"
    GREAT_REVOLUTION = "great_revolution"
    OMEN = "omen"
    DOWN_NUMBER = "down_number"
    LUCKY_SEVEN = "lucky_seven"
    TENPENCHI = "tenpenchi"
    # §5 the further local rules (#27 on)
    FIVE_CUT = "five_cut"
    SIX_CUT = "six_cut"
    SEVEN_CUT = "seven_cut"
    SPADE2_RETURN = "spade2_return"
    TRIPLE_THREE_RETURN = "triple_three_return"
    JOKER_RETURN = "joker_return"
    ASSASSINATION = "assassination"
    EIGHT_CUT_RETURN = "eight_cut_return"
    FINISH_FLUSH = "finish_flush"
    NANASAN_REVOLUTION = "nanasan_revolution"
    JOKER_REVOLUTION = "joker_revolution"
    COLOR_LOCK = "color_lock"
    PARTIAL_LOCK = "partial_lock"
    QUEEN_RELEASE = "queen_release"
    STRONG_ELEVEN_BACK = "strong_eleven_back"
    SIX_RETURN = "six_return"
    TWO_BACK = "two_back"
    SIX_REVERSE = "six_reverse"
    QUEEN_REVERSE = "queen_reverse"
    KING_REVERSE = "king_reverse"
    KING_SKIP = "king_skip"
    TEN_SKIP = "ten_skip"
    SALVAGE = "salvage"
    KINGS_MARCH = "kings_march"
    ZOMBIE = "zombie"
    KING_PASTOR = "king_pastor"
    KYO_OCHI = "kyo_ochi"
    DAIFUGO_LEISURE = "daifugo_leisure"
    D3_START = "d3_start"


class ElevenBack(StrEnum):
    """What an eleven-back reverses until the flush; NONE when none is on."""

    NONE = ""
    STRENGTH = "strength"
    ORDER = "order"


class Bottom(StrEnum):
    """How a seat reached the bottom places."""

    FORBIDDEN = "forbidden"
    FALLEN = "fallen"


class RefusalCode(StrEnum):
    """Why the decider refuses a command, in order of precedence: when several
    apply, the first wins."""

    BAD_REQUEST = "bad_request"
    GAME_OVER = "game_over"
    NOT_YOUR_TURN = "not_your_turn"
    WRONG_ACTION = "wrong_action"
    CARD_NOT_IN_HAND = "card_not_in_hand"
    CANNOT_PASS = "cannot_pass"
    MUST_INCLUDE_D3 = "must_include_d3"
    INVALID_MELD = "invalid_meld"
    SHAPE_MISMATCH = "shape_mismatch"
    SUIT_LOCKED = "suit_locked"
    NUMBER_LOCKED = "number_locked"
    NOT_STRONGER = "not_stronger"


class ViewerKind(StrEnum):
    """Who looks at a match."""

    SEAT = "seat"
    SPECTATOR = "spectator"
    AUDITOR = "auditor"


# -- the members the engine compares on its hot path, as module constants ------
# Pure Python reads a member off its Enum class through the metaclass each time; a
# module constant is one load. mypyc compiles this module too, so compiled code loads
# any member as a static. The hot paths compare members with ``is`` (every state and
# event holds the members themselves: records.py decodes words to them), a pointer
# compare where ``==`` is a generic rich compare under mypyc. Only the engine's hot
# paths (state, legal, decider) import these; everywhere else spells ``Phase.IN_GAME``.
IN_GAME: Final = Phase.IN_GAME
PLAY: Final = WaitingFor.PLAY
EXCHANGE: Final = WaitingFor.EXCHANGE
SEVEN_PASS: Final = WaitingFor.SEVEN_PASS
TEN_DISCARD: Final = WaitingFor.TEN_DISCARD
QUEEN_BOMBER: Final = WaitingFor.QUEEN_BOMBER
FOUR_STOP: Final = WaitingFor.FOUR_STOP
EIGHT_CUT_RETURN: Final = WaitingFor.EIGHT_CUT_RETURN
SALVAGE: Final = WaitingFor.SALVAGE
KINGS_MARCH: Final = WaitingFor.KINGS_MARCH
ZOMBIE: Final = WaitingFor.ZOMBIE
KING_PASTOR: Final = WaitingFor.KING_PASTOR
STRENGTH: Final = ElevenBack.STRENGTH
ORDER: Final = ElevenBack.ORDER
PICKS: Final = (SALVAGE, KINGS_MARCH, ZOMBIE)  # the steps that take from the pile (§5.4)
