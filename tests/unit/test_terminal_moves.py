"""``daifugo play`` reads a move as a person writes it: its number, p or pass, or its
cards in either notation the terminal shows (``TD TC`` or ``10♦ 10♣``); and it says the
places in words at the end."""

from __future__ import annotations

from clients.terminal import listed_action, places_in_words, read_move
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


def test_the_places_are_said_in_words() -> None:
    assert places_in_words([(2, 1, 3)], me=0) == [
        "game 1: 1st seat 1, 2nd you (seat 0), 3rd seat 2"
    ]
