"""`daifugo play` in a real terminal (a pseudo-terminal), against the running
service: a person who always answers with the first listed move plays a
whole match against bots."""

from __future__ import annotations

import asyncio
import os
import pty
import select
import subprocess
import sys
import time

from service.runtime import Running

PROMPT = b"your move"
DONE = b"match over"


def play_by_first_moves(grpc_port: int, timeout: float = 240.0) -> tuple[bytes, int]:
    """Run `daifugo play` in a pty, answer every prompt with 0; the output and the
    number of moves made."""
    leader, follower = pty.openpty()
    command = [sys.executable, "-m", "service.cli", "play", "--grpc", f"127.0.0.1:{grpc_port}"]
    process = subprocess.Popen(
        [*command, "--preset", "classic", "--players", "2", "--games", "1"],
        stdin=follower,
        stdout=follower,
        stderr=follower,
        close_fds=True,
    )
    os.close(follower)
    output, moves, answered = b"", 0, 0
    deadline = time.monotonic() + timeout
    try:
        while DONE not in output and time.monotonic() < deadline:
            ready, _, _ = select.select([leader], [], [], 1.0)
            if ready:
                try:
                    output += os.read(leader, 65536)
                except OSError:  # the program ended
                    break
            if output.count(PROMPT) > answered:
                answered = output.count(PROMPT)
                os.write(leader, b"0\n")
                moves += 1
        process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
        os.close(leader)
    return output, moves


async def test_a_person_plays_a_whole_match_from_the_terminal(running: Running) -> None:
    output, moves = await asyncio.to_thread(play_by_first_moves, running.grpc_port)
    text = output.decode(errors="replace")
    assert "you are seat 0" in text
    assert DONE.decode() in text, text[-2000:]
    assert moves > 0
    assert "Aoi plays " in text  # what the bot did was told as it happened, in words
    assert "Seat 1" not in text and "seat 1" not in text  # by name: Aoi sits there
    assert "CardsPlayed" not in text and "seq=" not in text  # no raw event dumps
    assert "refused" not in text  # a listed move is always legal
