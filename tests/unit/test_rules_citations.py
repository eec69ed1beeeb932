"""Code and tests cite the project's own rules reference, docs/RULES.md: every
section, local-rule number and clarification they name exists. (The scenario files
are the owner's copies, byte for byte: they cite the owner's rule sheet.)"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).parents[2]
RULES = (ROOT / "docs/RULES.md").read_text()
CITATION = re.compile(r"docs/RULES\.md §(\d)(?: #(\d+)| Clarifications (\d+))?")


def _cited() -> list[tuple[str, re.Match[str]]]:
    listed = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    found = []
    for name in listed:
        path = ROOT / name
        if path.suffix in {".py", ".js", ".json", ".md", ".proto"} and path.is_file():
            found += [(name, match) for match in CITATION.finditer(path.read_text())]
    return found


def _rule_numbers() -> set[int]:
    """The local rules' numbers, from the first cell of their rows: ``27``, and
    the rows that share one text, ``27–29`` or ``47, 48``."""
    numbers: set[int] = set()
    for cell in re.findall(r"\n\| ([\d–, ]+) \| `", RULES):
        for part in cell.split(","):
            first, _, last = part.strip().partition("–")
            numbers.update(range(int(first), int(last or first) + 1))
    return numbers


def test_every_citation_names_a_section_that_exists() -> None:
    cited = _cited()
    assert len(cited) > 50
    clarifications = RULES[RULES.index("**Clarifications.**") :]
    numbers = _rule_numbers()
    for name, match in cited:
        section, rule, clarification = match.groups()
        assert f"\n## {section}. " in RULES, (name, match.group(0))
        if rule:
            assert int(rule) in numbers, (name, match.group(0))
        if clarification:
            assert f"\n{clarification}. **" in clarifications, (name, match.group(0))


def test_every_rules_citation_is_to_docs_rules() -> None:
    bare = re.compile(r"(?<![\w/.])RULES\.md")
    listed = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    for name in listed:
        path = ROOT / name
        if name.startswith("tests/scenarios/"):
            continue
        if path.suffix in {".py", ".js", ".json", ".proto"} and path.is_file():
            assert not bare.search(path.read_text()), name
