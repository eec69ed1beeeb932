"""deploy/Dockerfile as BuildKit's own parser reads it (the `dockerfile` package), and
.dockerignore: pinned bases, a non-root final stage with a health check and no compiler,
every COPY source in the repo and sent to the build, and the CMD's shell line run."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from .support import ROOT, final_user, healthcheck, instructions, stages


def test_base_images_are_pinned() -> None:
    names: list[str] = []
    for command in instructions():
        if command.cmd != "FROM":
            continue
        image = command.value[0]
        if image not in names:  # not an earlier stage
            tag = image.rsplit("/", 1)[-1].partition(":")[2]
            assert "@sha256:" in image or (tag and tag != "latest"), f"{image} is not pinned"
        if len(command.value) == 3:  # FROM image AS name
            names.append(command.value[2])


def test_final_stage_runs_as_a_non_root_user() -> None:
    user, _, group = final_user().partition(":")
    assert user not in ("root", "0") and group not in ("root", "0")


def test_final_stage_checks_grpc_health() -> None:
    command = healthcheck()
    assert command.value[:3] == ("CMD", "daifugo", "health")
    assert "127.0.0.1:50051" in command.value


def test_final_stage_exposes_both_ports_and_has_no_compiler() -> None:
    final = stages()[-1]
    exposed = {port for command in final if command.cmd == "EXPOSE" for port in command.value}
    assert exposed == {"50051", "8080"}
    runs = " ".join(" ".join(command.value) for command in final if command.cmd == "RUN")
    assert not re.search(r"\b(gcc|build-essential|cc)\b", runs)


def glob_regex(glob: str) -> re.Pattern[str]:
    """A .dockerignore pattern as a regex: `**` any folders, `*` and `?` within one."""
    out = []
    for part in re.findall(r"\*\*/|\*\*|\*|\?|\[[^]]*\]|[^*?[]+", glob):
        if part == "**/":
            out.append("(.*/)?")
        elif part in ("**", "*", "?"):
            out.append({"**": ".*", "*": "[^/]*", "?": "[^/]"}[part])
        else:
            out.append(part if part.startswith("[") else re.escape(part))
    return re.compile("".join(out))


def dockerignore() -> list[tuple[bool, re.Pattern[str]]]:
    """.dockerignore's rules as (exception?, pattern), in order."""
    rules = []
    for line in (ROOT / ".dockerignore").read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            rules.append((line.startswith("!"), glob_regex(line.lstrip("!").strip("/"))))
    return rules


def sent_to_the_build(relative: str, rules: list[tuple[bool, re.Pattern[str]]]) -> bool:
    """Docker's rule: the last pattern matching the path or a parent of it decides."""
    parts = relative.split("/")
    prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    ignored = False
    for negated, pattern in rules:
        if any(pattern.fullmatch(prefix) for prefix in prefixes):
            ignored = not negated
    return not ignored


def test_every_copy_source_exists_and_reaches_the_build() -> None:
    rules = dockerignore()
    assert not sent_to_the_build(".venv/bin/python", rules)
    assert not sent_to_the_build("service/__pycache__/cli.cpython-311.pyc", rules)
    copies = [
        command
        for command in instructions()
        if command.cmd in ("COPY", "ADD")
        and not any(flag.startswith("--from") for flag in command.flags)
    ]
    assert copies
    for command in copies:
        for source in command.value[:-1]:
            path = ROOT / source
            assert path.exists(), f"COPY {source}: not in the repo"
            files = [path] if path.is_file() else [p for p in path.rglob("*") if p.is_file()]
            for file in files:
                relative = file.relative_to(ROOT).as_posix()
                if "__pycache__" not in relative:
                    assert sent_to_the_build(relative, rules), f"{relative}: left out"


def test_stage_references_name_stages() -> None:
    names = [command.value[2] for command in instructions() if len(command.value) == 3]
    for command in instructions():
        for flag in command.flags:
            found = re.search(r"from=([^,\s]+)", flag)
            assert found is None or found[1] in names, flag


def test_cmd_serves_on_all_interfaces_and_requires_redis_url(tmp_path: Path) -> None:
    (cmd,) = [command for command in stages()[-1] if command.cmd == "CMD"]
    assert cmd.json and cmd.value[:2] == ("sh", "-c")
    # a stand-in `daifugo` that prints what it was given
    fake = tmp_path / "daifugo"
    fake.write_text('#!/bin/sh\necho "$@"\n')
    fake.chmod(0o755)
    env = {"PATH": f"{tmp_path}:/usr/bin:/bin"}
    key_file = "/run/secrets/signing-keys.json"
    given = {**env, "REDIS_URL": "redis://redis:6379/0", "DAIFUGO_SIGNING_KEY_FILE": key_file}
    ran = subprocess.run(list(cmd.value), env=given, capture_output=True, text=True, check=True)
    args = ran.stdout.split()
    assert args[0] == "serve" and args[args.index("--host") + 1] == "0.0.0.0"
    assert args[args.index("--redis-url") + 1] == "redis://redis:6379/0"
    assert args[args.index("--signing-key-file") + 1] == key_file
    for missing in ("REDIS_URL", "DAIFUGO_SIGNING_KEY_FILE"):
        partial = {name: value for name, value in given.items() if name != missing}
        refused = subprocess.run(
            list(cmd.value), env=partial, capture_output=True, text=True, check=False
        )
        assert refused.returncode != 0 and missing in refused.stderr and not refused.stdout


def test_no_signing_key_reaches_the_image() -> None:
    # a key file anywhere in the context stays out of the build, and nothing names one
    rules = dockerignore()
    for path in ("signing-keys.json", "service/signing-keys.json", "deploy/signing-keys.json"):
        assert not sent_to_the_build(path, rules), path
    for command in instructions():
        text = " ".join(command.value)
        if command.cmd == "CMD":
            text = text.replace("${DAIFUGO_SIGNING_KEY_FILE:?", "")
        assert "signing-keys" not in text and "PRIVATE KEY" not in text, command.original
        assert not (command.cmd == "ENV" and "DAIFUGO_SIGNING_KEY_FILE" in text), command.original
