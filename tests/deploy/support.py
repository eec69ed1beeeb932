"""Where deploy/ is, and the Dockerfile as BuildKit's own parser reads it."""

from __future__ import annotations

import socket
from pathlib import Path

import dockerfile

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"


def instructions() -> tuple[dockerfile.Command, ...]:
    return dockerfile.parse_file(str(DEPLOY / "Dockerfile"))


def stages() -> list[list[dockerfile.Command]]:
    """Each stage's instructions after its FROM."""
    found: list[list[dockerfile.Command]] = []
    for command in instructions():
        if command.cmd == "FROM":
            found.append([])
        elif found:
            found[-1].append(command)
    return found


def final_user() -> str:
    users = [command.value[0] for command in stages()[-1] if command.cmd == "USER"]
    assert users, "the final stage sets no USER: it would run as root"
    return str(users[-1])


def healthcheck() -> dockerfile.Command:
    (found,) = [command for command in stages()[-1] if command.cmd == "HEALTHCHECK"]
    return found


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
