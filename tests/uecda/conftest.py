"""The official UECda client, built once per session with gcc into a temporary folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from .support import build_official_client


@pytest.fixture(scope="session")
def official_client(tmp_path_factory: pytest.TempPathFactory) -> Path:
    binary = build_official_client(tmp_path_factory.mktemp("uecda-client"))
    if binary is None:
        pytest.skip("gcc (or the official client's source in shared/third_party) is missing")
    return binary
