"""Write the View's field-by-field code in service/rules/views.py from its one
declaration (service/rules/view_fields.py): the dataclass's fields, ``build_view``'s
``View(...)`` and ``position_of``'s statements, each between ``# generated`` markers.

    .venv/bin/python tools/generate_views.py           # write them
    .venv/bin/python tools/generate_views.py --check   # exit 1 if it would change (CI)

The code is generated rather than looped over at run time: a view is built for every
viewer after every action, and plain keyword arguments and assignments are the fastest
Python has (and what mypyc compiles best). The result is formatted with ruff."""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from service.rules.view_fields import FIELDS  # noqa: E402

VIEWS = ROOT / "service" / "rules" / "views.py"
BEGIN = "# generated from service/rules/view_fields.py by tools/generate_views.py: {part}"
END = "# end of the generated {part}"
LINE_LENGTH = 100  # ruff's, pyproject.toml


def _comments(lines: list[str], indent: str, *texts: str) -> None:
    lines += [f"{indent}# {text}" for text in texts if text]


def fields() -> list[str]:
    lines: list[str] = []
    for field in FIELDS:
        default = f" = {field.default}" if field.default is not None else ""
        line = f"    {field.name}: {field.type}{default}"
        beside = f"{line}  # {field.note}"
        fits = field.note and len(beside) <= LINE_LENGTH
        _comments(lines, "    ", field.heading, "" if fits else field.note)
        lines.append(beside if fits else line)
    return lines


def build() -> list[str]:
    made = [f"        {field.name}={field.make}," for field in FIELDS]
    return ["    return View(", *made, "    )"]


def read_back() -> list[str]:
    statements = (field.read_statement() for field in FIELDS)
    return [f"    {statement}" for statement in statements if statement is not None]


PARTS = {"fields": fields, "view": build, "read back": read_back}


def generated(text: str) -> str:
    for part, make in PARTS.items():
        begin, end = BEGIN.format(part=part), END.format(part=part)
        around = rf"(^[ ]*{re.escape(begin)}\n).*?(^[ ]*{re.escape(end)}\n)"
        found = list(re.finditer(around, text, re.S | re.M))
        if len(found) != 1:
            sys.exit(f"{VIEWS}: the markers of the generated {part} are not there once")
        (region,) = found
        code = "\n".join(make()) + "\n"
        text = text[: region.end(1)] + code + text[region.start(2) :]
    ruff = Path(sys.executable).parent / "ruff"
    formatted = subprocess.run(
        [str(ruff), "format", "--stdin-filename", str(VIEWS), "-"],
        input=text, capture_output=True, text=True, check=True, cwd=ROOT,
    )  # fmt: skip
    return formatted.stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    current = VIEWS.read_text()
    wanted = generated(current)
    if args.check:
        if wanted != current:
            print(f"{VIEWS.relative_to(ROOT)} is not what tools/generate_views.py writes: run it")
            return 1
        return 0
    VIEWS.write_text(wanted)
    return 0


if __name__ == "__main__":
    sys.exit(main())
