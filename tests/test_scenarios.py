"""Every conformance scenario kept in the repo passes through the real decider."""

from __future__ import annotations

import filecmp
from pathlib import Path

import pytest

from service.cli import main
from service.scenarios import run_file, run_paths

HERE = Path(__file__).parent / "scenarios"
# shared/ sits beside the clone (or beside the folder of worktrees holding it)
SHARED = next(
    (up / "shared" / "scenarios" for up in Path(__file__).resolve().parents[2:4]
     if (up / "shared" / "scenarios").is_dir()),
    Path(__file__).resolve().parents[2] / "shared" / "scenarios",
)  # fmt: skip
# each shared folder kept here, and where: public/ at the top, uecda/ as uecda/
KEPT = {"public": HERE, "uecda": HERE / "uecda"}
FILES = sorted(HERE.rglob("*.json"))


def test_the_repo_keeps_scenarios() -> None:
    assert len(FILES) >= 47


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(HERE)) for p in FILES])
def test_scenario(path: Path) -> None:
    outcome = run_file(path)
    assert outcome.passed, outcome.line()


@pytest.mark.skipif(not SHARED.is_dir(), reason="no shared/ beside this clone")
@pytest.mark.parametrize("folder", sorted(KEPT))
def test_scenarios_match_the_shared_copy(folder: str) -> None:
    source, kept = SHARED / folder, KEPT[folder]
    shared = sorted(p.name for p in source.glob("*.json"))
    assert shared, f"no scenarios in {source}"
    missing = [name for name in shared if not (kept / name).exists()]
    differing = [name for name in shared if (kept / name).exists()
                 and not filecmp.cmp(source / name, kept / name, shallow=False)]  # fmt: skip
    assert not missing and not differing, (missing, differing)


def test_runner_reports_failures_and_bad_files(tmp_path: Path) -> None:
    (tmp_path / "broken.json").write_text("{not json")
    (tmp_path / "wrong.json").write_text(
        '{"name": "wrong", "rules": {"preset": "federation"}, "players": 2,'
        ' "start": {"hands": [["3D"], ["4D"]], "leader": 0},'
        ' "steps": [{"seat": 0, "play": ["3D"], "expect": {"turn": 0}}]}'
    )
    lines: list[str] = []
    assert not run_paths([tmp_path], lines.append)
    assert lines[0].startswith("FAIL broken: not scenario JSON")
    assert lines[1] == "FAIL wrong: step 1: turn differs (expected 0, got null)"
    assert lines[-1] == "0 passed, 2 failed"


@pytest.mark.parametrize(
    "start",
    [
        '{"hands": [["3D"], [], ["4D"]], "leader": 0}',  # a seat holds no card
        '{"hands": [["3D"], ["5D"], ["4D"]], "leader": "0"}',
        '{"hands": [["3D"], ["5D"], ["4D"]], "game_number": "2"}',
    ],
)
def test_a_start_the_rules_refuse_is_a_bad_request_failure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], start: str
) -> None:
    (tmp_path / "start.json").write_text(
        f'{{"name": "start", "rules": {{"preset": "classic"}}, "players": 3, "start": {start},'
        ' "steps": []}'
    )
    assert main(["scenario", str(tmp_path)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("FAIL start: start: bad_request: ")
    assert lines[-1] == "0 passed, 1 failed"
