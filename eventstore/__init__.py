"""An append-only, hash-chained event store on Redis Streams (one server or a cluster).

It knows nothing of the game: streams are opaque ids, events are a type, a schema number
and JSON-compatible data. See eventstore/README.md for the key layout, the Lua script,
the hashed envelope and how the global feed never skips.
"""

from .codec import FORMAT, Upcaster, Upcasters
from .embedded import (
    EmbeddedRedis,
    RedisServer,
    default_data_dir,
    find_redis_server,
    redis_url_or_embedded,
)
from .errors import (
    CheckpointGap,
    ConcurrencyConflict,
    CorruptEvent,
    EventStoreError,
    InvalidEvent,
    StoreUnavailable,
)
from .feed import Checkpoints, GlobalSubscription, InMemoryCheckpoints, RedisCheckpoints
from .hashing import canonical_json, envelope, event_hash, recompute_hash
from .localcluster import LocalCluster
from .model import (
    GENESIS_HASH,
    NO_STREAM,
    AppendResult,
    NewEvent,
    StoredEvent,
    Verification,
)
from .store import RedisEventStore
from .subscription import StreamSubscription

__all__ = [
    "FORMAT",
    "GENESIS_HASH",
    "NO_STREAM",
    "AppendResult",
    "CheckpointGap",
    "Checkpoints",
    "ConcurrencyConflict",
    "CorruptEvent",
    "EmbeddedRedis",
    "EventStoreError",
    "GlobalSubscription",
    "InMemoryCheckpoints",
    "InvalidEvent",
    "LocalCluster",
    "NewEvent",
    "RedisCheckpoints",
    "RedisEventStore",
    "RedisServer",
    "StoreUnavailable",
    "StoredEvent",
    "StreamSubscription",
    "Upcaster",
    "Upcasters",
    "Verification",
    "canonical_json",
    "default_data_dir",
    "envelope",
    "event_hash",
    "find_redis_server",
    "recompute_hash",
    "redis_url_or_embedded",
]
