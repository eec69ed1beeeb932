"""While a match is live, no spectator endpoint shows a card of any hand, a
blind card or an unused card (only what was played in public); once it is
over, everything is shown."""

from __future__ import annotations

import httpx
import pytest

from clients.sdk import DaifugoClient
from service.app.match import Match
from service.app.service import CreatedMatch
from service.rules.cards import format_mask
from service.rules.vocabulary import Phase
from service.runtime import Running

from .support import (
    advance,
    cards_in,
    hidden_cards,
    new_match,
    play_out,
    read_sse,
    stored,
    wait_listed,
)


async def spectator_texts(http: httpx.AsyncClient, match_id: str, version: int) -> dict[str, str]:
    """Every spectator endpoint's answer about the match, as text."""
    url = f"/matches/{match_id}"
    texts = {
        "list": (await http.get("/matches", params={"limit": 200})).text,
        "match": (await http.get(url)).text,
        "events": (await http.get(f"{url}/events", params={"limit": 500})).text,
        "record": (await http.get(f"{url}/record")).text,
        "jsonl": (await http.get(f"{url}/record", params={"format": "jsonl"})).text,
        "audit": (await http.get(f"{url}/audit")).text,
        "rankings": (await http.get("/rankings")).text,
    }
    for seq in range(version + 1):
        texts[f"state {seq}"] = (await http.get(f"{url}/state", params={"seq": seq})).text
    streamed = await read_sse(http, f"{url}/live", until_seq=version)
    texts["live"] = "\n".join(str(event["data"]) for event in streamed)
    return texts


@pytest.mark.parametrize(
    ("preset", "players"),
    [("federation", 4), ("classic", 2)],  # blind cards with four; unused cards with two
)
async def test_no_hidden_card_shows_before_the_end_and_all_do_after(
    served: Running,
    http: httpx.AsyncClient,
    grpc_client: DaifugoClient,
    preset: str,
    players: int,
) -> None:
    created = await new_match(served, preset, players)
    match = await advance(served, created, 5)
    hidden = hidden_cards(match)
    assert len(hidden) > 20
    if preset == "federation":
        assert match.game.blind
    else:
        assert match.game.unused
    await wait_listed(http, created.match_id, "live")
    texts = await spectator_texts(http, created.match_id, match.version)
    for name, text in texts.items():
        assert not cards_in(text, hidden), f"{name} shows hidden cards"
    audit = await http.get(f"/matches/{created.match_id}/audit")
    assert audit.status_code == 409 and audit.json()["code"] == "match_not_over"

    await play_out(grpc_client, created)
    done = await served.service.load(created.match_id)
    assert done.over
    url = f"/matches/{created.match_id}"
    body = (await http.get(url)).json()
    assert body["state"] == "finished" and body["view"]["hands"] is not None
    assert body["view"]["blind" if preset == "federation" else "unused"]
    for name in ("events", "record", "jsonl", "live"):
        if name == "live":
            streamed = await read_sse(http, f"{url}/live", until_seq=done.version)
            text = "\n".join(str(event["data"]) for event in streamed)
        elif name == "events":
            text = (await http.get(f"{url}/events", params={"limit": 500})).text
        else:
            params = {"format": "jsonl"} if name == "jsonl" else {}
            text = (await http.get(f"{url}/record", params=params)).text
        assert cards_in(text, hidden) == hidden, f"{name} does not show the whole deal"
    dealt = (await http.get(f"{url}/state", params={"seq": match.version})).json()
    assert cards_in(str(dealt["view"]), hidden) == hidden


async def play_until_someone_leaves_holding_cards(
    running: Running, created: CreatedMatch
) -> tuple[Match, int] | None:
    """Take each seat's first legal action until a seat has left the game of a
    live match with cards in hand (miyako-ochi, a forced forbidden finish…):
    the match then and that seat; None if the match ended first."""
    service = running.service
    while True:
        match = await service.load(created.match_id)
        game = match.game
        if match.over or game.turn is None:
            return None
        kept = [s for s in range(game.players) if not game.is_active(s) and game.hands[s]]
        if game.phase == Phase.IN_GAME and kept:
            return match, kept[0]
        token = created.seat_tokens[game.turn]
        actions = (await service.seen(created.match_id, token)).actions
        chosen = actions[0]
        await service.act(created.match_id, token, lambda seat, chosen=chosen: chosen)


async def test_cards_kept_on_leaving_show_to_their_holder_then_to_everyone(
    served: Running, http: httpx.AsyncClient, grpc_client: DaifugoClient
) -> None:
    """docs/RULES.md §1 Decision (the cards of a player who leaves holding some): a
    player who leaves holding cards keeps them until the next deal; the holder sees
    them, a spectator (view, replay, events) only once the match is over. The last
    player of each game keeps theirs too."""
    found = None
    for _ in range(6):  # the previous 大富豪 may finish first again and not fall
        created = await new_match(served, "federation", 4, games_per_set=5)
        found = await play_until_someone_leaves_holding_cards(served, created)
        if found is not None:
            break
    assert found is not None, "nobody left a game holding cards in six matches"
    match, seat = found
    kept = format_mask(match.game.hands[seat])
    codes = set(kept) - {"JK"}  # both jokers are "JK": a public one tells nothing
    url = f"/matches/{created.match_id}"

    def seat_headers(number: int) -> dict[str, str]:
        return {"Authorization": f"Bearer {created.seat_tokens[number]}"}

    own = (await http.get(f"{url}/seat", headers=seat_headers(seat))).json()["view"]
    assert sorted(own["hand"]) == sorted(kept)
    assert own["hand_sizes"][seat] == len(kept) and seat not in own["active"]
    other = (await http.get(f"{url}/seat", headers=seat_headers((seat + 1) % 4))).text
    assert not cards_in(other, codes)
    watched = (await http.get(url)).json()
    assert watched["view"]["hands"] is None and watched["view"]["hand_sizes"][seat] == len(kept)
    replay = await http.get(f"{url}/state", params={"seq": match.version})
    assert replay.json()["view"]["hands"] is None
    so_far = await stored(served, created.match_id)
    dealt = max(e.seq for e in so_far if e.type == "GameDealt")  # earlier games played them
    events = await http.get(f"{url}/events", params={"from": dealt, "limit": 500})
    assert '"leftover":null' in events.text
    for text in (watched, replay.text, events.text):
        assert not cards_in(str(text), codes)
    game_ends = [e.seq for e in so_far if e.type == "GameEnded"]
    for seq in game_ends:  # a game over while the match is live: no hand shows
        assert (await http.get(f"{url}/state", params={"seq": seq})).json()["view"]["hands"] is None

    await play_out(grpc_client, created)
    after = (await http.get(f"{url}/state", params={"seq": match.version})).json()["view"]
    assert sorted(after["hands"][seat]) == sorted(kept)
    history = await stored(served, created.match_id)
    for index, event in enumerate(history):
        if event.type != "PlayerFinished" or event.data["cause"] != "last":
            continue
        last = event.data["seat"]
        assert history[index + 1].type == "GameEnded"
        ended = await http.get(f"{url}/state", params={"seq": history[index + 1].seq})
        assert sorted(ended.json()["view"]["hands"][last]) == sorted(event.data["leftover"])
