"""`daifugo serve` child processes on a given Redis, for benchmarks across processes."""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

_STARTED = re.compile(r"gRPC on [^:]+:(\d+), REST on http://[^:]+:(\d+)")


@dataclass
class ServiceProcess:
    process: subprocess.Popen[bytes]
    grpc_port: int
    http_port: int
    log: Path

    @property
    def pid(self) -> int:
        return self.process.pid


def start_service(redis_url: str, log: Path, timeout: float = 60.0) -> ServiceProcess:
    """One `daifugo serve` on free ports; its output goes to ``log`` (a pipe nobody
    reads would fill up and stall it)."""
    with log.open("wb") as output:
        process = subprocess.Popen(
            [sys.executable, "-m", "service.cli", "serve", "--grpc-port", "0", "--http-port", "0"],
            env={**os.environ, "REDIS_URL": redis_url},
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        started = _STARTED.search(log.read_text(errors="replace"))
        if started:
            return ServiceProcess(process, int(started[1]), int(started[2]), log)
        if process.poll() is not None:
            break
        time.sleep(0.05)
    process.kill()
    raise RuntimeError(f"daifugo serve did not start:\n{log.read_text(errors='replace')}")


@contextlib.contextmanager
def start_services(redis_url: str, count: int) -> Iterator[list[ServiceProcess]]:
    """``count`` service processes on one Redis, stopped (SIGTERM) afterwards."""
    services: list[ServiceProcess] = []
    with tempfile.TemporaryDirectory(prefix="daifugo-serve-") as logs:
        try:
            for number in range(count):
                services.append(start_service(redis_url, Path(logs) / f"serve-{number}.log"))
            yield services
        finally:
            for service in services:
                service.process.terminate()
            for service in services:
                try:
                    service.process.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    service.process.kill()
                    service.process.wait()
