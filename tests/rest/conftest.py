"""A running service with REST on a free port (real Redis, real servers), and
an HTTP client talking to it over a real connection."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from clients.sdk import DaifugoClient
from service.runtime import Running

from ..service_support import isolated_service


@pytest.fixture
async def served() -> AsyncIterator[Running]:
    async with isolated_service(None, grpc_port=0, http_port=0, timers=False) as running:
        yield running


@pytest.fixture
async def http(served: Running) -> AsyncIterator[httpx.AsyncClient]:
    base = f"http://127.0.0.1:{served.http_port}"
    async with httpx.AsyncClient(base_url=base, timeout=30) as client:
        yield client


@pytest.fixture
async def grpc_client(served: Running) -> AsyncIterator[DaifugoClient]:
    async with DaifugoClient(f"127.0.0.1:{served.grpc_port}", timeout=20) as client:
        yield client
