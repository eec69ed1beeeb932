"""Whatever a caller puts in a bearer token, it is refused as unauthenticated (never a
server error with a traceback), over REST and gRPC; names hold no character that is
not seen as itself or that breaks a line, and no name can add a tag to the text record."""

from __future__ import annotations

import grpc
import httpx
import pytest

from clients.sdk import DaifugoClient, Refused
from eventstore import RedisEventStore
from service.app.match import stream_of
from service.grpc.gen.daifugo.v1 import match_service_pb2 as pb
from service.grpc.gen.daifugo.v1 import match_service_pb2_grpc as pb_grpc
from tests.serve_process import ServeProcess

# what an attacker may send as the token: not ASCII, huge, malformed, empty
HOSTILE_TOKENS = [
    "\xe9",
    "caf\xe9" * 100,
    "\u5f01" * 64,
    "t" * 60_000,
    "a.b.c",
    "\x7f\x01",
    "=" * 43,
    "..",
]


async def test_any_bearer_token_over_rest_is_401(
    client: DaifugoClient, http: httpx.AsyncClient
) -> None:
    created = await client.create_match("classic", 3)
    path = f"/matches/{created.match_id}/seat"
    honest = await http.get(path, headers={"Authorization": f"Bearer {created.seat_tokens[0]}"})
    assert honest.status_code == 200, honest.text
    for token in HOSTILE_TOKENS:
        # sent as the bytes a client puts on the wire (Latin-1 for a header), or UTF-8
        for raw in {token.encode("latin-1", "replace"), token.encode()}:
            # a control byte is not HTTP: the parser refuses the request before the app
            expected = 400 if any(byte < 0x20 or byte == 0x7F for byte in raw) else 401
            answer = await http.get(path, headers=[(b"Authorization", b"Bearer " + raw)])
            assert answer.status_code == expected, (token[:20], answer.status_code, answer.text)
            if expected == 401:
                assert answer.json()["code"] == "unauthenticated"
            act = await http.post(
                f"/matches/{created.match_id}/actions",
                json={"action": "pass"},
                headers=[(b"Authorization", b"Bearer " + raw)],
            )
            assert act.status_code == expected, (token[:20], act.status_code, act.text)


async def test_any_bearer_token_over_grpc_is_unauthenticated(
    client: DaifugoClient, served: ServeProcess
) -> None:
    created = await client.create_match("classic", 3)
    request = pb.GetViewRequest(match_id=created.match_id)
    async with grpc.aio.insecure_channel(served.grpc_target) as channel:
        stub = pb_grpc.MatchServiceStub(channel)
        honest = (("authorization", f"Bearer {created.seat_tokens[0]}"),)
        await stub.GetView(request, metadata=honest, timeout=20)
        # gRPC metadata values are printable ASCII (the library sends no other)
        for token in [token for token in HOSTILE_TOKENS if _printable_ascii(token)]:
            metadata = (("authorization", f"Bearer {token}"),)
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await stub.GetView(request, metadata=metadata, timeout=20)
            assert refused.value.code() in UNAUTHENTICATED, (token[:20], refused.value)


# past gRPC's metadata size limit the transport refuses the call before the service
UNAUTHENTICATED = (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.RESOURCE_EXHAUSTED)


def _printable_ascii(text: str) -> bool:
    return all(" " <= char <= "~" for char in text)


BAD_NAMES = [
    "a\u061cb",  # Arabic letter mark (Cf)
    "a\u200bb",  # zero-width space (Cf)
    "a\u2028b",  # line separator (Zl)
    "a\u2029b",  # paragraph separator (Zp)
    "a\x85b",  # next line (Cc)
    "\ufeffa",  # byte order mark (Cf)
    'x"]\n[Seat9 "forged',
]


@pytest.mark.parametrize("name", BAD_NAMES)
async def test_names_that_break_lines_or_hide_are_refused(
    client: DaifugoClient, http: httpx.AsyncClient, store: RedisEventStore, name: str
) -> None:
    created = await client.create_match("classic", 3, open_seats=True)
    stream = stream_of(created.match_id)
    await client.join(created.match_id, "honest name")
    version = await store.version(stream)
    with pytest.raises(Refused) as refusal:
        await client.join(created.match_id, name)
    assert refusal.value.code == "invalid_name"
    assert await store.version(stream) == version
    # the page's ways in: a table's creator, and an invite's taker
    before = await store.stream_count()
    table = {"preset": "classic", "players": 3, "seat": 0}
    created_by_page = await http.post("/matches", json={**table, "name": "host"})
    assert created_by_page.status_code == 201, created_by_page.text
    refused = await http.post("/matches", json={**table, "name": name})
    assert (refused.status_code, refused.json()["code"]) == (400, "invalid_name"), refused.text
    assert await store.stream_count() == before + 1
    invite = created_by_page.json()["invites"][0]
    path = f"/matches/{created_by_page.json()['match_id']}/seats"
    taken = await http.post(path, json={"secret": invite["secret"], "name": name})
    assert (taken.status_code, taken.json()["code"]) == (400, "invalid_name"), taken.text


async def test_no_name_adds_a_line_or_a_tag_to_the_text_record(
    client: DaifugoClient, http: httpx.AsyncClient
) -> None:
    created = await client.create_match("classic", 3, open_seats=True)
    forged = 'x"] [Seat9 "forged'
    await client.join(created.match_id, forged)
    await client.join(created.match_id, "back\\slash")
    record = await http.get(f"/matches/{created.match_id}/record")
    assert record.status_code == 200, record.text
    head = record.text.split("\n\n")[0].splitlines()
    assert all(line.startswith("[") and line.endswith('"]') for line in head), head
    tags = [line.split(" ", 1)[0] for line in head]
    assert "[Seat9" not in tags and len(tags) == len(set(tags)), tags
    assert '[Seat0 "x\\"] [Seat9 \\"forged"]' in head
    assert '[Seat1 "back\\\\slash"]' in head
