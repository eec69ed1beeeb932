"""Shared fixtures: a real Redis for every test that needs one; and which tests are
``slow`` (``./test`` leaves them out, ``./test --all`` and CI run them).

- ``redis_url`` (session): REDIS_URL when it is set (and answers), else a redis-server
  started for the session on a free port (stopped after it). Never a Redis found by
  guessing (127.0.0.1:6379 may be the user's own).
- ``local_cluster`` / ``cluster_url`` (session): a 3-master Redis Cluster on free ports in
  a temporary directory, torn down after the session.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterator

import pytest

from eventstore import RedisServer
from tests.localcluster import LocalCluster

from . import hypothesis_profiles  # noqa: F401  (registers and loads the profile)
from .redis_support import answers

# The tests ``./test`` leaves out (``./test --all`` runs them, as CI does): each starts
# processes, a browser or a cluster of its own, or plays many whole matches. Every other
# test of the application, REST and gRPC runs on the in-memory ports; Redis stays where
# the adapters are tested (the contract suites, faults, deploy). README.md prints the split.
SLOW = (
    "tests/browser/",  # Chromium
    "tests/faults/",  # kill -9, Redis crashed and paused, under load
    "tests/fuzz/",  # garbage into every gRPC method and REST endpoint (schemathesis)
    "tests/deploy/test_load_balancer.py",  # nginx in front of two `daifugo serve`
    "tests/eventstore/test_faults.py",  # Redis crashed, stopped and restarted
    "tests/integration/test_two_processes.py",  # two `daifugo serve` on one Redis
    "tests/uecda/test_official_clients.py",  # the contest's client built with gcc
    "tests/uecda/test_mixed_table.py",
    "tests/uecda/test_hostile_clients.py",
    "tests/uecda/test_serve_tables.py",
)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: left out by ./test, run by ./test --all and CI")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        path = item.nodeid.partition("::")[0]
        if path.startswith(SLOW):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    given = os.environ.get("REDIS_URL")
    if given and answers(given):
        yield given
        return
    if given:
        warnings.warn(f"REDIS_URL={given} does not answer; starting a Redis", stacklevel=1)
    server = RedisServer(tmp_path_factory.mktemp("redis"), appendonly=False).start()
    try:
        yield server.url
    finally:
        server.stop()


@pytest.fixture(scope="session")
def local_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    # everysec keeps the suite fast; the durability test switches its node to always
    cluster = LocalCluster(tmp_path_factory.mktemp("cluster"), masters=3, appendfsync="everysec")
    cluster.start()
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture(scope="session")
def cluster_url(local_cluster: LocalCluster) -> str:
    return local_cluster.url
