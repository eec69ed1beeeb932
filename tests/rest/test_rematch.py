"""A finished match's rematch over REST: every seat that asks gets the same new table
in its same seat (the first opens it), it starts once every seat is back, and nobody
but a seat of a finished match opens one."""

from __future__ import annotations

import httpx

from clients.sdk import DaifugoClient
from service.runtime import Running

from .support import new_match, play_out


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def test_every_seat_of_a_finished_match_sits_at_the_same_rematch(
    served: Running, http: httpx.AsyncClient, grpc_client: DaifugoClient
) -> None:
    created = await new_match(served, "torasobi", 3)
    match_id = created.match_id
    path = f"/matches/{match_id}/rematch"
    # before the end, without a token, with the host's token: no rematch, no table
    early = await http.post(path, headers=bearer(created.seat_tokens[0]))
    assert early.status_code == 409 and early.json()["code"] == "match_not_over"
    await play_out(grpc_client, created)
    nobody = await http.post(path)
    assert nobody.status_code == 401
    host = await http.post(path, headers=bearer(created.host_token))
    assert host.status_code == 403
    other = await new_match(served, "torasobi", 3)
    foreign = await http.post(path, headers=bearer(other.seat_tokens[0]))
    assert foreign.status_code == 403

    # nothing opened yet: the others' pages are told once a seat opens it
    assert (await http.get(path, headers=bearer(created.seat_tokens[0]))).status_code == 404
    assert (await http.get(path, headers=bearer(created.host_token))).status_code == 403
    first = await http.post(path, headers=bearer(created.seat_tokens[1]))
    assert first.status_code == 200, first.text
    table = first.json()
    assert table["seat"] == 1 and table["started"] is False and table["match_id"] != match_id
    # asked again (another tab, a lost reply): the same table and the same seat
    again = (await http.post(path, headers=bearer(created.seat_tokens[1]))).json()
    assert (again["match_id"], again["seat_token"]) == (table["match_id"], table["seat_token"])
    opened = (await http.get(path, headers=bearer(created.seat_tokens[0]))).json()
    assert opened["match_id"] == table["match_id"] and opened["started"] is False
    assert opened["names"][1] and not opened["names"][0]  # seat 1 is back, seat 0 not yet
    zero = (await http.post(path, headers=bearer(created.seat_tokens[0]))).json()
    assert zero["match_id"] == table["match_id"] and zero["seat"] == 0
    assert zero["started"] is False
    last = (await http.post(path, headers=bearer(created.seat_tokens[2]))).json()
    assert last["match_id"] == table["match_id"] and last["started"] is True

    old = await served.service.load(match_id)
    new = await served.service.load(table["match_id"])
    assert new.rules == old.rules and new.names == old.names and new.turn_ms == old.turn_ms
    seat = await http.get(f"/matches/{new.match_id}/seat", headers=bearer(last["seat_token"]))
    assert seat.json()["view"]["seat"] == 2
