"""service/rules and service/match stay pure: the rules import nothing from the rest
of the project, the match decider nothing but the rules, and neither imports a module
that does I/O, keeps time or draws random numbers; and nothing in the rules but their memo
tables (service/rules/memo.py, written only through ``memo.remember``) keeps anything
between calls."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

SERVICE = Path(__file__).resolve().parents[2] / "service"
RULES = SERVICE / "rules"
MEMO = RULES / "memo.py"
MUTATORS = {"append", "add", "clear", "extend", "insert", "pop", "popitem", "remove"}
MUTATORS |= {"discard", "setdefault", "update", "sort", "reverse", "__setitem__"}
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


def _module_names(tree: ast.Module) -> set[str]:
    """Names bound at a module's top level: its assignments and its imports."""
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
    return names


def _writes_to_module_state(path: Path) -> list[str]:
    """Where a function of the module changes something the module holds."""
    tree = ast.parse(path.read_text())
    shared = _module_names(tree)
    found = []
    for function in ast.walk(tree):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for node in ast.walk(function):
            where = f"{path.name}:{getattr(node, 'lineno', '?')}"
            if isinstance(node, ast.Global | ast.Nonlocal):
                found.append(f"{where}: {type(node).__name__.lower()} {', '.join(node.names)}")
            targets: list[ast.expr] = []
            if isinstance(node, ast.Assign):
                targets = node.targets
            elif isinstance(node, ast.AugAssign | ast.AnnAssign):
                targets = [node.target]
            elif isinstance(node, ast.Delete):
                targets = node.targets
            for target in targets:
                base = target
                while isinstance(base, ast.Subscript | ast.Attribute):
                    base = base.value
                if base is not target and isinstance(base, ast.Name) and base.id in shared:
                    found.append(f"{where}: writes into {base.id}")
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in MUTATORS
            ):
                base = node.func.value
                while isinstance(base, ast.Subscript | ast.Attribute):
                    base = base.value
                if isinstance(base, ast.Name) and base.id in shared:
                    found.append(f"{where}: {base.id}...{node.func.attr}()")
    return sorted(found)


def test_only_the_memo_tables_keep_anything_between_calls() -> None:
    offenders = []
    for path in sorted(RULES.glob("*.py")):
        if path != MEMO:
            offenders += _writes_to_module_state(path)
    assert not offenders, offenders


def test_the_memo_module_holds_tables_and_writes_them_only_through_remember() -> None:
    tree = ast.parse(MEMO.read_text())
    functions = [node.name for node in tree.body if isinstance(node, ast.FunctionDef)]
    assert functions == ["remember"]
    assert _writes_to_module_state(MEMO) == []  # remember writes its argument, no global


def test_a_table_kept_outside_the_memo_module_is_found(tmp_path: Path) -> None:
    planted = tmp_path / "melds.py"
    planted.write_text(
        "_SEEN: dict[int, int] = {}\n"
        "def classify(mask: int) -> int:\n"
        "    if len(_SEEN) > 9:\n"
        "        _SEEN.clear()\n"
        "    _SEEN[mask] = mask\n"
        "    return mask\n"
    )
    assert _writes_to_module_state(planted) == [
        "melds.py:4: _SEEN...clear()",
        "melds.py:5: writes into _SEEN",
    ]
