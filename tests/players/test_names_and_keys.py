"""Player names (NFKC, case folding, TR39 skeletons, refused characters) and keys
(forged, rotated, another player's), on the in-memory store: the same Players as
``daifugo serve`` runs over Redis (tests/players/test_players_serve.py)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from eventstore import InMemoryEventStore
from service.app.errors import ServiceError
from service.app.players import (
    MAX_NAME_CHARS,
    PlayerKind,
    Players,
    key_hash,
    normalized,
    parse_key,
    player_id_of,
)


@pytest.mark.parametrize(
    ("first", "lookalike"),
    [
        ("Alice", "alice"),  # case
        ("Alice", "ＡＬＩＣＥ"),  # fullwidth: NFKC
        ("rnoon", "moon"),  # rn looks like m (TR39)
        ("Straße", "STRASSE"),  # case folding
        ("oo", "оо"),  # whole-script Cyrillic o's
        ("l1", "ll"),  # digit one looks like l
    ],
)
async def test_a_name_that_looks_like_a_taken_one_is_refused(first: str, lookalike: str) -> None:
    players = Players(InMemoryEventStore())
    await players.register(first)
    with pytest.raises(ServiceError) as refused:
        await players.register(lookalike)
    assert refused.value.code == "name_taken"


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("Al\u200bice", "invalid_name"),  # Cf: zero width space
        ("Bob\u202e", "invalid_name"),  # Cf: right-to-left override
        ("a\u2028b", "invalid_name"),  # Zl
        ("a\u2029b", "invalid_name"),  # Zp
        ("a\x07b", "invalid_name"),  # Cc
        ("a\tb", "invalid_name"),
        ("a  b", "invalid_name"),
        ("   ", "invalid_name"),
        ("pаypal", "invalid_name"),  # Latin with one Cyrillic а
        ("x1٣", "invalid_name"),  # digits of two systems
        ("bot:stronger", "invalid_name"),  # the bots' names
        ("uecda:x", "invalid_name"),
        ("x" * (MAX_NAME_CHARS + 1), "too_long"),
        ("\ufdfa" * 20, "too_long"),  # one character, 18 after NFKC
    ],
)
async def test_names_no_player_may_have(name: str, code: str) -> None:
    with pytest.raises(ServiceError) as refused:
        await Players(InMemoryEventStore()).register(name)
    assert refused.value.code == code


async def test_japanese_names_and_their_kana_mixes_are_fine() -> None:
    players = Players(InMemoryEventStore())
    for name in ("山田太郎", "たろう Taro", "ダイフゴウ"):
        registered = await players.register(name)
        assert registered.player.name == name


async def test_a_forged_key_a_rotated_key_and_another_players_key_are_refused() -> None:
    players = Players(InMemoryEventStore())
    alice = await players.register("Alice")
    bob = await players.register("Bob")
    assert (await players.authenticate(alice.key)).name == "Alice"
    alice_id, bob_id = alice.player.player_id, bob.player.player_id
    secret = parse_key(alice.key)[1]
    forged = [
        f"dfp_{alice_id}_{'A' * 43}",  # the right shape, a guessed secret
        f"dfp_{bob_id}_{secret}",  # Alice's secret on Bob's id
        alice.key + "x",
        alice.key.upper(),
        "",
        f"dfp_{player_id_of('bot:stronger')}_{'A' * 43}",  # a keyless player
    ]
    await players.ensure("bot:stronger", PlayerKind.BOT)
    for key in forged:
        with pytest.raises(ServiceError) as refused:
            await players.authenticate(key)
        assert refused.value.code == "unauthenticated", key
    rotated = await players.rotate(alice.key)
    with pytest.raises(ServiceError):
        await players.authenticate(alice.key)
    assert (await players.authenticate(rotated.key)).player_id == alice_id
    with pytest.raises(ServiceError):  # the old key rotates nothing
        await players.rotate(alice.key)


async def test_only_the_keys_hash_is_stored() -> None:
    store = InMemoryEventStore()
    registered = await Players(store).register("Alice")
    player_id = registered.player.player_id
    (event,) = await store.read(f"p:{player_id}")
    secret = parse_key(registered.key)[1]
    assert secret not in repr(event.data) and registered.key not in repr(event.data)
    assert event.data["key_hash"] == key_hash(player_id, secret)


async def test_a_bot_name_is_registered_once_and_a_person_cannot_take_it() -> None:
    players = Players(InMemoryEventStore())
    first = await players.ensure("bot:stronger", PlayerKind.BOT)
    assert await players.ensure("bot:stronger", PlayerKind.BOT) == first
    assert first.verified
    program = await players.ensure("uecda:kou2", PlayerKind.UECDA)
    assert not program.verified


@given(st.text(max_size=30))
def test_normalizing_is_idempotent_and_the_id_ignores_case_and_width(name: str) -> None:
    try:
        text = normalized(name)
    except ServiceError:
        return
    assert normalized(text) == text
    assert player_id_of(text) == player_id_of(text.casefold())
