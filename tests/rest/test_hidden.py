"""While a match is live, no spectator endpoint shows a card of any hand, a
blind card or an unused card (only what was played in public); once it is
over, everything is shown."""

from __future__ import annotations

import httpx
import pytest

from clients.sdk import DaifugoClient
from service.app.runtime import Running

from .support import advance, cards_in, hidden_cards, new_match, play_out, read_sse, wait_listed


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
