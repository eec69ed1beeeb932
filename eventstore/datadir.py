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


ARCHIVE_ENV = "DAIFUGO_ARCHIVE"


def archive_dir(env: Mapping[str, str] | None = None) -> Path:
    """Where sealed matches are archived on this machine: ``$DAIFUGO_ARCHIVE``, else
    ``archive/`` in the data folder (beside the embedded Redis's ``redis/``)."""
    env = os.environ if env is None else env
    given = env.get(ARCHIVE_ENV)
    return Path(given) if given else daifugo_data_dir(env) / "archive"
