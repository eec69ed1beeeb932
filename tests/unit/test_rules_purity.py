"""service/rules stays pure: it imports nothing from the rest of the project and
no module that does I/O, keeps time or draws random numbers."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

RULES = Path(__file__).resolve().parents[2] / "service" / "rules"
ALLOWED_STDLIB = {
    "__future__",
    "collections",
    "dataclasses",
    "enum",
    "functools",
    "itertools",
    "typing",
}


def _imports(path: Path) -> list[tuple[str, int]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found += [(alias.name, 0) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            found.append((node.module or "", node.level))
    return found


def test_rules_import_only_pure_modules() -> None:
    offenders = []
    for path in sorted(RULES.glob("*.py")):
        for module, level in _imports(path):
            if level > 1 or (level == 0 and module.startswith("service")):
                offenders.append(f"{path.name}: {'.' * level}{module}")
                continue
            if level == 1:
                continue
            top = module.split(".")[0]
            if top not in ALLOWED_STDLIB:
                offenders.append(f"{path.name}: {module}")
    assert not offenders, offenders


def test_allowed_modules_are_standard_library() -> None:
    assert ALLOWED_STDLIB - {"__future__"} <= set(sys.stdlib_module_names)
