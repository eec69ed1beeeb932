"""The server key (``ServerKey`` in port.py): one random secret per deployment, made on
first use and then read by every replica. In Redis (``RedisServerKey``: one string key,
``daifugo:server-key`` by default, outside any store's prefix so that every store of a
deployment shares it) or in memory (``InMemoryServerKey``)."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .connection import unavailable_as
from .port import ServerKey

if TYPE_CHECKING:
    from .store import RedisEventStore

SERVER_KEY = "daifugo:server-key"
KEY_BYTES = 32


def _parsed(value: bytes | str) -> bytes:
    key = bytes.fromhex(value.decode() if isinstance(value, bytes) else value)
    if len(key) < KEY_BYTES:
        raise ValueError(f"the stored server key has {len(key)} bytes, not {KEY_BYTES}")
    return key


class RedisServerKey:
    def __init__(self, store: RedisEventStore, key: str = SERVER_KEY) -> None:
        self.store = store
        self.key = key

    async def load(self) -> bytes:
        with unavailable_as("the server key", self.store.url):
            # made by whichever replica comes first (NX); every one reads the same
            await self.store.connector.execute("SET", self.key, secrets.token_hex(KEY_BYTES), "NX")
            value = await self.store.connector.execute("GET", self.key)
        if value is None:
            raise RuntimeError("the server key could not be stored")
        return _parsed(value)


@dataclass(eq=False)
class InMemoryServerKey:
    """The key of one memory: made on first load, the same for every replica over it."""

    value: bytes | None = None

    async def load(self) -> bytes:
        if self.value is None:
            self.value = secrets.token_bytes(KEY_BYTES)
        return self.value


if TYPE_CHECKING:

    def _conforms(redis: RedisServerKey, memory: InMemoryServerKey) -> tuple[ServerKey, ServerKey]:
        return redis, memory  # mypy checks that both implement the port
