"""The tests stay out of the user's Redis: without REDIS_URL the ``redis_url`` fixture
starts a Redis of its own, and never writes into whatever answers on 127.0.0.1:6379."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import redis

from eventstore import RedisServer

from ..redis_support import answers, unique

USERS_URL = "redis://127.0.0.1:6379"  # where a user's own Redis usually is
PROBE = "DAIFUGO_FIXTURE_PROBE"  # set: the probe runs (in a pytest of its own)


def test_probe(redis_url: str) -> None:
    """Run by the test below in a pytest of its own: writes a marker key through the
    fixture's Redis and says which Redis that was."""
    if PROBE not in os.environ:
        pytest.skip("runs inside test_without_redis_url_the_tests_use_a_redis_of_their_own")
    marker, report = os.environ[PROBE].split(":", 1)
    client = redis.Redis.from_url(redis_url)
    client.set(marker, "written by the tests")
    assert client.get(marker) == b"written by the tests"
    client.close()
    Path(report).write_text(redis_url)


def test_without_redis_url_the_tests_use_a_redis_of_their_own(tmp_path: Path) -> None:
    stand_in = None
    if not answers(USERS_URL):  # none here: one stands in for the user's
        try:
            stand_in = RedisServer(tmp_path / "users", port=6379, appendonly=False).start()
        except (RuntimeError, TimeoutError, OSError):
            pytest.skip("something not Redis holds 127.0.0.1:6379")
    try:
        marker, report = unique("fixture-marker-"), tmp_path / "used"
        env = {name: value for name, value in os.environ.items() if name != "REDIS_URL"}
        probe = f"{Path(__file__).relative_to(Path.cwd())}::test_probe"
        done = subprocess.run(
            [sys.executable, "-m", "pytest", probe, "-q", "-p", "no:cacheprovider"],
            env={**env, PROBE: f"{marker}:{report}"},
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        used = report.read_text()
        assert ":6379" not in used
        assert not answers(used)  # the fixture's own, stopped with the session
        users = redis.Redis.from_url(USERS_URL)
        try:
            assert not users.exists(marker)
        finally:
            users.close()
    finally:
        if stand_in is not None:
            stand_in.stop()
