"""Train the zstd dictionary archived matches are compressed with
(eventstore/archive-dictionary-1.zdict): matches are alike (the same event types, field
names and rule texts), so a dictionary trained on a few hundred of them halves an
object. Run once; a dictionary is never changed once objects use it (a new one takes a
new id, and the old stays for the objects written with it).

    python -m bench.train_dictionary [--matches 270] [--out eventstore/archive-dictionary-1.zdict]
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Sequence
from pathlib import Path

import zstandard

from eventstore.archive import DICTIONARY_ID, columns

from .scale import PRESETS, template


async def samples(count: int) -> list[bytes]:
    shapes = [(preset, players) for preset in PRESETS for players in (2, 3, 4, 5)]
    made: list[bytes] = []
    while len(made) < count:
        for preset, players in shapes:
            made.append(columns(await template(preset, players)))
    return made[:count]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.train_dictionary")
    parser.add_argument("--matches", type=int, default=270)
    parser.add_argument("--out", default="eventstore/archive-dictionary-1.zdict")
    args = parser.parse_args(argv)
    made: list[bytes | bytearray | memoryview] = list(asyncio.run(samples(args.matches)))
    trained = zstandard.train_dictionary(16 * 1024, made, dict_id=DICTIONARY_ID, level=9)
    Path(args.out).write_bytes(trained.as_bytes())
    print(f"{args.out}: {len(trained.as_bytes()):,} bytes, id {trained.dict_id()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
