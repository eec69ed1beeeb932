"""A match as a readable game record (a kifu): tag-pair headers, then one line
per event that says something (``seat 2 plays 5H 5S``, ``eight-cut: field
flushed, seat 2 leads``, ``seat 1 finishes 1st (大富豪)``), numbered by seq.

It reads the events as the reader may see them (``visible`` records): a
hidden card list shows as a count.
"""

from __future__ import annotations

import datetime
import unicodedata
from collections.abc import Iterable
from typing import Any

from ..app.inputs import REFUSED_IN_NAMES
from ..app.match import Match
from ..rules.narration import describe


def headers(match: Match, state: str, created_ms: int) -> list[str]:
    created = datetime.datetime.fromtimestamp(created_ms / 1000, datetime.UTC)
    tags = [
        ("Match", match.match_id),
        ("Preset", match.rules.preset),
        ("Players", str(match.players)),
        ("GamesPerSet", str(match.rules.games_per_set)),
        ("Date", created.strftime("%Y-%m-%dT%H:%M:%SZ")),
        *((f"Seat{seat}", name) for seat, name in enumerate(match.names)),
        ("State", state),
    ]
    if match.commitment:
        tags.append(("SeedCommitment", match.commitment))
    if match.seed:
        tags.append(("Seed", match.seed))
    if match.game.results:
        results = " | ".join(
            " ".join(str(place) for place in places) for places in match.game.results
        )
        tags.append(("Results", results))
    return [f'[{name} "{tag_value(value)}"]' for name, value in tags]


def tag_value(value: str) -> str:
    """A tag's value as it stands between the quotes: a backslash and a quote are
    escaped, and every control, format or separator character is written as its code
    (``\\u2028``), so no value can end its tag or add a line (names stored before
    such names were refused included)."""
    return "".join(_escaped(char) for char in value)


def _escaped(char: str) -> str:
    if char in '\\"':
        return "\\" + char
    if unicodedata.category(char) in REFUSED_IN_NAMES:
        return f"\\u{ord(char):04x}" if ord(char) <= 0xFFFF else f"\\U{ord(char):08x}"
    return char


def record_text(match: Match, state: str, created_ms: int, events: Iterable[dict[str, Any]]) -> str:
    """The whole record: headers, a blank line, then one line per event."""
    lines = headers(match, state, created_ms)
    lines.append("")
    for record in events:
        line = describe(record, match.players)
        if line is not None:
            lines.append(f"{record['seq']:>5}  {line}")
    return "\n".join(lines) + "\n"
