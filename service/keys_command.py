"""``daifugo keys``: make, rotate and show the signing keys of a key file."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Literal, TextIO

from .app.signing import (
    create_key_file,
    load_key_file,
    now_ms,
    rotate,
    write_key_file,
)
from .records import KeyFormatError

KeysAction = Literal["new", "rotate", "show"]


def run_keys(action: KeysAction, path: Path, delay_s: float = 0.0, out: TextIO = sys.stdout) -> int:
    """new: make the file (never over an existing one); rotate: add a key that signs
    ``delay_s`` seconds from now; show: print the public keys as GET /keys does."""
    now = now_ms()
    try:
        match action:
            case "new":
                if path.exists():
                    print(f"daifugo keys: {path} exists (rotate it instead)", file=sys.stderr)
                    return 1
                keys = create_key_file(path, now)
            case "rotate":
                keys = rotate(load_key_file(path), now, now + round(delay_s * 1000))
                write_key_file(path, keys)
            case "show":
                keys = load_key_file(path)
    except (OSError, KeyFormatError, ValueError) as error:
        print(f"daifugo keys: {error}", file=sys.stderr)
        return 1
    print(json.dumps(keys.key_set().to_dict(), indent=2), file=out)
    return 0
