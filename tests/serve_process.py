"""`daifugo serve` as a child process on free ports: for tests and benchmarks that need
a real second process (one to kill -9, two behind a load balancer)."""

from __future__ import annotations

import contextlib
import os
import re
import resource
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import IO

from eventstore.embedded import tied_to_parent
from service.app.signing import create_key_file, now_ms

_STARTED = re.compile(r"gRPC on ([^,]+:(\d+)), REST on http://[^ ,]+:(\d+)")
# every test and benchmark calls from one address: quotas out of the way of those that
# test something else (a test of the quotas gives its own flags, which replace these)
ROOMY_QUOTAS = {
    "--quota-creates": "100000",
    "--quota-bots-per-caller": "10000",
    "--quota-bots": "10000",
    "--quota-audits-per-caller": "1000",
    "--http-reads-per-second": "0",
}


class ServeProcess:
    """Started at once; ``wait_ready()`` waits for it to listen. Its output goes to
    ``log_path`` (a pipe nobody reads would fill up and stall it); it ends with the
    thread that started it, even when that one is killed. It signs with ``key_file``
    (default: ``signing-keys.json`` beside the log, made if missing; services logging
    to one folder share it, as replicas must)."""

    def __init__(
        self,
        redis_url: str | None,
        log_path: Path,
        *options: str,
        key_file: Path | None = None,
        env: dict[str, str] | None = None,
        open_files: int | None = None,
        roomy_quotas: bool = True,
    ) -> None:
        """``redis_url`` None: no REDIS_URL, so it runs the embedded Redis; ``env``: the
        child's environment (default: this process's); ``open_files``: its limit on
        open files (soft and hard), as a small machine's; ``roomy_quotas`` False: the
        service's default quotas, not ``ROOMY_QUOTAS``."""
        self.log_path = log_path
        self.key_file = key_file or log_path.parent / "signing-keys.json"
        create_key_file(self.key_file, now_ms())
        self._log: IO[bytes] = log_path.open("wb")
        command = [sys.executable, "-m", "service.cli", "serve"]
        command += ["--grpc-port", "0", "--http-port", "0"]
        command += ["--signing-key-file", str(self.key_file), *options]
        for flag, roomy in ROOMY_QUOTAS.items():
            if roomy_quotas and flag not in options:
                command += [flag, roomy]
        self.process = subprocess.Popen(
            tied_to_parent(command),
            env=_child_env(os.environ if env is None else env, redis_url),
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            preexec_fn=None if open_files is None else _limit_open_files(open_files),
        )
        self.grpc_target = ""
        self.grpc_port = self.http_port = 0

    def wait_ready(self, timeout: float = 60.0) -> ServeProcess:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            started = _STARTED.search(self.log_path.read_text(errors="replace"))
            if started:
                self.grpc_target = started[1]
                self.grpc_port, self.http_port = int(started[2]), int(started[3])
                return self
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        self.kill()
        raise RuntimeError(f"daifugo serve did not start:\n{self.log_tail()}")

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def kill(self) -> None:
        """kill -9: no shutdown, its sockets dropped by the kernel."""
        if self.alive:
            self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)
        self._log.close()

    def stop(self, timeout: float = 15.0) -> None:
        """SIGTERM (it stops cleanly), then kill -9 if it hangs."""
        if self.alive:
            self.process.terminate()
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
        self._log.close()

    def log_tail(self, chars: int = 4000) -> str:
        return self.log_path.read_text(errors="replace")[-chars:]


def _limit_open_files(limit: int) -> Callable[[], None]:
    def limit_in_child() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))

    return limit_in_child


def _child_env(env: Mapping[str, str], redis_url: str | None) -> dict[str, str]:
    child = {name: value for name, value in env.items() if name != "REDIS_URL"}
    if redis_url is not None:
        child["REDIS_URL"] = redis_url
    return child


@contextlib.contextmanager
def serve_processes(
    redis_url: str, log_dir: Path, count: int, *options: str
) -> Iterator[list[ServeProcess]]:
    """``count`` services on one Redis, started and stopped side by side (imports
    take most of a start, so together is faster), each given ``options``."""
    services: list[ServeProcess] = []
    try:
        for number in range(count):
            services.append(ServeProcess(redis_url, log_dir / f"serve-{number}.log", *options))
        for service in services:
            service.wait_ready()
        yield services
    finally:
        for service in services:
            if service.alive:
                service.process.terminate()
        for service in services:
            service.stop()
