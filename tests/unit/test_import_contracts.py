"""The layers' import contracts (pyproject.toml, ``[tool.importlinter]``; the rules are in
docs/CONTRIBUTING.md, "Layers") hold: CI runs ``lint-imports`` itself, and this runs it
wherever the tests run, so a change that breaks a layer fails here first. (In a process
of its own: import-linter configures logging, which would silence this process's loggers.)"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_layers_import_only_downward() -> None:
    lint = Path(sys.executable).parent / "lint-imports"
    checked = subprocess.run(
        [str(lint), "--no-cache", "--config", str(ROOT / "pyproject.toml")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
