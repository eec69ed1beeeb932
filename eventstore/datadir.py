"""The local data folder (the embedded Redis's data, the signing keys): a module of its
own, with nothing of Redis, so that what keeps files there need not import the store."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path


def daifugo_data_dir(env: Mapping[str, str] | None = None) -> Path:
    """``$XDG_DATA_HOME/daifugo``, or ``~/.local/share/daifugo``: the local data folder."""
    env = os.environ if env is None else env
    base = env.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "daifugo"
