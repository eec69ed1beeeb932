"""Five official contest clients play a whole match against the service."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest

from service.app.match import fold_match, stream_of
from service.app.snapshots import decoded
from service.audit.auditor import audit_events
from service.uecda.server import PRESET, UecdaSettings
from tests.service_support import isolated_service

from .support import Recorder, parse_stream, run_clients, told_places

pytestmark = pytest.mark.asyncio
GAMES = 10


async def test_five_official_clients_play_ten_games(redis_url: str, official_client: Path) -> None:
    settings = UecdaSettings(games=GAMES, turn_seconds=30.0)
    async with isolated_service(
        redis_url, grpc_port=0, http_port=0, uecda_port=0, uecda=settings
    ) as running:
        assert running.uecda is not None and running.uecda_port is not None
        recorder = Recorder(running.uecda_port)
        async with recorder.running():
            codes = await run_clients(official_client, recorder.port, [f"cli{n}" for n in range(5)])
        assert codes == [0] * 5
        [match_id] = running.uecda.match_ids
        stored = await running.service.store.read(stream_of(match_id), 0)
        match = fold_match(None, stored)
        assert match.over and match.rules.preset == PRESET
        assert match.game.game_number == GAMES
        assert sorted(match.names) == [f"cli{n}" for n in range(5)]
        report = audit_events(stored)
        assert report.verdict == "valid", report.to_dict()
        # the table's group-committed steps made its snapshots, with nothing read back
        snapshots = running.service.snapshots
        await snapshots.written()
        assert snapshots.read == 0
        for boundary in range(snapshots.every - 1, len(stored), snapshots.every):
            found = await snapshots.snapshots.at_or_before(stream_of(match_id), boundary)
            assert found is not None and found.seq == boundary
            held = decoded(found)
            assert held is not None and held.match == fold_match(None, stored[: boundary + 1])
        transcripts = [parse_stream(bytes(received)) for received in recorder.received]
        assert sorted(t.player for t in transcripts) == list(range(5))
        replayed = [list(places) for places in match.game.results]
        for transcript in transcripts:
            assert len(transcript.games) == GAMES
            assert told_places(transcript) == replayed[: GAMES - 1]
        # the programs' leaderboard: places and points by profile name
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{running.http_port}") as rest:
            for _ in range(300):
                standings = (await rest.get("/rankings")).json()["rankings"]
                if sum(standing["games"] for standing in standings) == 5 * GAMES:
                    break
                await asyncio.sleep(0.1)
            # once all are counted, read again: a page is read field by field, not at once
            standings = (await rest.get("/rankings")).json()["rankings"]
        by_name = {standing["name"]: standing for standing in standings}
        assert set(by_name) == {f"cli{n}" for n in range(5)}
        for seat, name in enumerate(match.names):
            places = [place[seat] for place in replayed]
            assert by_name[name]["games"] == GAMES
            assert by_name[name]["points"] == sum(6 - place for place in places)  # 5/4/3/2/1
            assert by_name[name]["places"][0] == places.count(1)
