"""The image's HEALTHCHECK, as the Dockerfile spells it, against a real service."""

from __future__ import annotations

import asyncio
import subprocess
import sys

from ..service_support import isolated_service
from .support import healthcheck


def run_healthcheck(grpc_target: str) -> int:
    argv = list(healthcheck().value[1:])  # after CMD
    assert argv[0] == "daifugo"
    argv[argv.index("127.0.0.1:50051")] = grpc_target
    command = [sys.executable, "-m", "service.cli", *argv[1:]]
    return subprocess.run(command, capture_output=True, timeout=30, check=False).returncode


async def test_healthcheck_passes_only_while_the_service_serves(redis_url: str) -> None:
    async with isolated_service(redis_url, grpc_port=0, timers=False) as running:
        target = f"127.0.0.1:{running.grpc_port}"
        assert await asyncio.to_thread(run_healthcheck, target) == 0
    assert await asyncio.to_thread(run_healthcheck, target) == 1
