"""``daifugo play`` reads a move as a person writes it: its number, p or pass, or its
cards in either notation the terminal shows (``TD TC`` or ``10♦ 10♣``); and it says the
places in words at the end."""

from __future__ import annotations

from clients.demo import points_in_words
from clients.terminal import (
    by_name,
    listed_action,
    narrate,
    places_in_words,
    read_move,
)
from service.rules.commands import Bomb, Give, Pass, Play, SeatCommand
from service.rules.notation import parse_cards_list, parse_mask, parse_ranks


def play(*codes: str, jokers_as: tuple[str, ...] = ()) -> Play:
    return Play(0, parse_mask(codes), parse_cards_list(jokers_as))


ACTIONS: list[SeatCommand] = [
    play("TD", "TC"),
    play("3S"),
    play("JK", "6D", jokers_as=("6S",)),
    play("JK", "6D", jokers_as=("6H",)),
    Pass(0),
]


def test_a_move_is_read_in_either_notation() -> None:
    for answer in ("TD TC", "tc td", "10♦ 10♣", "play 10♣ 10♦", "10d 10c", "0"):
        assert read_move(answer, ACTIONS) == ACTIONS[0], answer
    assert read_move("3♠", ACTIONS) == ACTIONS[1]
    assert read_move("p", ACTIONS) == Pass(0) and read_move("pass", ACTIONS) == Pass(0)
    assert read_move("joker 6♦ as 6♥", ACTIONS) == ACTIONS[3]


def test_what_is_not_a_listed_move_says_why() -> None:
    assert read_move("JK 6D", ACTIONS) == (
        "the joker can stand for several cards here: add 'as' and the card it stands for"
    )
    assert read_move("9S", ACTIONS) == "not one of the listed moves"
    assert read_move("give TD TC", ACTIONS) == "not one of the listed moves"
    assert read_move("7", ACTIONS) == "no move has that number"
    assert read_move("p", ACTIONS[:1]) == "you cannot pass now"
    assert read_move("", ACTIONS) == "type a move"


def test_gives_and_bombs_are_read_too() -> None:
    give = Give(0, parse_mask(["AS", "2H"]))
    bomb = Bomb(0, parse_ranks(["5", "T"]))
    assert read_move("give A♠ 2♥", [give, bomb]) == give
    assert read_move("bomb 5 10", [give, bomb]) == bomb


def test_the_listing_shows_both_notations() -> None:
    assert listed_action(ACTIONS[0]) == "play TD TC  (10♦ 10♣)"
    assert listed_action(Pass(0)) == "pass"


def test_the_places_and_points_are_said_with_the_players_names() -> None:
    names = ["you", "Aoi", "Ren"]
    assert places_in_words([(2, 1, 3)], names) == ["game 1: 1st Aoi, 2nd you, 3rd Ren"]
    assert points_in_words([(2, 1, 3), (1, 2, 3)], names) == "you 3, Aoi 3, Ren 0"
    assert points_in_words([(1, 2)], ["a", "b"], bonus=1) == "a 2, b 1"


def test_the_terminal_calls_players_by_name_never_seat_n() -> None:
    names = ["you", "Aoi", "Ren"]
    played = {"type": "CardsPlayed", "seat": 1, "cards": ["TD"], "jokers_as": []}
    passed = {"type": "Passed", "seat": 0}
    assert narrate([played, passed], 3, names) == ["Aoi plays 10♦", "You pass"]
    assert by_name("seat 2 gives 2♠ to seat 0", names) == "Ren gives 2♠ to you"
    assert by_name("seat 0 finishes 1st; seat 0 is out", names) == "you finish 1st; you are out"
