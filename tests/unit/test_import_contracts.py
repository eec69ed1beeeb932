"""The layers' import contracts (pyproject.toml, ``[tool.importlinter]``; the rules are in
docs/CONTRIBUTING.md, "Layers") hold: CI runs ``lint-imports`` itself, and this runs it
wherever the tests run, so a change that breaks a layer fails here first."""

from __future__ import annotations

from pathlib import Path

import pytest
from importlinter.cli import lint_imports

ROOT = Path(__file__).resolve().parents[2]


def test_the_layers_import_only_downward(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(ROOT)  # the packages are found from the project's root
    result = lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True)
    assert result == 0, capsys.readouterr().out
