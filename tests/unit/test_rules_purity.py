"""service/rules and service/match stay pure: the rules import nothing from the rest
of the project, the match decider nothing but the rules, and neither imports a module
that does I/O, keeps time or draws random numbers."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

SERVICE = Path(__file__).resolve().parents[2] / "service"
ALLOWED_STDLIB = {
    "__future__",
    "collections",
    "dataclasses",
    "enum",
    "functools",
    "itertools",
    "typing",
}
# the deterministic shuffle and the seed commitment: keyed hashes, no randomness
HASHING = {"hashlib", "hmac"}
PURE = {
    "rules": (ALLOWED_STDLIB, frozenset[str]()),
    "match": (ALLOWED_STDLIB | HASHING, frozenset({"rules"})),
}


def _imports(path: Path) -> list[tuple[str, int]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found += [(alias.name, 0) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            found.append((node.module or "", node.level))
    return found


def _offenders(package: str, directory: Path | None = None) -> list[str]:
    stdlib, siblings = PURE[package]
    offenders = []
    for path in sorted((directory or SERVICE / package).glob("*.py")):
        for module, level in _imports(path):
            if level == 1:
                continue  # the package's own modules
            sibling = module.split(".")[0]
            if level == 2 and sibling in siblings:
                continue
            if level > 1 or (level == 0 and module.startswith("service")):
                offenders.append(f"{path.name}: {'.' * level}{module}")
            elif module.split(".")[0] not in stdlib:
                offenders.append(f"{path.name}: {module}")
    return offenders


@pytest.mark.parametrize("package", sorted(PURE))
def test_pure_packages_import_only_pure_modules(package: str) -> None:
    assert (SERVICE / package / "__init__.py").exists()
    offenders = _offenders(package)
    assert not offenders, offenders


def test_the_check_finds_an_impure_import(tmp_path: Path) -> None:
    (tmp_path / "probe.py").write_text(
        "import time\nfrom ..app import service\nfrom ..rules import cards\nfrom . import x\n"
    )
    assert _offenders("match", tmp_path) == ["probe.py: time", "probe.py: ..app"]
    assert _offenders("rules", tmp_path) == [
        "probe.py: time",
        "probe.py: ..app",
        "probe.py: ..rules",
    ]


def test_allowed_modules_are_standard_library() -> None:
    assert (ALLOWED_STDLIB | HASHING) - {"__future__"} <= set(sys.stdlib_module_names)
