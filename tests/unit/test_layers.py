"""Layers import only downward: each contract names a package and what it must never
import. A module imports what its import statements name (at any depth of the module,
under ``TYPE_CHECKING`` too), as import-linter counts it: ``from a import b`` imports
``a``, and ``a.b`` too when that is a module; ``import a.b`` imports ``a.b``.

A contract checked ``indirectly`` also follows the project's own modules: the package
must not reach a forbidden module through any chain of imports either. One checked
``directly`` looks at the package's own statements alone (REST may use a service that
keeps its state in Redis, but never Redis itself)."""

from __future__ import annotations

import ast
from collections import deque
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROJECT = ("service", "eventstore", "clients")


@dataclass(frozen=True)
class Contract:
    package: str
    forbidden: tuple[str, ...]
    indirectly: bool
    allowed: tuple[str, ...] = ()  # under a forbidden name, yet allowed (the package itself)

    def forbids(self, module: str) -> bool:
        if any(_within(module, ok) for ok in self.allowed):
            return False
        return any(_within(module, name) for name in self.forbidden)


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def project_modules(root: Path, packages: tuple[str, ...] = PROJECT) -> dict[str, Path]:
    """Every module of the project's packages, by dotted name."""
    modules = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            modules[".".join(parts)] = path
    return modules


def imports_of(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The modules one module's import statements name (relative ones resolved)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            found.add(target)
            for alias in node.names:
                if f"{target}.{alias.name}" in modules:
                    found.add(f"{target}.{alias.name}")
    return found


def violations(contract: Contract, root: Path = ROOT) -> list[str]:
    """Each way the package imports what the contract forbids: ``a -> b -> forbidden``."""
    modules = project_modules(root)
    graph = {name: imports_of(name, path, modules) for name, path in modules.items()}
    found = []
    for start in sorted(name for name in modules if _within(name, contract.package)):
        # breadth first: the shortest chain to each module reached
        chains: dict[str, tuple[str, ...]] = {start: (start,)}
        queue = deque([start])
        while queue:
            current = queue.popleft()
            for target in sorted(graph[current]):
                if contract.forbids(target):
                    found.append(" -> ".join((*chains[current], target)))
                    continue
                if contract.indirectly and target in graph and target not in chains:
                    chains[target] = (*chains[current], target)
                    queue.append(target)
    return sorted(set(found))


RULES = Contract(
    "service.rules",
    (*PROJECT, "tests", "bench"),
    indirectly=False,
    allowed=("service.rules",),
)
AUDIT = Contract(
    "service.audit",
    (
        "service.app",
        "service.rest",
        "service.grpc",
        "redis",
        "eventstore.connection",
        "eventstore.store",
    ),
    indirectly=True,
)
REST_ADAPTERS = Contract("service.rest", ("service.grpc",), indirectly=True)
REST_REDIS = Contract("service.rest", ("redis", "eventstore.connection"), indirectly=False)
APP = Contract("service.app", ("service.grpc", "service.rest", "service.uecda"), indirectly=True)

CONTRACTS = [
    pytest.param(RULES, id="rules-import-nothing-else-of-the-project"),
    pytest.param(AUDIT, id="audit-imports-no-service-or-store"),
    pytest.param(REST_ADAPTERS, id="rest-reaches-no-grpc"),
    pytest.param(REST_REDIS, id="rest-imports-no-redis"),
    pytest.param(APP, id="app-reaches-no-adapter"),
]


@pytest.mark.parametrize("contract", CONTRACTS)
def test_layers_import_only_downward(contract: Contract) -> None:
    found = violations(contract)
    assert not found, "imports against the layers:\n" + "\n".join(found)


# -- the checker itself, on a planted tree ---------------------------------------------


def _tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    for package in PROJECT:
        (root / package).mkdir(exist_ok=True)
    return root


def test_a_planted_direct_import_is_named(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "service/__init__.py": "",
            "service/rest/__init__.py": "",
            "service/rest/errors.py": "from ..grpc.mapping import status_code\n",
            "service/grpc/__init__.py": "",
            "service/grpc/mapping.py": "import grpc\n",
        },
    )
    assert violations(REST_ADAPTERS, root) == ["service.rest.errors -> service.grpc.mapping"]


def test_a_planted_indirect_import_is_named_with_its_chain(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "service/__init__.py": "",
            "service/app/__init__.py": "",
            "service/app/service.py": "from . import wiring\n",
            "service/app/wiring.py": (
                "from typing import TYPE_CHECKING\n"
                "if TYPE_CHECKING:\n"
                "    from service.rest import app\n"
            ),
            "service/rest/__init__.py": "",
            "service/rest/app.py": "",
        },
    )
    assert violations(APP, root) == [
        "service.app.service -> service.app.wiring -> service.rest",
        "service.app.service -> service.app.wiring -> service.rest.app",
        "service.app.wiring -> service.rest",
        "service.app.wiring -> service.rest.app",
    ]


def test_a_direct_contract_does_not_follow_imports(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "service/__init__.py": "",
            "service/rest/__init__.py": "",
            "service/rest/context.py": "from ..app.keyring import Keyring\n",
            "service/app/__init__.py": "",
            "service/app/keyring.py": "def f():\n    import redis.asyncio\n",
        },
    )
    assert violations(REST_REDIS, root) == []
    (root / "service/rest/live.py").write_text("from redis.exceptions import RedisError\n")
    assert violations(REST_REDIS, root) == ["service.rest.live -> redis.exceptions"]
