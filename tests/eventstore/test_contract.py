"""The event store contract (tests/eventstore/contract.py) run against every store: one
subclass of each case per store, in memory, on one Redis server and on a Redis Cluster."""

from __future__ import annotations

from .contract import (
    AppendCase,
    ClusterRedis,
    FanoutCase,
    FeedCase,
    IndexCase,
    InMemory,
    OverlapCase,
    RequestIdCase,
    SealCase,
    SingleRedis,
    SubscriptionCase,
    UpcastCase,
    VerifyCase,
)

# --- in memory ---------------------------------------------------------------------------


class TestAppendInMemory(InMemory, AppendCase):
    pass


class TestOverlapInMemory(InMemory, OverlapCase):
    pass


class TestRequestIdInMemory(InMemory, RequestIdCase):
    pass


class TestSealInMemory(InMemory, SealCase):
    pass


class TestSubscriptionInMemory(InMemory, SubscriptionCase):
    pass


class TestFanoutInMemory(InMemory, FanoutCase):
    pass


class TestFeedInMemory(InMemory, FeedCase):
    pass


class TestIndexInMemory(InMemory, IndexCase):
    pass


class TestUpcastInMemory(InMemory, UpcastCase):
    pass


class TestVerifyInMemory(InMemory, VerifyCase):
    pass


# --- one Redis server --------------------------------------------------------------------


class TestAppendRedis(SingleRedis, AppendCase):
    pass


class TestOverlapRedis(SingleRedis, OverlapCase):
    pass


class TestRequestIdRedis(SingleRedis, RequestIdCase):
    pass


class TestSealRedis(SingleRedis, SealCase):
    pass


class TestSubscriptionRedis(SingleRedis, SubscriptionCase):
    pass


class TestFanoutRedis(SingleRedis, FanoutCase):
    pass


class TestFeedRedis(SingleRedis, FeedCase):
    pass


class TestIndexRedis(SingleRedis, IndexCase):
    pass


class TestUpcastRedis(SingleRedis, UpcastCase):
    pass


class TestVerifyRedis(SingleRedis, VerifyCase):
    pass


# --- a 3-master Redis Cluster ------------------------------------------------------------


class TestAppendCluster(ClusterRedis, AppendCase):
    pass


class TestOverlapCluster(ClusterRedis, OverlapCase):
    pass


class TestRequestIdCluster(ClusterRedis, RequestIdCase):
    pass


class TestSealCluster(ClusterRedis, SealCase):
    pass


class TestSubscriptionCluster(ClusterRedis, SubscriptionCase):
    pass


class TestFanoutCluster(ClusterRedis, FanoutCase):
    pass


class TestFeedCluster(ClusterRedis, FeedCase):
    pass


class TestIndexCluster(ClusterRedis, IndexCase):
    pass


class TestUpcastCluster(ClusterRedis, UpcastCase):
    pass


class TestVerifyCluster(ClusterRedis, VerifyCase):
    pass
