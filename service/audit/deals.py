"""A deck order behind a recorded deal. The log records the hands, not the
deck; the legality check needs a deck to hand ``Deal`` so the rules decide the
whole deal (leader, exchange, tenpenchi…) and can be compared with the log.
Which deck it was is the seed commitment check's business."""

from __future__ import annotations

from ..rules import MatchState
from ..rules.cards import cards_of, is_canonical
from ..rules.dealing import is_seat_order, round_from
from ..rules.events import GameDealt


def deck_of_deal(state: MatchState, dealt: GameDealt) -> tuple[int, ...] | None:
    """An order of the deck that ``rules.dealing.deal`` deals into ``dealt``'s
    hands, blind and unused cards from ``state``; None when the hands cannot be
    dealt round the table (wrong sizes, or not card masks)."""
    players = state.players
    hands = dealt.hands
    if not isinstance(hands, tuple) or len(hands) != players:
        return None
    if not all(_is_mask(mask) for mask in (*hands, dealt.blind, dealt.unused)):
        return None
    seating, start = dealt.seating, dealt.deal_start
    if seating and not is_seat_order(seating, players):
        return None
    if not isinstance(start, int) or isinstance(start, bool) or not 0 <= start < players:
        return None
    order = round_from(seating, players, start)
    # the inverse of deal(): blind cards on top (taken off, or left out; a left-out
    # joker is the first joker met), then the hands one card each round the
    # table from the seat dealt first, then the unused cards off the bottom
    takes_blind = players == 4 and state.rules.blind_cards_with_four and not state.blind
    queues = [list(cards_of(hand)) for hand in hands]
    dealt_round: list[int] = []
    for index in range(sum(len(queue) for queue in queues)):
        queue = queues[order[index % players]]
        if not queue:
            return None
        dealt_round.append(queue.pop(0))
    top = cards_of(dealt.blind if takes_blind else state.blind)
    return (*top, *dealt_round, *cards_of(dealt.unused))


def _is_mask(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and is_canonical(value)
