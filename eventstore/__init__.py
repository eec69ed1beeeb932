"""An append-only, hash-chained event store: one protocol (``EventStore``), on Redis Streams
(one server or a cluster) or in memory.

It knows nothing of the game: streams are opaque ids, events are a type, a schema number
and JSON-compatible data. See eventstore/README.md for the key layout, the Lua script,
the hashed envelope and how the global feed never skips.
"""

from .archive import Archive, FolderArchive, InMemoryArchive, move_to_archive
from .codec import FORMAT, Upcaster, Upcasters
from .datadir import daifugo_data_dir
from .embedded import (
    EmbeddedRedis,
    RedisServer,
    default_data_dir,
    find_redis_server,
    redacted_url,
    redis_url_or_embedded,
    running_embedded_url,
    store_redis_url,
)
from .errors import (
    CheckpointGap,
    ConcurrencyConflict,
    CorruptEvent,
    EventStoreError,
    InvalidEvent,
    RequestIdReused,
    StoreUnavailable,
    StreamClosed,
)
from .feed import PASS_EVERY, GlobalSubscription, RedisCheckpoints, done_with
from .hashing import canonical_json, envelope, event_hash, recompute_hash
from .lease import InMemoryLease, RedisLease
from .memory import InMemoryCheckpoints, InMemoryEventStore
from .model import (
    CLOSING_TYPE,
    GENESIS_HASH,
    NO_STREAM,
    AppendResult,
    Closed,
    NewEvent,
    SentAppend,
    Snapshot,
    StoredEvent,
    Verification,
)
from .port import (
    PROJECTION_OPS,
    Checkpoints,
    EventStore,
    FeedSubscription,
    Lease,
    Op,
    ProjectionStore,
    ServerKey,
    Storage,
    Subscription,
)
from .projection_store import InMemoryProjectionStore, RedisProjectionStore
from .redis_snapshots import RedisSnapshots
from .server_key import InMemoryServerKey, RedisServerKey
from .snapshots import InMemorySnapshots, Snapshots
from .storage import InMemoryStorage, RedisStorage
from .store import RedisEventStore
from .subscription import StreamSubscription

__all__ = [
    "CLOSING_TYPE",
    "FORMAT",
    "GENESIS_HASH",
    "NO_STREAM",
    "PASS_EVERY",
    "PROJECTION_OPS",
    "AppendResult",
    "Archive",
    "CheckpointGap",
    "Checkpoints",
    "Closed",
    "ConcurrencyConflict",
    "CorruptEvent",
    "EmbeddedRedis",
    "EventStore",
    "EventStoreError",
    "FeedSubscription",
    "FolderArchive",
    "GlobalSubscription",
    "InMemoryArchive",
    "InMemoryCheckpoints",
    "InMemoryEventStore",
    "InMemoryLease",
    "InMemoryProjectionStore",
    "InMemoryServerKey",
    "InMemorySnapshots",
    "InMemoryStorage",
    "InvalidEvent",
    "Lease",
    "NewEvent",
    "Op",
    "ProjectionStore",
    "RedisCheckpoints",
    "RedisEventStore",
    "RedisLease",
    "RedisProjectionStore",
    "RedisServer",
    "RedisServerKey",
    "RedisSnapshots",
    "RedisStorage",
    "RequestIdReused",
    "SentAppend",
    "ServerKey",
    "Snapshot",
    "Snapshots",
    "Storage",
    "StoreUnavailable",
    "StoredEvent",
    "StreamClosed",
    "StreamSubscription",
    "Subscription",
    "Upcaster",
    "Upcasters",
    "Verification",
    "canonical_json",
    "daifugo_data_dir",
    "default_data_dir",
    "done_with",
    "envelope",
    "event_hash",
    "find_redis_server",
    "move_to_archive",
    "recompute_hash",
    "redacted_url",
    "redis_url_or_embedded",
    "running_embedded_url",
    "store_redis_url",
]
