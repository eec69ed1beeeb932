"""service/records stays below the service and the auditor: it imports nothing of the
service or its adapters and nothing that does I/O, so the auditor can verify
signatures without importing the serving path."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

RECORDS = Path(__file__).resolve().parents[2] / "service" / "records"
ALLOWED = {"cryptography", "eventstore.hashing"}
IO_MODULES = {"os", "io", "socket", "pathlib", "time", "random", "secrets", "asyncio"}


def test_records_import_only_the_standard_library_cryptography_and_the_hash_encoding() -> None:
    offenders = []
    for path in sorted(RECORDS.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level == 1:
                    continue  # the package's own modules
                names = [("." * node.level) + (node.module or "")]
            for name in names:
                top = name.split(".")[0]
                allowed = any(name == ok or name.startswith(ok + ".") for ok in ALLOWED)
                standard = top in sys.stdlib_module_names and top not in IO_MODULES
                if not (allowed or standard):
                    offenders.append(f"{path.name}: {name}")
    assert not offenders, offenders
