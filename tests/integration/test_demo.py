"""``daifugo demo`` plays through the real API and says where to watch and audit."""

from __future__ import annotations

import pytest

from clients.demo import demo_matches
from service.runtime import Running


async def test_the_demo_prints_each_match_with_its_page_and_audit_command(
    running: Running, capsys: pytest.CaptureFixture[str]
) -> None:
    target = f"127.0.0.1:{running.grpc_port}"
    assert await demo_matches(target, 2, "classic", 3, 1, web="http://example.test:9/") == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 6
    for match_id, page, audit in zip(lines[::3], lines[1::3], lines[2::3], strict=True):
        assert page == f"  watch or replay: http://example.test:9/#/match/{match_id}"
        assert audit == f"  audit: daifugo audit {match_id}"
        assert (await running.service.load(match_id)).over


def test_a_demo_on_its_own_service_says_its_links_end() -> None:
    from clients.demo import links_note

    assert links_note(own_service=False) is None
    note = links_note(own_service=True)
    assert note is not None and "stops" in note and "--grpc" in note
