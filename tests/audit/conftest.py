"""The finished matches every audit test reads: played once per session."""

from __future__ import annotations

import asyncio

import pytest

from .matches import PlayedLog, play_all


@pytest.fixture(scope="session")
def played(redis_url: str) -> dict[str, PlayedLog]:
    return asyncio.run(play_all(redis_url))
