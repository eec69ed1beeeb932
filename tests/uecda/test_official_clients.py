"""Five official contest clients play a whole match against the service."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.app.match import fold_match, stream_of
from service.audit.auditor import audit_events
from service.uecda.server import UecdaSettings
from tests.service_support import isolated_service

from .support import Recorder, parse_stream, run_clients, told_places

pytestmark = pytest.mark.asyncio
GAMES = 10


async def test_five_official_clients_play_ten_games(redis_url: str, official_client: Path) -> None:
    settings = UecdaSettings(games=GAMES, turn_seconds=30.0)
    async with isolated_service(redis_url, grpc_port=0, uecda_port=0, uecda=settings) as running:
        assert running.uecda is not None and running.uecda_port is not None
        recorder = Recorder(running.uecda_port)
        async with recorder.running():
            codes = await run_clients(official_client, recorder.port, [f"cli{n}" for n in range(5)])
        assert codes == [0] * 5
        [match_id] = running.uecda.match_ids
        stored = await running.service.store.read(stream_of(match_id), 0)
        match = fold_match(None, stored)
        assert match.over and match.rules.preset == "uecda"
        assert match.game.game_number == GAMES
        assert sorted(match.names) == [f"cli{n}" for n in range(5)]
        report = audit_events(stored)
        assert report.verdict == "valid", report.to_dict()
        transcripts = [parse_stream(bytes(received)) for received in recorder.received]
        assert sorted(t.player for t in transcripts) == list(range(5))
        replayed = [list(places) for places in match.game.results]
        for transcript in transcripts:
            assert len(transcript.games) == GAMES
            assert told_places(transcript) == replayed[: GAMES - 1]
