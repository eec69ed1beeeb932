"""The deployment's signing keys (service.app.signing): the key file, made once with
tight permissions, rotated by adding a key, and the signer that picks the key by time."""

from __future__ import annotations

import json
import stat
import threading
from pathlib import Path

import pytest

from service import cli
from service.app import signing
from service.app.signing import (
    NoSigningKey,
    Signer,
    create_key_file,
    default_key_file,
    generate_keys,
    key_file_text,
    load_key_file,
    parse_key_file,
    rotate,
    serving_signer,
    write_key_file,
)
from service.records import KeyFormatError, Problem, verify

T0 = 1_700_000_000_000
HEAD = "a" * 64
DIGEST = "d" * 64


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_data_folder_is_xdg_data_home() -> None:
    assert default_key_file({"XDG_DATA_HOME": "/data"}) == Path(
        "/data/daifugo/keys/signing-keys.json"
    )
    assert default_key_file({}).parts[-5:] == (
        ".local",
        "share",
        "daifugo",
        "keys",
        "signing-keys.json",
    )


def test_serve_makes_the_key_once_in_a_private_folder(tmp_path: Path) -> None:
    env = {"XDG_DATA_HOME": str(tmp_path)}
    first = serving_signer(None, env)
    path = tmp_path / "daifugo" / "keys" / "signing-keys.json"
    assert mode(path.parent) == 0o700 and mode(path) == 0o600
    assert serving_signer(None, env).keys.published == first.keys.published  # the same key
    assert not list(path.parent.glob(".*tmp"))


def test_a_key_file_others_can_read_is_named_in_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "signing-keys.json"
    create_key_file(path, T0)
    path.chmod(0o644)
    serving_signer(str(path))
    assert any("every user" in record.message for record in caplog.records)


def test_a_given_key_file_must_exist(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        serving_signer(str(tmp_path / "missing.json"))
    assert not (tmp_path / "missing.json").exists()


def test_serve_stops_at_a_missing_or_bad_key_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["serve", "--signing-key-file", str(tmp_path / "missing.json")]) == 2
    assert "missing.json" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "daifugo-signing-keys", "version": 1, "keys": []}')
    assert cli.main(["serve", "--signing-key-file", str(bad)]) == 2
    assert "at least one key" in capsys.readouterr().err


def test_processes_making_the_file_side_by_side_agree(tmp_path: Path) -> None:
    path = tmp_path / "keys" / "signing-keys.json"
    barrier = threading.Barrier(8)
    made: list[str] = []

    def make() -> None:
        barrier.wait()
        made.append(create_key_file(path, T0).entries[-1].published.key_id)

    threads = [threading.Thread(target=make) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(set(made)) == 1 and len(made) == 8
    assert load_key_file(path).entries[-1].published.key_id == made[0]


def test_the_file_round_trips_and_keeps_private_halves_only_while_they_sign() -> None:
    keys = rotate(rotate(generate_keys(T0), T0 + 10), T0 + 20, T0 + 100)
    again = parse_key_file(key_file_text(keys))
    assert again.published == keys.published
    document = json.loads(key_file_text(keys))
    # the first key's time is over: public only; the second signs until T0 + 100
    assert ["private_key" in item for item in document["keys"]] == [False, True, True]
    assert [key.valid_to for key in keys.published] == [T0 + 10, T0 + 100, None]


def test_a_rotation_switches_keys_at_its_time_and_old_records_still_verify() -> None:
    clock = [T0]
    before = Signer(generate_keys(T0), clock=lambda: clock[0])
    old_receipt = before.receipt("m", 0, 2, HEAD, DIGEST)
    clock[0] = T0 + 50
    rotated = Signer(rotate(before.keys, T0 + 50, T0 + 1000), clock=lambda: clock[0])
    old_key, new_key = rotated.keys.published
    assert rotated.seal("m", 9, HEAD).record.key_id == old_key.key_id  # not yet
    clock[0] = T0 + 1000
    sealed = rotated.seal("m", 9, HEAD)
    assert sealed.record.key_id == new_key.key_id
    published = rotated.key_set()
    assert verify(old_receipt.to_dict(), published).ok
    assert verify(sealed.to_dict(), published).ok
    # the old file's signer keeps the old key past the switch: its records do not hold
    late = before.refusal("m", 3, HEAD, "not_your_turn", DIGEST)
    assert verify(late.to_dict(), published).problem is Problem.KEY_NOT_VALID


def test_a_rotation_cannot_be_dated_back() -> None:
    keys = generate_keys(T0)
    with pytest.raises(ValueError):
        rotate(keys, T0 + 10, T0 + 5)
    with pytest.raises(ValueError):
        rotate(keys, T0, T0)


def test_a_file_of_retired_keys_signs_nothing() -> None:
    keys = rotate(generate_keys(T0), T0 + 10)
    document = json.loads(key_file_text(keys))
    del document["keys"][-1]["private_key"]
    retired = parse_key_file(json.dumps(document))
    with pytest.raises(NoSigningKey):
        retired.signing_key(T0 + 20)
    with pytest.raises(NoSigningKey):
        retired.signing_key(T0 - 1)


@pytest.mark.parametrize(
    "edit",
    [
        lambda doc: doc.update(format="other"),
        lambda doc: doc.update(version=2),
        lambda doc: doc["keys"][0].update(valid_to=doc["keys"][1]["valid_from"] + 1),  # overlap
        lambda doc: doc["keys"][1].update(valid_to=doc["keys"][1]["valid_from"] + 5),  # not open
        lambda doc: doc["keys"][1].update(private_key=doc["keys"][0]["private_key"]),
        lambda doc: doc["keys"][1].update(public_key="AAAA"),
        lambda doc: doc["keys"].append(doc["keys"][0]),
        lambda doc: doc["keys"][0].update(valid_from="yesterday"),
    ],
)
def test_a_bad_key_file_is_refused(edit: object) -> None:
    document = json.loads(key_file_text(rotate(generate_keys(T0), T0 + 10, T0 + 20)))
    edit(document)  # type: ignore[operator]
    with pytest.raises(KeyFormatError):
        parse_key_file(json.dumps(document))


def test_the_cli_makes_rotates_and_shows_keys(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "signing-keys.json"
    assert cli.main(["keys", "show", "--file", str(path)]) == 1
    assert cli.main(["keys", "new", "--file", str(path)]) == 0
    (first,) = json.loads(capsys.readouterr().out)["keys"]
    assert cli.main(["keys", "new", "--file", str(path)]) == 1  # never over a key
    assert cli.main(["keys", "rotate", "--file", str(path), "--delay", "60"]) == 0
    old, new = json.loads(capsys.readouterr().out)["keys"]
    assert old["key_id"] == first["key_id"] and old["valid_to"] == new["valid_from"]
    assert new["valid_to"] is None and mode(path) == 0o600
    assert cli.main(["keys", "show", "--file", str(path)]) == 0
    assert json.loads(capsys.readouterr().out)["keys"] == [old, new]


def test_the_cli_names_the_same_variable_as_the_module() -> None:
    assert cli.KEY_FILE_ENV == signing.KEY_FILE_ENV


def test_a_rewritten_file_replaces_the_old_whole(tmp_path: Path) -> None:
    path = tmp_path / "k.json"
    keys = create_key_file(path, T0)
    write_key_file(path, rotate(keys, T0 + 1))
    assert len(load_key_file(path).entries) == 2 and mode(path) == 0o600
