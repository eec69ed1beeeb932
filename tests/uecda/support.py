"""What the UECda tests share: the official client built with gcc, a proxy that records
what the server sends each client, and a parser of that byte stream by UECDA.md §1.5."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import subprocess
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from service.uecda.wire import (
    ALL_GAMES_OVER,
    GAME_GOES_ON,
    GAME_OVER,
    INT_BYTES,
    TABLE_BYTES,
    Table,
    cell,
    unpack_int,
    unpack_table,
)

CLIENT_SOURCE = Path("/work/shared/third_party/uecda-client")
SOURCES = ("client.c", "connection.c", "daihinmin.c")


def build_official_client(directory: Path) -> Path | None:
    """The unmodified contest client, compiled into ``directory``; None without gcc."""
    gcc = shutil.which("gcc")
    source = _client_source()
    if gcc is None or source is None:
        return None
    binary = directory / "uecda-client"
    subprocess.run(
        [gcc, "-O2", "-fcommon", "-w", "-o", str(binary), *(str(source / s) for s in SOURCES)],
        check=True,
    )
    return binary


def _client_source() -> Path | None:
    here = Path(__file__).resolve()
    for candidate in (
        CLIENT_SOURCE,
        *(p / "shared/third_party/uecda-client" for p in here.parents),
    ):
        if (candidate / "client.c").is_file():
            return candidate
    return None


async def run_clients(
    binary: Path, port: int, names: Sequence[str], timeout: float = 600.0
) -> list[int]:
    """Start one official client per name, one after the other (connect order), and
    wait for all to exit; their exit codes."""
    processes = []
    for name in names:
        process = await asyncio.create_subprocess_exec(
            str(binary), "-h", "127.0.0.1", "-p", str(port), "-n", name,
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
        )  # fmt: skip
        processes.append(process)
        await asyncio.sleep(0.2)  # connect order = the order given
    try:
        return list(await asyncio.wait_for(asyncio.gather(*(p.wait() for p in processes)), timeout))
    finally:
        for process in processes:
            if process.returncode is None:
                process.kill()
                await process.wait()


@dataclass
class Recorder:
    """A TCP proxy in front of the UECda port that keeps every byte the server sends
    each connection (in accept order)."""

    upstream: int
    received: list[bytearray] = field(default_factory=list)
    port: int = 0

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[Recorder]:
        server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        self.port = server.sockets[0].getsockname()[1]
        try:
            yield self
        finally:
            server.close()

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        record = bytearray()
        self.received.append(record)
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.upstream)

        async def pump(
            source: asyncio.StreamReader, sink: asyncio.StreamWriter, keep: bool
        ) -> None:
            try:
                while data := await source.read(65536):
                    if keep:
                        record.extend(data)
                    sink.write(data)
                    await sink.drain()
            except OSError:
                pass
            finally:
                with contextlib.suppress(Exception):
                    sink.close()

        await asyncio.gather(pump(reader, up_writer, False), pump(up_reader, writer, True))


@dataclass
class Turn:
    hand: Table
    accept: int | None
    field: Table
    end: int


@dataclass
class Game:
    start: Table
    turns: list[Turn] = field(default_factory=list)


@dataclass
class Transcript:
    player: int
    games: list[Game]


class StreamError(AssertionError):
    pass


def parse_stream(data: bytes, cut: bool = False) -> Transcript:
    """What the server sent one client, message by message; every byte accounted for.
    ``cut``: the stream may stop anywhere (the server stopped): what came whole."""
    position = 0

    def take(size: int) -> bytes:
        nonlocal position
        if position + size > len(data):
            raise StreamError(f"stream ends at {len(data)}, wanted {size} bytes at {position}")
        chunk = data[position : position + size]
        position += size
        return chunk

    player = unpack_int(take(INT_BYTES))
    games: list[Game] = []
    try:
        _parse_games(take, games)
    except StreamError:
        if not cut:
            raise
        return Transcript(player, games)
    if position != len(data):
        raise StreamError(f"{len(data) - position} bytes after the last game")
    return Transcript(player, games)


def _parse_games(take: Callable[[int], bytes], games: list[Game]) -> None:
    end = GAME_OVER
    while end != ALL_GAMES_OVER:
        game = Game(unpack_table(take(TABLE_BYTES)))
        if game.start[cell(5, 0)] != 1:
            raise StreamError(f"game {len(games) + 1}: start table without [5][0] = 1")
        games.append(game)
        end = GAME_GOES_ON
        while end == GAME_GOES_ON:
            hand = unpack_table(take(TABLE_BYTES))
            accept = unpack_int(take(INT_BYTES)) if hand[cell(5, 2)] == 1 else None
            field_table = unpack_table(take(TABLE_BYTES))
            end = unpack_int(take(INT_BYTES))
            if end not in (GAME_GOES_ON, GAME_OVER, ALL_GAMES_OVER):
                raise StreamError(f"end flag {end}")
            game.turns.append(Turn(hand, accept, field_table, end))


def games_told_over(transcript: Transcript) -> int:
    """The games whose end the client was told (its end flag 1, or 2 for the last)."""
    return sum(1 for game in transcript.games if game.turns and game.turns[-1].end != GAME_GOES_ON)


def told_places(transcript: Transcript) -> list[list[int]]:
    """The places of every game but the last as the next game's start table told them
    ([6][5..9] is each player's rank, 0 for the 大富豪), by player number."""
    return [
        [rank + 1 for rank in game.start[cell(6, 5) : cell(6, 10)]] for game in transcript.games[1:]
    ]


class RawClient:
    """A UECda client written here, byte by byte, for tests that need one the official
    client cannot be: hostile, scripted, or one that leaves."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.player = -1

    @classmethod
    async def connect(cls, port: int, name: str = "raw", version: int = 20070) -> RawClient:
        """Connected, its profile sent and its player number read (which comes once
        enough clients wait to fill the table)."""
        client = await cls.open(port, name, version)
        client.player = await client.read_int()
        return client

    @classmethod
    async def open(cls, port: int, name: str = "raw", version: int = 20070) -> RawClient:
        """Connected and its profile sent; its number not read yet."""
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        client = cls(reader, writer)
        profile = [0] * 120
        profile[0] = version
        for column, char in enumerate(name.encode()[:14]):
            profile[15 + column] = char
        client.send(profile)
        await writer.drain()
        return client

    def send(self, table: Table) -> None:
        self.writer.write(b"".join(value.to_bytes(4, "big") for value in table))

    def send_bytes(self, data: bytes) -> None:
        self.writer.write(data)

    async def read_table(self) -> Table:
        return unpack_table(await self.reader.readexactly(TABLE_BYTES))

    async def read_int(self) -> int:
        return unpack_int(await self.reader.readexactly(INT_BYTES))

    def close(self) -> None:
        self.writer.close()
