"""Events in words: the game record's lines and the terminal's narration."""

from __future__ import annotations

from clients.terminal import narrate
from service.rules.narration import CODES, GLYPHS, describe

PLAY = {"type": "CardsPlayed", "seat": 2, "cards": ["7S", "7H"], "jokers_as": []}
LOCK = {"type": "SuitLocked", "suits": ["S", "H"]}
TURN = {"type": "TurnMoved", "seat": 3}


def test_cards_are_codes_in_the_record_and_glyphs_for_a_person() -> None:
    assert describe(PLAY, 4) == "seat 2 plays 7S 7H"
    assert describe(PLAY, 4, GLYPHS) == "seat 2 plays 7♠ 7♥"
    ten = {**PLAY, "cards": ["TD", "JK"], "jokers_as": ["TC"]}
    assert describe(ten, 4, GLYPHS) == "seat 2 plays 10♦ JK (joker as 10♣)"
    assert describe(LOCK, 4, CODES) == "suit lock: S H"
    hidden = {"type": "CardsGiven", "seat": 1, "to": 0, "cards_count": 2, "reason": "exchange"}
    assert describe(hidden, 4, GLYPHS) == "seat 1 gives 2 hidden cards to seat 0 (exchange)"


def test_an_action_and_its_effects_are_told_on_one_line() -> None:
    flush = {"type": "FieldFlushed", "reason": "eight_cut", "leader": 2}
    eight = {**PLAY, "cards": ["8S"]}
    assert narrate([PLAY, LOCK, TURN], 4) == ["Seat 2 plays 7♠ 7♥ — suit lock: ♠ ♥"]
    assert narrate([eight, flush], 4) == [
        "Seat 2 plays 8♠ — eight-cut: field flushed, seat 2 leads"
    ]
    passed = {"type": "Passed", "seat": 0}
    assert narrate([passed, TURN], 4) == ["Seat 0 passes"]


def test_a_game_end_and_a_deal_stand_on_lines_of_their_own() -> None:
    finished = {"type": "PlayerFinished", "seat": 2, "place": 1, "cause": "play"}
    ended = {"type": "GameEnded", "places": [2, 1]}
    dealt = {"type": "GameDealt", "game_number": 2, "hands": [["3S"], None], "leader": 1}
    dealt["hand_sizes"] = [1, 1]
    lines = narrate([PLAY, finished, ended, dealt], 2)
    assert lines[0] == "Seat 2 plays 7♠ 7♥ — seat 2 finishes 1st (大富豪)"
    assert lines[1] == "Game over: 1st seat 1, 2nd seat 0"
    assert lines[2].startswith("== game 2 == dealt 1/1 cards, seat 1 leads")
    assert "seat 0: 3♠" in lines[2]


def test_a_player_who_leaves_holding_cards_keeps_them() -> None:
    last = {"type": "PlayerFinished", "seat": 2, "place": 3, "cause": "last", "leftover": ["4C"]}
    assert describe(last, 3) == "seat 2 finishes 3rd (大貧民) (last), keeping 4C out of play"
    fell = {"type": "PlayerFell", "seat": 0, "place": 3, "leftover": None, "leftover_count": 2}
    assert describe(fell, 3) == (
        "seat 0 falls to 3rd (大貧民): miyako-ochi, keeping 2 hidden cards out of play"
    )
