"""``daifugo audit MATCH_ID|FILE [--key KEY] [--receipts FILE]``: audit an exported
log, or a match read from Redis (REDIS_URL, else the embedded Redis of ``daifugo
serve``: the running one, or its data started for the audit), with the public key that
checks its seal and receipts (base64, or a ``GET /keys`` JSON file) and the receipts a
player kept. Exit status 0 valid, 1 invalid, 2 when there is nothing to audit.

A match read from this machine's store, with no ``--key``, is checked with the public
keys of this machine's signing key file (the one ``daifugo serve`` signs with), so the
command says of its seal what the page's audit of the same match says; stderr names
the file. A log file is another server's as likely as this one's: it needs ``--key``.

It sits above the auditor, which is pure: this command opens the store, the auditor never."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import TextIO

from eventstore import (
    EventStoreError,
    RedisEventStore,
    StoredEvent,
    redacted_url,
    store_redis_url,
)
from eventstore.archive import configured_archive

from .app import STORE_PREFIX
from .app.match import stream_of
from .app.signing import KEY_FILE_ENV, default_key_file, load_key_file
from .audit.auditor import audit_events, audit_log
from .audit.jsonl import AuditInputError
from .audit.receipts import parse_receipts
from .audit.report import AuditReport
from .records import KeyFormatError, KeySet, PublishedKey
from .records.keys import KEY_BYTES, b64decode_exact


class Unreadable(Exception):
    """Nothing to audit: the reason goes to stderr."""


def run_audit(
    target: str,
    redis_url: str | None = None,
    out: TextIO | None = None,
    err: TextIO | None = None,
    key: str | None = None,
    receipts: str | None = None,
) -> int:
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        keys = load_keys(key) if key else None
        if keys is None and not Path(target).is_file():
            keys = _this_machines_keys(err)
        given = _read_receipts(receipts) if receipts else None
        report = _audit(target, redis_url, keys, given)
    except Unreadable as error:
        print(f"daifugo audit: {error}", file=err)
        return 2
    print(json.dumps(report.to_dict(), indent=2, ensure_ascii=False), file=out)
    return 0 if report.verdict == "valid" else 1


def load_keys(key: str) -> KeySet:
    """A base64 public key (valid always), or a file holding a ``GET /keys`` body."""
    raw = b64decode_exact(key, KEY_BYTES)
    if raw is not None:
        return KeySet([PublishedKey.of(raw)])
    path = Path(key)
    if not path.is_file():
        raise Unreadable(f"--key {key!r} is neither a base64 public key nor a file")
    try:
        return KeySet.from_dict(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyFormatError) as error:
        raise Unreadable(f"--key {key}: not a GET /keys body: {error}") from None


def _this_machines_keys(err: TextIO) -> KeySet | None:
    """The public keys of the signing key file ``daifugo serve`` uses here (its
    ``DAIFUGO_SIGNING_KEY_FILE``, else the data folder's), or None when there is none;
    either way stderr says which keys check the seal and receipts."""
    named = os.environ.get(KEY_FILE_ENV)
    path = Path(named) if named else default_key_file()
    try:
        keys = load_key_file(path).key_set()
    except FileNotFoundError:
        print(
            f"daifugo audit: no --key and no signing key file at {path}: the seal and "
            "receipts are not_run (pass --key with the service's GET /keys)",
            file=err,
        )
        return None
    except (OSError, KeyFormatError) as error:
        raise Unreadable(f"the signing key file {path}: {error}") from None
    print(f"daifugo audit: seal and receipts checked with the public keys of {path}", file=err)
    return keys


def _read_receipts(name: str) -> list[object]:
    try:
        return list(parse_receipts(Path(name).read_bytes()))
    except (OSError, ValueError) as error:
        raise Unreadable(f"--receipts {name}: {error}") from None


def _audit(
    target: str, redis_url: str | None, keys: KeySet | None, given: list[object] | None
) -> AuditReport:
    path = Path(target)
    if path.is_file():
        try:
            return audit_log(path.read_bytes(), keys, given)  # what POST /audit answers, too
        except OSError as error:
            raise Unreadable(f"cannot read {target}: {error}") from None
        except AuditInputError as error:
            raise Unreadable(f"{target}: {error}") from None
    return audit_events(read_match_of(target, redis_url), keys, given)


def read_match_of(target: str, redis_url: str | None) -> list[StoredEvent]:
    env = os.environ if redis_url is None else {"REDIS_URL": redis_url}
    try:
        with store_redis_url(env) as url:
            if url is None:
                raise Unreadable(f"no file {target!r}, and no REDIS_URL nor embedded Redis data")
            where = redacted_url(url)
            try:
                events = asyncio.run(_read_match(target, url))
            except (EventStoreError, ValueError) as error:
                raise Unreadable(f"cannot read match {target!r} from {where}: {error}") from None
    except (OSError, RuntimeError) as error:  # the embedded Redis would not start
        raise Unreadable(f"no file {target!r}, and no Redis to read it from: {error}") from None
    if not events:
        raise Unreadable(f"no file {target!r} and no match {target!r} at {where}")
    return events


async def _read_match(match_id: str, redis_url: str) -> list[StoredEvent]:
    # no upcasters: the auditor checks the events as they were hashed
    store = RedisEventStore.from_url(redis_url, prefix=STORE_PREFIX)
    store.use_archive(configured_archive())  # a match sealed long ago is there
    try:
        return await store.read(stream_of(match_id), 0)
    finally:
        await store.close()
