"""Callers from addresses of their own: any of 127.0.0.0/8 is this host, so a test can
be several callers, as the service counts them."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import httpx

from tests.serve_process import ServeProcess


@contextlib.asynccontextmanager
async def from_address(served: ServeProcess, address: str) -> AsyncIterator[httpx.AsyncClient]:
    """A REST client whose connections come from ``address``."""
    transport = httpx.AsyncHTTPTransport(local_address=address)
    base = f"http://127.0.0.1:{served.http_port}"
    async with httpx.AsyncClient(base_url=base, transport=transport, timeout=30) as client:
        yield client
