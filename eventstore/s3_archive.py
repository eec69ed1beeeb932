"""The archive in an S3-compatible object store (``--archive s3://bucket/prefix``), for
replicas on several machines: one object per stream, ``<prefix><hex of the id>.zst``.
Through boto3 (AWS's own client, which speaks to any S3-compatible server: MinIO, Ceph,
R2...; ``AWS_ENDPOINT_URL`` names one, the usual AWS_* variables give the credentials).
Its calls block, so each runs in a worker thread. An S3 PUT stores the whole object or
nothing, as the folder's rename does."""

from __future__ import annotations

import asyncio
from typing import Any
from urllib.parse import urlsplit

from .archive import SUFFIX, part_name
from .errors import InvalidEvent
from .keys import check_stream_id


class S3Archive:
    def __init__(self, url: str, client: Any = None) -> None:
        parts = urlsplit(url)
        if parts.scheme != "s3" or not parts.netloc:
            raise InvalidEvent(f"an S3 archive is s3://bucket[/prefix], not {url!r}")
        self.url = url
        self.bucket = parts.netloc
        prefix = parts.path.strip("/")
        self.prefix = f"{prefix}/" if prefix else ""
        if client is None:
            import boto3  # type: ignore[import-untyped]  # only when an S3 archive is asked for

            client = boto3.client("s3")
        self.client = client

    @property
    def where(self) -> str:
        return self.url

    def _key(self, stream: str) -> str:
        check_stream_id(stream)
        return f"{self.prefix}{stream.encode().hex()}{SUFFIX}"

    async def put(self, stream: str, blob: bytes) -> None:
        key = self._key(stream)
        await asyncio.to_thread(self.client.put_object, Bucket=self.bucket, Key=key, Body=blob)

    async def get(self, stream: str) -> bytes | None:
        key = self._key(stream)

        def fetch() -> bytes | None:
            try:
                answer = self.client.get_object(Bucket=self.bucket, Key=key)
            except self.client.exceptions.NoSuchKey:
                return None
            body: bytes = answer["Body"].read()
            return body

        return await asyncio.to_thread(fetch)

    def _objects(self) -> list[tuple[str, int]]:
        # a part's objects are under a "folder" of the prefix: the delimiter leaves them
        pages = self.client.get_paginator("list_objects_v2").paginate(
            Bucket=self.bucket, Prefix=self.prefix, Delimiter="/"
        )
        return [(item["Key"], item["Size"]) for page in pages for item in page.get("Contents", ())]

    async def names(self) -> list[str]:
        names = []
        for key, _ in await asyncio.to_thread(self._objects):
            name = key[len(self.prefix) :]
            if name.endswith(SUFFIX):
                try:
                    names.append(bytes.fromhex(name.removesuffix(SUFFIX)).decode())
                except (ValueError, UnicodeDecodeError):
                    continue
        return sorted(names)

    async def size(self) -> tuple[int, int]:
        objects = [size for key, size in await asyncio.to_thread(self._objects)]
        return len(objects), sum(objects)

    def part(self, name: str) -> S3Archive:
        return S3Archive(f"s3://{self.bucket}/{self.prefix}{part_name(name)}", self.client)
