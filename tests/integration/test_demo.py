"""``daifugo demo`` plays through the real API and says where to watch and audit."""

from __future__ import annotations

import pytest

from clients.demo import demo_matches
from service.runtime import Running


async def test_the_demo_prints_each_match_with_its_page_audit_command_and_results(
    running: Running, capsys: pytest.CaptureFixture[str]
) -> None:
    target = f"127.0.0.1:{running.grpc_port}"
    assert await demo_matches(target, 2, "classic", 3, 1, web="http://example.test:9/") == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 12  # per match: id, page, audit, places (a heading, 1 game), points
    for at in (0, 6):
        match_id, page, audit, heading, game, points = lines[at : at + 6]
        assert page == f"  watch or replay: http://example.test:9/#/match/{match_id}"
        assert audit == f"  audit: daifugo audit {match_id}"
        match = await running.service.load(match_id)
        assert match.over and heading == "  places by game:"
        # the places in words, by the bots' names, as the match's results say
        names = ["stronger bot (seat 0)", "greedy bot (seat 1)", "random bot (seat 2)"]
        (places,) = match.game.results
        first, second, third = sorted(range(3), key=lambda seat: places[seat])
        said = f"1st {names[first]}, 2nd {names[second]}, 3rd {names[third]}"
        assert game == f"    game 1: {said}"
        assert points.startswith("  points (a game gives players − place: the 1st 2, the last 0)")
        assert points.endswith(f"{names[first]} 2, {names[second]} 1, {names[third]} 0")


def test_a_demo_on_its_own_service_says_its_links_end() -> None:
    from clients.demo import links_note

    assert links_note(own_service=False) is None
    note = links_note(own_service=True)
    assert note is not None and "stops" in note and "--grpc" in note
