"""Registered players: a name, a secret key shown once, and only the key's hash kept.

Each player is a stream of its own, ``p:<id>``, whose id is a hash of the name's
*skeleton*: the name NFKC-normalized, case-folded, then mapped by Unicode TR39's
confusables (ICU's ``SpoofChecker.getSkeleton``, through PyICU). Two names that look
alike have one skeleton, so one stream: registration appends ``PlayerRegistered`` only
to a stream that has no event yet (expected version -1), and the store's
compare-and-append makes the second of two lookalikes, or a race of two sign-ups of one
name, lose (``name_taken``). Nothing else is needed to keep names unique.

A name is refused outright when it holds a control, format, line or paragraph separator
(Cc, Cf, Zl, Zp) or an unassigned or private character, is too long, or mixes scripts
beyond ICU's "highly restrictive" level (Latin with Han and kana is fine; Latin with
Cyrillic is not), or has digits of several systems.

The key is ``dfp_<id>_<secret>``: 32 random bytes behind the player's id. What is kept is
HMAC-SHA256 of the secret under a label naming the player: a fast hash is enough for a
256-bit random secret (no guess list exists to try), a slow one would only make every
authenticated call a lever for load, and binding the hash to the id means a hash copied
into another player's stream verifies nothing there.

Our bots (``bot:stronger``...) and each UECda program's name (``uecda:<name>``, marked
unverified: that protocol carries no credential) are players too, without a key: the
service alone seats them.
"""

from __future__ import annotations

import base64
import enum
import hashlib
import hmac
import re
import secrets
import unicodedata
from dataclasses import dataclass

import icu

from eventstore import NO_STREAM, ConcurrencyConflict, EventStore, NewEvent, StoredEvent

from .errors import ServiceCode, ServiceError

PLAYER_STREAM = "p:"
MAX_NAME_CHARS = 24
KEY_PREFIX = "dfp_"
SECRET_BYTES = 32
BOT_PREFIX = "bot:"
UECDA_PREFIX = "uecda:"
SCHEMA = 1
# Cc controls, Cf format (bidi, zero width), Zl/Zp separators, Cs surrogates, Co private
# use, Cn unassigned: invisible or ambiguous in a name
_REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"})
_KEY = re.compile(r"dfp_([0-9a-f]{32})_([A-Za-z0-9_-]{43})")
_MAX_KEY_CHARS = 100


class PlayerKind(enum.StrEnum):
    PERSON = "person"  # registered over REST or the CLI, with a key
    BOT = "bot"  # one of the service's bots
    UECDA = "uecda"  # a UECda program's name: unverified


@dataclass(frozen=True, slots=True)
class RegistrationLimits:
    """At most ``per_address`` sign-ups from one address and ``overall`` from all per
    ``window_seconds``."""

    per_address: int = 5
    overall: int = 200
    window_seconds: float = 3600.0


@dataclass(frozen=True, slots=True)
class Player:
    player_id: str
    name: str
    kind: PlayerKind
    verified: bool
    key_hash: str  # "" for a player without a key (a bot, a UECda name)
    version: int  # its stream's version


@dataclass(frozen=True, slots=True)
class Registered:
    player: Player
    key: str  # shown once, kept nowhere


def normalized(name: str) -> str:
    """The name as it is kept and shown: NFKC, surrounding spaces removed; refused
    (``invalid_name``, ``too_long``) when no player may have it."""
    if not isinstance(name, str):
        raise ServiceError(ServiceCode.INVALID_NAME, "a name is text")
    if len(name) > 4 * MAX_NAME_CHARS:  # before normalizing: NFKC can grow a string 18-fold
        raise ServiceError(ServiceCode.TOO_LONG, f"a name is at most {MAX_NAME_CHARS} characters")
    text = unicodedata.normalize("NFKC", name).strip()
    if not text:
        raise ServiceError(ServiceCode.INVALID_NAME, "a name is not empty")
    if len(text) > MAX_NAME_CHARS:
        raise ServiceError(ServiceCode.TOO_LONG, f"a name is at most {MAX_NAME_CHARS} characters")
    for char in text:
        if unicodedata.category(char) in _REFUSED_CATEGORIES:
            raise ServiceError(
                ServiceCode.INVALID_NAME, f"a name may not hold the character U+{ord(char):04X}"
            )
        if char.isspace() and char != " ":
            raise ServiceError(ServiceCode.INVALID_NAME, "a name's only space is U+0020")
    if "  " in text:
        raise ServiceError(ServiceCode.INVALID_NAME, "a name has no two spaces in a row")
    if _spoof_checker().check(text):
        raise ServiceError(
            ServiceCode.INVALID_NAME,
            "a name may not mix scripts (or digits of two systems) that way",
        )
    return text


def skeleton(name: str) -> str:
    """What two names that look alike share: TR39's skeleton of the case-folded name."""
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
    return str(_spoof_checker().getSkeleton(0, folded))


def player_id_of(name: str) -> str:
    """The id (and stream) every name that looks like ``name`` maps to."""
    return hashlib.sha256(skeleton(name).encode()).hexdigest()[:32]


def stream_of(player_id: str) -> str:
    return f"{PLAYER_STREAM}{player_id}"


def bot_player_name(kind: str) -> str:
    return f"{BOT_PREFIX}{kind}"


def uecda_player_name(name: str) -> str:
    return f"{UECDA_PREFIX}{name}"


def key_hash(player_id: str, secret: str) -> str:
    label = f"daifugo player key v1 {player_id}".encode()
    return hmac.new(label, secret.encode(), "sha256").hexdigest()


