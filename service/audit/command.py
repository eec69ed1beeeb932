"""``daifugo audit MATCH_ID|FILE``: audit an exported log, or a match read from
Redis: REDIS_URL, else the embedded Redis of ``daifugo serve`` (the running one, or its
data started for the audit). Exit status 0 valid, 1 invalid, 2 when there is nothing to
audit."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import TextIO

from eventstore import EventStoreError, RedisEventStore, StoredEvent, redacted_url, store_redis_url

from ..app.match import stream_of
from ..app.runtime import STORE_PREFIX
from .auditor import audit_events, audit_log
from .jsonl import AuditInputError
from .report import AuditReport


class _Unreadable(Exception):
    """Nothing to audit: the reason goes to stderr."""


def run_audit(
    target: str,
    redis_url: str | None = None,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        report = _audit(target, redis_url)
    except _Unreadable as error:
        print(f"daifugo audit: {error}", file=err)
        return 2
    print(json.dumps(report.to_dict(), indent=2, ensure_ascii=False), file=out)
    return 0 if report.verdict == "valid" else 1


def _audit(target: str, redis_url: str | None) -> AuditReport:
    path = Path(target)
    if path.is_file():
        try:
            return audit_log(path.read_bytes())  # what POST /audit answers, too
        except OSError as error:
            raise _Unreadable(f"cannot read {target}: {error}") from None
        except AuditInputError as error:
            raise _Unreadable(f"{target}: {error}") from None
    return audit_events(_read_match_of(target, redis_url))


def _read_match_of(target: str, redis_url: str | None) -> list[StoredEvent]:
    env = os.environ if redis_url is None else {"REDIS_URL": redis_url}
    try:
        with store_redis_url(env) as url:
            if url is None:
                raise _Unreadable(f"no file {target!r}, and no REDIS_URL nor embedded Redis data")
            where = redacted_url(url)
            try:
                events = asyncio.run(_read_match(target, url))
            except (EventStoreError, ValueError) as error:
                raise _Unreadable(f"cannot read match {target!r} from {where}: {error}") from None
    except (OSError, RuntimeError) as error:  # the embedded Redis would not start
        raise _Unreadable(f"no file {target!r}, and no Redis to read it from: {error}") from None
    if not events:
        raise _Unreadable(f"no file {target!r} and no match {target!r} at {where}")
    return events


async def _read_match(match_id: str, redis_url: str) -> list[StoredEvent]:
    # no upcasters: the auditor checks the events as they were hashed
    store = RedisEventStore.from_url(redis_url, prefix=STORE_PREFIX)
    try:
        return await store.read(stream_of(match_id), 0)
    finally:
        await store.close()
