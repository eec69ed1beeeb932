"""``daifugo players add NAME``: register a player in the deployment's store (REDIS_URL,
else the embedded Redis of ``daifugo serve``) and print its key, once."""

from __future__ import annotations

import asyncio
import json
import sys
from typing import TextIO

from eventstore import EventStoreError, RedisEventStore, redacted_url, store_redis_url

from .app import STORE_PREFIX
from .app.errors import ServiceError
from .app.players import Players, Registered


def add_player(name: str, out: TextIO | None = None, err: TextIO | None = None) -> int:
    out, err = out or sys.stdout, err or sys.stderr
    try:
        with store_redis_url() as url:
            if url is None:
                print("daifugo players: no REDIS_URL nor embedded Redis data", file=err)
                return 1
            try:
                registered = asyncio.run(_register(name, url))
            except EventStoreError as error:
                print(f"daifugo players: {redacted_url(url)}: {error}", file=err)
                return 1
    except (OSError, RuntimeError) as error:  # the embedded Redis would not start
        print(f"daifugo players: no Redis: {error}", file=err)
        return 1
    except ServiceError as error:
        print(f"daifugo players: {error.code}: {error.message}", file=err)
        return 1
    player = registered.player
    shown = {"player_id": player.player_id, "name": player.name, "key": registered.key}
    print(json.dumps(shown, ensure_ascii=False), file=out)
    print("daifugo players: the key is shown this once; only its hash is kept", file=err)
    return 0


async def _register(name: str, url: str) -> Registered:
    store = RedisEventStore.from_url(url, prefix=STORE_PREFIX)
    try:
        return await Players(store).register(name)
    finally:
        await store.close()
