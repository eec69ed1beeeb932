"""The S3 archive against a real S3-speaking server: moto's standalone server
(``moto_server``, from PyPI), started here on a free port of 127.0.0.1. The same
archive contract as the folder's, and a whole move with every read after it."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from eventstore import InMemoryEventStore, move_to_archive
from eventstore.archive import archive_at, unpack
from eventstore.embedded import free_port

from .test_archive import parts_are_apart, reads, sealed_stream

boto3 = pytest.importorskip("boto3")


@pytest.fixture(scope="module")
def s3_endpoint() -> Iterator[str]:
    server = shutil.which("moto_server") or str(Path(sys.executable).with_name("moto_server"))
    if not Path(server).exists():
        pytest.skip("moto_server is not installed (pip install 'moto[server]')")
    port = free_port()
    process = subprocess.Popen(
        [server, "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    endpoint = f"http://127.0.0.1:{port}"
    try:
        client = s3_client(endpoint)
        for _ in range(200):
            try:
                client.list_buckets()
                break
            except Exception:
                time.sleep(0.05)
        else:
            raise RuntimeError("moto_server did not answer")
        yield endpoint
    finally:
        process.terminate()
        process.wait(timeout=10)


def s3_client(endpoint: str) -> object:
    return boto3.client(
        "s3",
        endpoint_url=endpoint,
        region_name="us-east-1",
        aws_access_key_id="test",
        aws_secret_access_key="test",
    )


@pytest.fixture
def bucket(
    s3_endpoint: str, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> str:
    monkeypatch.setenv("AWS_ENDPOINT_URL", s3_endpoint)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "test")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "test")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    name = f"archive-{abs(hash(request.node.name)) % 10**9}"
    s3_client(s3_endpoint).create_bucket(Bucket=name)  # type: ignore[attr-defined]
    return name


async def test_objects_are_kept_whole_under_the_prefix(bucket: str) -> None:
    archive = archive_at(f"s3://{bucket}/matches/2026")
    assert archive.where == f"s3://{bucket}/matches/2026"
    assert await archive.get("m") is None and await archive.names() == []
    await archive.put("m", b"one")
    await archive.put("m", b"two")  # replaced whole
    await archive.put("../escape", b"x")
    assert await archive.get("m") == b"two" and await archive.get("../escape") == b"x"
    assert await archive.names() == ["../escape", "m"]
    assert await archive.size() == (2, 4)
    other = archive_at(f"s3://{bucket}/elsewhere")  # another prefix sees none of them
    assert await other.names() == [] and await other.get("m") is None
    await parts_are_apart(archive)


async def test_a_bucket_without_a_prefix_has_parts_apart_too(bucket: str) -> None:
    await parts_are_apart(archive_at(f"s3://{bucket}"))


async def test_a_move_to_s3_reads_as_before(bucket: str) -> None:
    store = InMemoryEventStore()
    archive = archive_at(f"s3://{bucket}")
    store.use_archive(archive)
    events = await sealed_stream(store)
    before = await reads(store, "m")
    assert await move_to_archive(store, archive, "m") > 0
    assert await store.read_as_stored("m") == []
    assert await reads(store, "m") == before
    blob = await archive.get("m")
    assert blob is not None and unpack("m", blob) == events
    reader = InMemoryEventStore()  # another replica: only the bucket in common
    reader.use_archive(archive_at(f"s3://{bucket}"))
    assert await reader.read("m") == events