def parse_key(key: str) -> tuple[str, str]:
    """(player id, secret) of a key; ``unauthenticated`` when it is not one's shape."""
    if not isinstance(key, str) or len(key) > _MAX_KEY_CHARS:
        raise ServiceError(ServiceCode.UNAUTHENTICATED, "that is not a player key")
    found = _KEY.fullmatch(key)
    if found is None:
        raise ServiceError(ServiceCode.UNAUTHENTICATED, "that is not a player key")
    return found.group(1), found.group(2)


def _new_key(player_id: str) -> tuple[str, str]:
    """A new key and its hash."""
    secret = base64.urlsafe_b64encode(secrets.token_bytes(SECRET_BYTES)).decode().rstrip("=")
    return f"{KEY_PREFIX}{player_id}_{secret}", key_hash(player_id, secret)


_checker: icu.SpoofChecker | None = None


def _spoof_checker() -> icu.SpoofChecker:
    global _checker
    if _checker is None:
        checker = icu.SpoofChecker()
        checker.setChecks(
            icu.USpoofChecks.RESTRICTION_LEVEL
            | icu.USpoofChecks.INVISIBLE
            | icu.USpoofChecks.MIXED_NUMBERS
        )
        checker.setRestrictionLevel(icu.URestrictionLevel.HIGHLY_RESTRICTIVE)
        _checker = checker
    return _checker


def fold_player(events: list[StoredEvent]) -> Player | None:
    """The player a stream's events make (None: no player there)."""
    player: Player | None = None
    for event in events:
        match event.type:
            case "PlayerRegistered":
                data = event.data
                player = Player(
                    str(data["player_id"]),
                    str(data["name"]),
                    PlayerKind(data["kind"]),
                    bool(data["verified"]),
                    str(data["key_hash"]),
                    event.seq,
                )
            case "PlayerKeyRotated":
                assert player is not None, "a key rotated before its player registered"
                player = Player(
                    player.player_id,
                    player.name,
                    player.kind,
                    player.verified,
                    str(event.data["key_hash"]),
                    event.seq,
                )
            case _:
                pass  # a later event this version does not know changes nothing here
    return player


class Players:
    """Registering, authenticating and rotating keys, over the event store."""

    def __init__(self, store: EventStore) -> None:
        self.store = store

    async def get(self, player_id: str) -> Player | None:
        return fold_player(await self.store.read(stream_of(player_id)))

    async def register(self, name: str) -> Registered:
        """A new person: its key, shown once. ``name_taken`` when it, or one that looks
        like it, is anyone's; names with a bot's or UECda program's prefix are theirs."""
        text = normalized(name)
        if ":" in text:
            raise ServiceError(
                ServiceCode.INVALID_NAME, "a person's name has no ':' (bot:, uecda:)"
            )
        player_id = player_id_of(text)
        key, hashed = _new_key(player_id)
        player = await self._create(player_id, text, PlayerKind.PERSON, True, hashed)
        if player is None:
            raise ServiceError(
                ServiceCode.NAME_TAKEN, "that name, or one that looks like it, is taken"
            )
        return Registered(player, key)

    async def ensure(self, name: str, kind: PlayerKind) -> Player:
        """A keyless player (a bot, a UECda name), registered on first use."""
        text = normalized(name)
        player_id = player_id_of(text)
        created = await self._create(player_id, text, kind, kind == PlayerKind.BOT, "")
        player = created or await self.get(player_id)
        assert player is not None
        if player.kind != kind:  # a person holds a lookalike of it
            raise ServiceError(
                ServiceCode.NAME_TAKEN, f"{text!r} looks like {player.name!r}'s name"
            )
        return player

    async def _create(
        self, player_id: str, name: str, kind: PlayerKind, verified: bool, hashed: str
    ) -> Player | None:
        """The player registered now, or None when its stream had one already."""
        data = {
            "player_id": player_id,
            "name": name,
            "kind": kind.value,
            "verified": verified,
            "key_hash": hashed,
        }
        try:
            await self.store.append(
                stream_of(player_id), [NewEvent("PlayerRegistered", data, SCHEMA)], NO_STREAM
            )
        except ConcurrencyConflict:
            return None
        return Player(player_id, name, kind, verified, hashed, 0)

    async def authenticate(self, key: str | None) -> Player:
        """The person whose key this is: ``unauthenticated`` for any other string (a
        forged key, an old one after a rotation, a keyless player's id)."""
        if not key:
            raise ServiceError(ServiceCode.UNAUTHENTICATED, "a player key is required")
        player_id, secret = parse_key(key)
        player = await self.get(player_id)
        expected = player.key_hash if player is not None else ""
        given = key_hash(player_id, secret)
        if player is None or not expected or not hmac.compare_digest(expected, given):
            raise ServiceError(ServiceCode.UNAUTHENTICATED, "that player key is not valid")
        return player

    async def rotate(self, key: str | None) -> Registered:
        """A new key for the key's player; the old one stops working at once."""
        player = await self.authenticate(key)
        new_key, hashed = _new_key(player.player_id)
        event = NewEvent("PlayerKeyRotated", {"key_hash": hashed}, SCHEMA)
        try:
            await self.store.append(stream_of(player.player_id), [event], player.version)
        except ConcurrencyConflict:  # rotated meanwhile: this key is the old one
            raise ServiceError(ServiceCode.UNAUTHENTICATED, "that player key was rotated") from None
        rotated = Player(
            player.player_id, player.name, player.kind, True, hashed, player.version + 1
        )
        return Registered(rotated, new_key)
