"""One service for all the fuzzing, with a live, a finished and a waiting match."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import redis

from .service_thread import service_thread
from .target import FuzzTarget, set_up_matches


@pytest.fixture(scope="session")
def fuzz_target(redis_url: str) -> Iterator[FuzzTarget]:
    with service_thread(redis_url, set_up_matches) as (service, (live, finished, waiting)):
        client = redis.Redis.from_url(redis_url)
        try:
            yield FuzzTarget(service, live, finished, waiting, client)
        finally:
            client.close()
