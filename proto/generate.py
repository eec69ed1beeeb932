"""Generate the Python gRPC code from proto/ into service/grpc/gen/.

    .venv/bin/python proto/generate.py           # write the generated code
    .venv/bin/python proto/generate.py --check   # exit 1 if it would change (CI)

protoc writes absolute imports (``daifugo.v1``); they are rewritten to the
package the code lives in, so the generated code needs no path tricks.
"""

from __future__ import annotations

import argparse
import filecmp
import re
import shutil
import sys
import tempfile
from pathlib import Path

from grpc_tools import protoc

ROOT = Path(__file__).resolve().parent.parent
PROTO = ROOT / "proto"
TARGET = ROOT / "service" / "grpc" / "gen"
PACKAGE = "service.grpc.gen"


def generate(out: Path) -> None:
    sources = sorted(str(p.relative_to(PROTO)) for p in PROTO.rglob("*.proto"))
    include = str(Path(protoc.__file__).parent / "_proto")
    status = protoc.main(["protoc", f"-I{PROTO}", f"-I{include}", f"--python_out={out}",
                          f"--pyi_out={out}", f"--grpc_python_out={out}", *sources])  # fmt: skip
    if status != 0:
        sys.exit(f"protoc failed ({status})")
    for path in out.rglob("*.py*"):
        text = path.read_text()
        text = re.sub(r"^from daifugo\.", f"from {PACKAGE}.daifugo.", text, flags=re.M)
        text = re.sub(r"^import daifugo\.", f"import {PACKAGE}.daifugo.", text, flags=re.M)
        path.write_text(text)
    for folder in [out, *(p for p in out.rglob("*") if p.is_dir())]:
        (folder / "__init__.py").touch()


def same_tree(left: Path, right: Path) -> bool:
    compared = filecmp.dircmp(left, right)
    if compared.left_only or compared.right_only or compared.diff_files or compared.funny_files:
        return False
    return all(same_tree(left / sub, right / sub) for sub in compared.common_dirs
               if sub != "__pycache__")  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch)
        generate(out)
        if args.check:
            if TARGET.exists() and same_tree(out, TARGET):
                return 0
            print("generated gRPC code is out of date: run proto/generate.py", file=sys.stderr)
            return 1
        shutil.rmtree(TARGET, ignore_errors=True)
        shutil.copytree(out, TARGET)
    return 0


if __name__ == "__main__":
    sys.exit(main())
