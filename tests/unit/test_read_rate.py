"""The read rate's token bucket, on a clock the test moves."""

from __future__ import annotations

import pytest

from service.rest import read_rate
from service.rest.read_rate import ReadBuckets, ReadRate, ReadsTooFast


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_burst_then_the_rate_and_a_wait_that_says_when() -> None:
    clock = Clock()
    buckets = ReadBuckets(ReadRate(per_second=2, burst=3), clock)
    for _ in range(3):
        buckets.take("a")
    with pytest.raises(ReadsTooFast) as refused:
        buckets.take("a")
    assert refused.value.retry_after == 1 and refused.value.code == "rate_limited"
    buckets.take("b")  # each caller its own bucket
    clock.now += 0.5  # one read back at 2 a second
    buckets.take("a")
    with pytest.raises(ReadsTooFast):
        buckets.take("a")
    clock.now += 3600  # never more than the burst, however long it waited
    for _ in range(3):
        buckets.take("a")
    with pytest.raises(ReadsTooFast):
        buckets.take("a")


def test_no_bound_at_a_rate_of_0_and_bad_rates_refused() -> None:
    buckets = ReadBuckets(ReadRate(per_second=0, burst=1))
    for _ in range(1000):
        buckets.take("a")
    for bad in ({"per_second": -1}, {"burst": 0}):
        with pytest.raises(ValueError):
            ReadRate(**bad)  # type: ignore[arg-type]


def test_the_callers_kept_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(read_rate, "CALLERS_KEPT", 10)
    buckets = ReadBuckets(ReadRate(per_second=1, burst=1), Clock())
    for n in range(1000):
        buckets.take(f"10.0.{n // 256}.{n % 256}")
    assert len(buckets._buckets) == 10
