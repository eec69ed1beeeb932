"""The game service's application layer: every outward surface (gRPC, REST,
timers) goes through it. A command is load → fold → decide → append with the
expected version; on a conflict it reloads and decides again. Nothing but the
event stream is the truth; the match cache is only a cache."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import json
import secrets
import sys
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any

from eventstore import (
    NO_STREAM,
    AppendResult,
    ConcurrencyConflict,
    EventStore,
    InMemorySnapshots,
    InvalidEvent,
    NewEvent,
    RequestIdReused,
    Snapshots,
    StoredEvent,
    StreamClosed,
)
from eventstore.cache import BoundedCache
from eventstore.fanout import Fanout
from eventstore.overlap import appender

from ..match import (
    AbandonMatch,
    AbandonReason,
    Act,
    BotKind,
    Create,
    Join,
    LifecycleEvent,
    MatchCommand,
    MatchEvent,
    Seal,
    SeatJoined,
    Start,
    TimeOut,
    decide_and_evolve,
)
from ..match.decider import MAX_BOT_PAUSE_MS
from ..match.shuffle import commitment
from ..records import SignedRecord, action_request, request_digest
from ..rules import MatchState, Refusal
from ..rules.commands import SeatCommand
from ..rules.legal import legal_actions
from ..rules.notation import format_command
from ..rules.views import SPECTATOR, View, Viewer, build_view, visible_record
from .codec import StoreEvents, blinded, decode, encode
from .errors import MatchRefusalCode, RefusalCode, ServiceCode
from .errors import ServiceError as ServiceError  # re-exported: its home for adapters
from .inputs import (
    check_client_seed,
    check_client_seeds,
    check_match_id,
    check_name,
    check_options,
    check_request_id,
    check_turn_seconds,
)
from .keyring import HOST, Keyring, Role, looks_like_token
from .match import REVEALING, Match, as_of, fold_match, stream_of
from .match_waits import MatchWaits
from .players import PlayerKind, Players, uecda_player_name
from .quotas import Caller, Limits, Quotas, check_games
from .signing import Signer, ephemeral_signer
from .snapshots import MatchSnapshots

CONFLICT_RETRIES = 20
CACHE_SIZE = 4096
# google.protobuf.Duration's range; a time beyond it would not even store
MAX_SECONDS = 315_576_000_000
MAX_BOT_PAUSE = MAX_BOT_PAUSE_MS / 1000  # seconds
DEFAULT_LIMITS = Limits()  # the games-per-set limit of a service with no quotas
SEAL_REQUEST = "service:seal"  # the seal's append: an id in the service's own namespace
ABANDON_REQUEST = "service:abandon"  # a match is abandoned once: its retries are the same
TIMEOUT_REQUEST = "service:timeout:"  # the turn timer's appends: this, then the version


@dataclass(frozen=True, slots=True)
class CreatedMatch:
    match_id: str
    host_token: str
    seat_tokens: tuple[str, ...]
    receipt: SignedRecord | None = None


@dataclass(frozen=True, slots=True)
class Seated:
    """A seat taken: its number, its token (None for a bot's: the service plays it),
    and the signed receipts of what the taking appended: its SeatJoined and, when it
    filled an auto-start table, the start."""

    seat: int
    token: str | None
    receipts: tuple[SignedRecord, ...] = ()


@dataclass(frozen=True, slots=True)
class Outcome:
    """What an action did: the match's version after it, its events as the
    caller may see them (``seq`` added), and the match after it, for the caller."""

    version: int
    events: tuple[dict[str, Any], ...]
    match: Match
    viewer: Viewer
    stored: tuple[StoredEvent, ...] = ()  # the events as stored, nothing hidden
    receipt: SignedRecord | None = None  # what the caller is given: signed, of its events


@dataclass(frozen=True, slots=True)
class Sent:
    """An action sent to the store without waiting for it (``GameService.send_act``):
    the match after it as its sender decided it, its events as they will be stored, and
    the store's answer, which raises (an EventStoreError) when they were not stored."""

    match: Match
    events: tuple[StoredEvent, ...]
    stored: asyncio.Future[AppendResult]


@dataclass(frozen=True, slots=True)
class Ran:
    """What the loop did: the match it decided on (None: not created yet), the events
    it decided, and where they went (``duplicate``: an earlier request with this id
    appended them, and nothing was appended now)."""

    match: Match | None
    events: Sequence[MatchEvent]
    result: AppendResult
    game: MatchState | None = None  # the game after the events, when the decider knew it
    prepared: Outcome | None = None  # ``prepare``'s outcome of the appended events


# the outcome of an append (of the match, its game after it as the decider knew it, and
# the events as they would be stored)
Prepare = Callable[[Match, MatchState | None, Sequence[StoredEvent]], Outcome]


def _prepared(
    into: list[Outcome],
    prepare: Prepare,
    match: Match,
    game: MatchState | None,
    stored: Sequence[StoredEvent],
) -> None:
    into.append(prepare(match, game, stored))


@dataclass(frozen=True, slots=True)
class Seen:
    """What a viewer sees of a match, with its legal actions when it is to act."""

    view: View
    actions: tuple[SeatCommand, ...]
    match: Match


@dataclass(frozen=True, slots=True)
class Batch:
    """Events that came together, as a viewer sees them, and the viewer's turn
    when they leave it to act (so a client need not ask)."""

    events: list[dict[str, Any]]
    turn: Seen | None


def seen_by(match: Match, viewer: Viewer) -> Seen:
    to_act = viewer.seat is not None and match.game.turn == viewer.seat
    actions = tuple(legal_actions(match.game)) if to_act else ()
    return Seen(build_view(match.game, viewer), actions, match)


@dataclass(frozen=True, slots=True)
class MatchOptions:
    preset: str
    players: int
    options: dict[str, Any]
    games_per_set: int = 0
    turn_seconds: float = 0.0
    open_seats: bool = False
    client_seeds: tuple[bytes, ...] = ()
    spectator_delay: float = 0.0
    bots: Mapping[int, BotKind] = field(default_factory=dict)  # seat -> the bot playing it
    bot_pause: float = 0.0  # seconds the service's bots wait before each action
    auto_start: bool = False  # with open seats: start once the last is taken
    invites: bool = False  # with open seats: each taken with its invite (claim_seat) only
    rated: bool = False  # seats taken by registered players (or bots): its games rated
    lobby: bool = False  # with open seats, no invites: anyone may take one from the lobby


class GameService:
    def __init__(
        self,
        store: EventStore,
        keyring: Keyring,
        signer: Signer | None = None,
        quotas: Quotas | None = None,
        snapshots: Snapshots | None = None,
    ) -> None:
        """``quotas``: what callers may take (None: no quota, as for the service's own
        callers in tests and tools); ``snapshots``: where the matches' fold checkpoints
        are kept (beside the store's streams; None: in this process's memory)."""
        self.store = store
        # an append whose outcome is made while its round trip is awaited, where the store
        # can (eventstore/overlap.py): the one seam of that speed trick
        self._append_overlapping = appender(store)
        self.keyring = keyring
        self.quotas = quotas
        self.signer = signer or ephemeral_signer()  # None: a key for this process only
        self.fanout = Fanout(store)  # one follower per match for all its listeners here
        self.waits = MatchWaits(self.fanout, self._match_after)
        self.players = Players(store)  # who a player key is
        self._cache = BoundedCache[str, Match](CACHE_SIZE)
        self._sealing: set[asyncio.Future[None]] = set()  # seals of matches a sent act ended
        self.decoded = StoreEvents()  # of this service's store only
        self.snapshots = MatchSnapshots(
            store, InMemorySnapshots() if snapshots is None else snapshots, self.decoded.decode
        )
        self._shown = BoundedCache[tuple[str, int, str, Viewer, bool], dict[str, Any]](SHOWN_LIMIT)

    # -- loading -------------------------------------------------------------

    async def load(self, match_id: str) -> Match:
        """The match as its events say now (the cache only saves re-reading)."""
        check_match_id(match_id)
        cached = self._cache.get(match_id)
        try:
            if cached is None:  # from its latest snapshot: never a fold from event 0
                cached = await self._latest(match_id)
            start = cached.version + 1 if cached else 0
            newer = await self.store.read(stream_of(match_id), start)
        except InvalidEvent:  # an id no stream can have (braces): no such match
            raise ServiceError(MatchRefusalCode.NOT_FOUND, f"no match {match_id!r}") from None
        if cached is None and not newer:
            raise ServiceError(MatchRefusalCode.NOT_FOUND, f"no match {match_id!r}")
        match = fold_match(cached, newer, self.decoded.decode) if newer else cached
        assert match is not None
        self._remember(match)
        return match

    async def _latest(self, match_id: str) -> Match | None:
        """The match at its stream's last event as its snapshots give it, or None when
        the stream is short (a fold from 0 costs no more) or missing."""
        version = await self.store.version(stream_of(match_id))
        if version < self.snapshots.every:
            return None
        return await self.snapshots.match_at(match_id, version)

    def cached(self, match_id: str) -> Match | None:
        """The match as this process last saw it (no read: it may be behind)."""
        return self._cache.get(match_id)

    def _remember(self, match: Match) -> None:
        # never back: a read that finishes after a newer fold (an append's, or another
        # read's) would hide the newer events from a waiter that looks at the cache
        known = self._cache.get(match.match_id)
        if known is None or known.version <= match.version:
            self._cache.put(match.match_id, match)
            self.snapshots.noted(match)

    def authorize(self, match: Match, token: str | None) -> Role:
        if not token:
            raise ServiceError(ServiceCode.UNAUTHENTICATED, "a seat or host token is required")
        if not looks_like_token(token):  # not of the form any token has: not a token at all
            raise ServiceError(ServiceCode.UNAUTHENTICATED, "that is not a seat or host token")
        role = self.keyring.identify(match.match_id, token, match.players)
        if role is None:
            raise ServiceError(
                MatchRefusalCode.PERMISSION_DENIED, "that token is not one of this match's"
            )
        return role

    # -- the one loop: load -> fold -> decide -> append ---------------------------

    async def _run(
        self,
        match_id: str,
        command_for: Callable[[Match | None], MatchCommand],
        request_id: str = "",
        asked: str | Callable[[Sequence[MatchEvent]], str] = "",
        *,
        match: Match | None = None,
        new: bool = False,
        retries: int = CONFLICT_RETRIES,
        busy: str = "the match changed too often; try again",
        refused: Callable[[Match], None] | None = None,
        prepare: Prepare | None = None,
    ) -> Ran:
        """Decide the command ``command_for`` makes of the match (it may refuse with a
        ServiceError, as the decider may) and append its events at the match's version;
        on a conflict, load and decide again. A refusal stands only on what the stream
        says now, and not against a retry of a request that was carried out: that one's
        append comes back instead (``duplicate``).

        ``request_id``: a scoped digest or one of the service's own, never a caller's
        raw id; ``asked``: the fingerprint of what was asked (or how the decided events
        give it); ``match``: where to start (else the cached match, the append's
        expected version catching a stale cache: one round trip in the common case);
        ``new``: the match is not created yet; ``refused``: called as a refusal is
        raised, to sign it; ``prepare``: the outcome of events as they would be stored,
        made while the store's round trip is awaited (``Ran.prepared``, once stored)."""
        if match is None and not new:
            match = self._cache.get(match_id) or await self.load(match_id)
        for _ in range(retries):
            try:
                decided = decide_and_evolve(match, command_for(match))
                if isinstance(decided, Refusal):
                    raise ServiceError(decided.code, decided.message)
                decision = decided.events
            except ServiceError:
                if match is None:
                    raise
                latest = await self.load(match_id)
                if latest.version != match.version:
                    match = latest
                    continue
                if request_id:
                    done = await self.store.request_result(stream_of(match_id), request_id)
                    if done is not None:
                        if done.fingerprint != asked:
                            raise _reused() from None
                        return Ran(match, (), done)
                if refused is not None:
                    refused(match)
                raise
            fingerprint = asked if isinstance(asked, str) else asked(decision)
            expected = NO_STREAM if match is None else match.version
            prepared: list[Outcome] = []
            meanwhile = None
            if prepare is not None and match is not None:
                meanwhile = functools.partial(_prepared, prepared, prepare, match, decided.game)
            try:
                result = await self._append(
                    match_id, decision, expected, request_id, fingerprint, meanwhile
                )
            except ConcurrencyConflict:
                match = await self.load(match_id)
                continue
            if not result.duplicate:
                self.snapshots.appended(match_id, match, result.events)
            outcome = next((done for done in prepared if done.stored == result.events), None)
            return Ran(match, decision, result, decided.game, outcome)
        raise ServiceError(ServiceCode.BUSY, busy)

    # -- setting up ------------------------------------------------------------

    async def create(
        self, options: MatchOptions, request_id: str = "", caller: Caller | None = None
    ) -> CreatedMatch:
        """A new match. ``request_id`` is the caller's secret (at least 128 bits): a
        retry with it and the same options returns the same match and tokens.
        ``caller``: who asks, counted against the quotas (None: the service itself)."""
        check_request_id(request_id, secret=True)
        quotas = self.quotas if caller is not None else None
        if caller is not None:  # the service's own tables are the operator's to size
            limits = quotas.limits if quotas is not None else DEFAULT_LIMITS
            check_games(
                limits.games_per_set, options.games_per_set, options.options.get("games_per_set")
            )
        check_options(options.options)
        check_client_seeds(options.client_seeds, options.players)
        overrides = dict(options.options)
        if options.games_per_set:
            overrides["games_per_set"] = options.games_per_set
        if options.turn_seconds < 0 or options.spectator_delay < 0:
            raise ServiceError(RefusalCode.BAD_REQUEST, "times cannot be negative")
        if max(options.turn_seconds, options.spectator_delay) > MAX_SECONDS:
            raise ServiceError(RefusalCode.BAD_REQUEST, "times are at most 10,000 years")
        if not 0 <= options.bot_pause <= MAX_BOT_PAUSE:
            raise ServiceError(RefusalCode.BAD_REQUEST, f"a bot pauses 0 to {MAX_BOT_PAUSE:g} s")
        check_turn_seconds(options.turn_seconds)
        digest = self.keyring.request_digest("create", request_id) if request_id else ""
        match_id = self.keyring.match_id(digest)
        command = Create(
            match_id,
            options.preset,
            overrides,
            options.players,
            commitment(self.keyring.seed(match_id)),
            options.open_seats,
            round(options.turn_seconds * 1000),
            round(options.spectator_delay * 1000),
            round(options.bot_pause * 1000),
            options.auto_start,
            options.invites,
            tuple(options.client_seeds),
            tuple(options.bots.items()),
            options.rated,
            options.lobby,
        )

        def asked(events: Sequence[MatchEvent]) -> str:
            # all of what was asked is in the events it makes (the match id aside, the
            # same for the same request id)
            return fingerprint_of("create", [encode(event).data for event in events])

        if quotas is not None and caller is not None:
            # a retry (the same digest, so the same match) is counted once
            token = digest or secrets.token_hex(16)
            await quotas.create(caller, match_id, token, len(options.bots))
        try:
            # a random id met an existing match: vanishingly rare
            ran = await self._run(
                match_id, lambda _: command, digest, asked, new=True, retries=1, busy="try again"
            )
        except ServiceError:
            if quotas is not None and not digest:
                await quotas.release_match(match_id)  # no match: its bots hold nothing
            raise
        result = ran.result
        appended = result.events or await self.store.read(  # a retry: what the first wrote
            stream_of(match_id), result.first_seq, result.last_seq - result.first_seq + 1
        )
        receipt = self._receipt(
            match_id,
            appended,
            request_digest(action_request(match_id, "create", "create", request_id)),
        )
        seat_tokens = (
            ()
            if options.open_seats
            else tuple(
                self.keyring.token(match_id, Role("seat", seat)) for seat in range(options.players)
            )
        )
        return CreatedMatch(match_id, self.keyring.token(match_id, HOST), seat_tokens, receipt)

    async def join(
        self,
        match_id: str,
        name: str,
        client_seed: bytes = b"",
        request_id: str = "",
        player_key: str | None = None,
        caller: Caller | None = None,
    ) -> Seated:
        """Take the next free seat. ``request_id`` is the caller's secret, as for
        create: a retry with it returns the same seat (and receipt). With a
        ``player_key`` the seat is the registered player's, under its name (a rated
        match seats no one else). ``caller``: counted as for a lobby table's seat."""
        check_match_id(match_id)
        check_name(name)
        check_client_seed(client_seed)
        check_request_id(request_id, secret=True)
        player_id = ""
        if player_key:
            player = await self.players.authenticate(player_key)
            name, player_id = player.name, player.player_id
        counted = None
        if caller is not None:
            counted = await self._count_lobby_seat(match_id, request_id, caller)
        try:
            return await self._join(match_id, name, client_seed, request_id, player_id)
        except ServiceError as refused:
            # only a seat lost to another caller is given back: any other refusal (a
            # request id reused with other content) may follow a seat this request took
            lost = refused.code in (MatchRefusalCode.SEATS_FULL, MatchRefusalCode.ALREADY_STARTED)
            if lost and counted is not None and self.quotas is not None:
                await self.quotas.lobby_seat_not_taken(match_id, counted)
            raise

    async def join_lobby(
        self, match_id: str, name: str, request_id: str = "", caller: Caller | None = None
    ) -> Seated:
        """Take the next free seat of a table listed in the lobby (``Match.lobby``),
        with no invite. An invite-only table (or any other) refuses with
        permission_denied and changes nothing."""
        check_match_id(match_id)
        if not (await self.load(match_id)).lobby:
            raise ServiceError(
                MatchRefusalCode.PERMISSION_DENIED,
                "this table's seats are taken with an invite, not from the lobby",
            )
        return await self.join(match_id, name, request_id=request_id, caller=caller)

    async def _count_lobby_seat(self, match_id: str, request_id: str, caller: Caller) -> str | None:
        """A seat of a lobby table counts against its caller's lobby seats
        (``Limits.seats_per_caller``) until the match ends; a retry counts once. Not
        counted when no seat can be had; when another caller takes the last one in the
        same moment, the join gives its unit back. Returns the token counted under."""
        match = await self.load(match_id)
        if self.quotas is None or not match.lobby or match.started or not match.seats_free:
            return None
        token = self.keyring.request_digest("join", request_id) if request_id else ""
        token = token or secrets.token_hex(16)
        await self.quotas.lobby_seat(caller, match_id, token)
        return token

    async def join_program(self, match_id: str, name: str) -> Seated:
        """Seat a UECda program under its profile's name, as the unverified player
        ``uecda:<name>`` (the protocol carries no credential: anyone may claim a name);
        a name that looks like a person's is seated unregistered (rated tables refuse it)."""
        check_name(name)
        try:
            program = await self.players.ensure(uecda_player_name(name), PlayerKind.UECDA)
        except ServiceError:
            return await self._join(match_id, name, b"", "", "")
        return await self._join(match_id, name, b"", "", program.player_id)

    async def _join(
        self, match_id: str, name: str, client_seed: bytes, request_id: str, player_id: str
    ) -> Seated:
        digest = self.keyring.request_digest("join", request_id) if request_id else ""
        asked = fingerprint_of("join", name, client_seed.hex(), player_id)
        signed = request_digest(action_request(match_id, "join", "join", request_id))
        seat, receipts = await self._take_seat(
            match_id, Join(name, client_seed, player=player_id), digest, asked, signed
        )
        return Seated(seat, self.keyring.token(match_id, Role("seat", seat)), receipts)

    async def seat_bot(
        self,
        match_id: str,
        token: str | None,
        kind: BotKind,
        request_id: str = "",
        caller: Caller | None = None,
    ) -> Seated:
        """Give the next free seat to one of the service's bots (host only); the
        background work plays it from then on. ``caller``: as for create."""
        check_request_id(request_id)
        match = await self.load(match_id)
        if self.authorize(match, token) != HOST:
            raise ServiceError(
                MatchRefusalCode.PERMISSION_DENIED, "only the host token may seat a bot"
            )
        digest = self.keyring.request_digest("host", request_id) if request_id else ""
        if (
            self.quotas is not None
            and caller is not None
            and match.seats_free
            and not match.started
        ):
            # a retry counts once; a bot refused a seat later holds one until the end
            await self.quotas.seat_bot(caller, match_id, digest or secrets.token_hex(16))
        asked = fingerprint_of("seat_bot", kind)
        signed = request_digest(action_request(match_id, "host", f"bot {kind}", request_id))
        seat, receipts = await self._take_seat(match_id, Join(bot=kind), digest, asked, signed)
        return Seated(seat, None, receipts)

    async def _take_seat(
        self, match_id: str, joining: Join, digest: str, asked: str, signed: str
    ) -> tuple[int, tuple[SignedRecord, ...]]:
        """Take the seat ``joining`` asks for: the seat, and the receipts of what that
        appended. ``digest``: the request's scoped id; ``asked``: its fingerprint;
        ``signed``: the request digest its receipts (and a refusal's) carry. With the
        match's auto start, the last seat starts it."""
        ran = await self._run(
            match_id,
            lambda _: joining,
            digest,
            asked,
            busy="too many concurrent joins; try again",
            refused=lambda match: self._sign_refusal(match, lambda: signed),
        )
        result = ran.result
        if result.duplicate:  # a retry of a request that took its seat: its receipt again
            appended = await self.store.read(
                stream_of(match_id), result.first_seq, result.last_seq - result.first_seq + 1
            )
            return int(appended[0].data["seat"]), (self._receipt(match_id, appended, signed),)
        (joined,) = ran.events
        assert isinstance(joined, SeatJoined) and ran.match is not None
        receipts = [self._receipt(match_id, result.events, signed)]
        if ran.match.auto_start and ran.match.seats_free == (joined.seat,):
            started = await self.start_full(match_id)
            if started is not None and started.receipt is not None:
                receipts.append(started.receipt)
        return joined.seat, tuple(receipts)

    async def claim_seat(
        self, match_id: str, seat: int, name: str, client_seed: bytes = b"", request_id: str = ""
    ) -> Seated:
        """Seat ``name`` at open seat ``seat`` (whoever may: the caller checked an
        invite or is the creator), with its token. A seat is taken once:
        another try finds it taken (``seat_taken``), unless it retries the same
        ``request_id`` (the caller's secret, at least 128 bits). With the match's auto
        start, taking the last seat starts it."""
        check_match_id(match_id)
        check_name(name)
        check_client_seed(client_seed)
        # once the seat is taken, the id alone proves a retry (the host holds every
        # invite and sees the name): a secret, as for create and join
        check_request_id(request_id, secret=True)
        # the invite proves the right to the seat: its retries are scoped to it
        digest = self.keyring.request_digest(f"invite:{seat}", request_id) if request_id else ""
        asked = fingerprint_of("claim", seat, name, client_seed.hex())
        signed = request_digest(action_request(match_id, f"invite:{seat}", "join", request_id))
        taken, receipts = await self._take_seat(
            match_id, Join(name, client_seed, seat), digest, asked, signed
        )
        return Seated(taken, self.keyring.token(match_id, Role("seat", taken)), receipts)

    async def start_full(self, match_id: str) -> Outcome | None:
        """Start a full auto-start table (None: it had started). No request id: any id
        would be the host's scope, which the host could take first; a second start
        finds it started."""
        try:
            return await self.start(match_id, self.keyring.token(match_id, HOST))
        except ServiceError as error:
            if error.code != "already_started":
                raise
            return None

    async def start(self, match_id: str, token: str | None, request_id: str = "") -> Outcome:
        """Deal the first game (host only), from the seed MatchCreated committed to."""

        def starting(match: Match, role: Role) -> MatchCommand:
            seed = self.keyring.seed(match.match_id)
            return Start(commitment(seed), seed)

        return await self._command(
            match_id,
            token,
            starting,
            request_id,
            lambda role: fingerprint_of("start"),
            lambda role: "start",
            host_only=True,
        )

    # -- playing ---------------------------------------------------------------

    async def act(
        self,
        match_id: str,
        token: str | None,
        make: Callable[[int], SeatCommand],
        request_id: str = "",
        *,
        answered: bool = True,
    ) -> Outcome:
        """Carry out the command ``make(seat)`` for the token's seat. ``answered=False``:
        for an in-process adapter that tells its clients in its own terms (UECda), an
        outcome of the match and its stored events only, with no events shown and no
        receipt signed (both can be made again from the stored events)."""
        made: dict[int, SeatCommand] = {}

        def command_of(seat: int) -> SeatCommand:
            # read once: deciding, the fingerprint and the receipt's digest all need it
            command = made.get(seat)
            if command is None:
                command = made[seat] = make(seat)
            return command

        def acting(match: Match, role: Role) -> MatchCommand:
            if role.seat is None:
                raise ServiceError(
                    MatchRefusalCode.PERMISSION_DENIED, "the host token does not play a seat"
                )
            command = command_of(role.seat)
            if command.seat != role.seat:  # a token acts for its own seat, whatever it sends
                raise ServiceError(
                    MatchRefusalCode.PERMISSION_DENIED, "a seat token acts for its seat only"
                )
            return Act(command, self.keyring.seed(match.match_id))

        def asked(role: Role) -> str:
            # the command as the rules read it: another notation of the same cards is
            # the same request
            return act_fingerprint(command_of(role.seat) if role.seat is not None else None)

        def described(role: Role) -> str:
            return format_command(command_of(role.seat)) if role.seat is not None else ""

        return await self._command(
            match_id, token, acting, request_id, asked, described, answered=answered
        )

    def send_act(self, match: Match, token: str | None, command: SeatCommand) -> Sent | None:
        """For an in-process adapter whose clients cannot resume a game anyway (UECda's
        group commit): decide ``command`` for the token's seat on ``match``, the
        adapter's own match, which may be ahead of what the store has acknowledged, and
        send its append at once, after the ones sent before it, without waiting. None
        when the store cannot send it so (then ``act``). A refusal raises ServiceError
        as ``act``'s does, unsigned. The service's cache, its listeners and the seal
        learn of the events once stored; if they are not (``Sent.stored`` raises),
        nothing sent after them on the match is either."""
        role = self.authorize(match, token)
        if role.seat is None or command.seat != role.seat:
            raise ServiceError(
                MatchRefusalCode.PERMISSION_DENIED, "a seat token acts for its seat only"
            )
        match_id = match.match_id
        decided = decide_and_evolve(match, Act(command, self.keyring.seed(match_id)))
        if isinstance(decided, Refusal):
            raise ServiceError(decided.code, decided.message)
        stream = stream_of(match_id)
        # no request id of the caller's: an append sent so is never sent again
        records = self._records(match_id, decided.events, match.version)
        sent = self.store.send_append(stream, records, match.version)
        if sent is None:
            return None
        for item, event in zip(sent.events, decided.events, strict=True):
            self.decoded.remember(item, event)
        if decided.game is None:
            after = fold_match(match, sent.events, self.decoded.decode)
        else:
            after = as_of(match, sent.events[-1], decided.game)
        stored = sent.result.get_loop().create_future()
        appending = self.fanout.appending(stream)
        appending.__enter__()  # until the store answers (``_once_stored``)
        sent.result.add_done_callback(
            functools.partial(self._once_stored, match, after, stored, appending)
        )
        return Sent(after, sent.events, stored)

    def _once_stored(
        self,
        before: Match,
        match: Match,
        stored: asyncio.Future[AppendResult],
        appending: contextlib.AbstractContextManager[None],
        answer: asyncio.Future[AppendResult],
    ) -> None:
        """A sent append's answer: its events to the service's cache and listeners
        (and the seal, when it ended the match) before ``stored`` is told."""
        appending.__exit__(None, None, None)
        error = answer.exception() if not answer.cancelled() else asyncio.CancelledError()
        if error is not None:
            stored.set_exception(error)
            return
        result = answer.result()
        self.fanout.appended(stream_of(match.match_id), result.events)
        if result.duplicate:
            stored.set_result(result)
            return
        self.snapshots.appended(match.match_id, before, result.events)
        self._remember(match)
        if not match.awaits_seal:
            stored.set_result(result)
            return

        async def sealed() -> None:
            try:
                await self._seal_if_over(match)
            finally:
                stored.set_result(result)

        self._sealing.add(task := asyncio.ensure_future(sealed()))
        task.add_done_callback(self._sealing.discard)

    async def time_out(self, match_id: str, version: int) -> Outcome | None:
        """Act for the seat whose turn timed out, if the match is still at
        ``version`` (another replica may have done it already)."""

        def timing_out(match: Match | None) -> MatchCommand:
            assert match is not None
            if match.version != version:
                raise ServiceError(ServiceCode.BUSY, "the match moved on")
            return TimeOut(self.keyring.seed(match_id))

        try:
            # an id of the service's own: no caller's (a hex digest) can take it
            ran = await self._run(
                match_id,
                timing_out,
                f"{TIMEOUT_REQUEST}{version}",
                "timeout",
                match=await self.load(match_id),
            )
        except ServiceError:
            return None
        if ran.result.duplicate:
            return None
        assert ran.match is not None
        outcome = self._appended(ran.match, ran.result.events, SPECTATOR)
        self._remember(outcome.match)
        await self._seal_if_over(outcome.match)
        return outcome

    async def abandon(
        self,
        match_id: str,
        reason: AbandonReason,
        detail: str = "",
        version: int | None = None,
    ) -> Outcome | None:
        """End a match that is not over as abandoned, reveal its seed and seal it.
        ``version``: only if the match is still there (a worker that saw it idle; None:
        wherever it is). None when it had ended, moved on or was abandoned already."""

        def abandoning(match: Match | None) -> MatchCommand:
            assert match is not None
            if version is not None and match.version != version:
                raise ServiceError(ServiceCode.BUSY, "the match moved on")
            seed = self.keyring.seed(match_id)
            return AbandonMatch(reason.value, match.version, detail, seed)

        try:
            ran = await self._run(
                match_id,
                abandoning,
                ABANDON_REQUEST,
                "abandon",
                match=await self.load(match_id),
            )
        except ServiceError as error:
            if error.code in ("busy", "game_over"):
                return None
            raise
        if ran.result.duplicate:
            return None
        assert ran.match is not None
        outcome = self._appended(ran.match, ran.result.events, SPECTATOR)
        self._remember(outcome.match)
        await self._seal_if_over(outcome.match)
        return outcome

    async def _command(
        self,
        match_id: str,
        token: str | None,
        command_for: Callable[[Match, Role], MatchCommand],
        request_id: str,
        asked: Callable[[Role], str],
        described: Callable[[Role], str],
        host_only: bool = False,
        answered: bool = True,
    ) -> Outcome:
        """A host's or seat's command through the loop. ``asked``: the fingerprint of
        what the caller asked (a request id used again for something else is refused);
        ``described``: the command in its canonical notation, for the receipt's request
        digest (of the caller's raw request id)."""
        check_match_id(match_id)
        check_request_id(request_id)
        match = self._cache.get(match_id) or await self.load(match_id)
        role = self.authorize(match, token)  # tokens depend on nothing that changes
        if host_only and role.kind != "host":
            raise ServiceError(
                MatchRefusalCode.PERMISSION_DENIED, "only the host token may do that"
            )
        viewer = viewer_of(role)
        scoped = self.keyring.request_digest(scope_of(role), request_id) if request_id else ""

        def digest(role: Role) -> str:
            by = "host" if role.seat is None else f"seat:{role.seat}"
            return request_digest(action_request(match_id, by, described(role), request_id))

        def command(match: Match | None) -> MatchCommand:
            assert match is not None
            return command_for(match, role)

        def prepare(
            match: Match, game: MatchState | None, stored: Sequence[StoredEvent]
        ) -> Outcome:
            outcome = self._appended(match, stored, viewer, shown=answered, game=game)
            if answered:
                receipt = self._receipt(match_id, stored, digest(role))
                outcome = replace(outcome, receipt=receipt)
            return outcome

        ran = await self._run(
            match_id,
            command,
            scoped,
            asked(role) if scoped else "",
            match=match,
            refused=lambda match: self._sign_refusal(match, lambda: digest(role)),
            prepare=prepare,
        )
        result = ran.result
        if result.duplicate:
            return await self._outcome(
                match_id, result.first_seq, result.last_seq, viewer, digest(role)
            )
        assert ran.match is not None
        outcome = ran.prepared or prepare(ran.match, ran.game, result.events)
        self._remember(outcome.match)
        await self._seal_if_over(outcome.match)
        return outcome

    def _receipt(self, match_id: str, stored: Sequence[StoredEvent], digest: str) -> SignedRecord:
        """The receipt of an append, dated by its last event: a retry's is the same."""
        last = stored[-1]
        return self.signer.receipt(match_id, stored[0].seq, last.seq, last.hash, digest, at=last.at)

    def _sign_refusal(self, match: Match, digest: Callable[[], str]) -> None:
        """Sign the refusal being raised, when it was judged on a readable command."""
        error = sys.exc_info()[1]
        assert isinstance(error, ServiceError)
        try:
            asked = digest()
        except ServiceError:  # the command could not even be read: nothing was judged
            return
        error.receipt = self.signer.refusal(
            match.match_id, match.version, match.head, error.code, asked
        )

    async def seal(self, match_id: str) -> bool:
        """Append the seal of a match that is over and not sealed yet; whether this
        call did (another replica may have)."""
        return await self._seal_if_over(await self.load(match_id))

    async def _seal_if_over(self, match: Match) -> bool:
        if not match.awaits_seal:
            return False

        def sealing(match: Match | None) -> MatchCommand:
            assert match is not None
            return Seal(self.signer.seal(match.match_id, match.version, match.head).to_dict())

        try:
            ran = await self._run(match.match_id, sealing, SEAL_REQUEST, match=match, retries=1)
        except ServiceError:  # sealed meanwhile
            return False
        if ran.result.duplicate:
            return False
        self._remember(fold_match(ran.match, ran.result.events, self.decoded.decode))
        return True

    def _appended(
        self,
        match: Match,
        stored: Sequence[StoredEvent],
        viewer: Viewer,
        shown: bool = True,
        game: MatchState | None = None,
    ) -> Outcome:
        """The outcome of an append of ``stored`` as ``viewer`` sees it (``shown=False``:
        without the events as the viewer sees them); the caller caches its match once
        they are stored. ``game``: the game after ``stored`` as the decider knew it,
        which spares folding them again."""
        if game is None:
            match = fold_match(match, stored, self.decoded.decode)
        else:
            match = as_of(match, stored[-1], game)
        events = tuple(self.visible(item, viewer, match.over) for item in stored) if shown else ()
        return Outcome(match.version, events, match, viewer, tuple(stored))

    async def _append(
        self,
        match_id: str,
        events: Sequence[MatchEvent],
        expected: int,
        request_id: str,
        fingerprint: str = "",
        meanwhile: Callable[[Sequence[StoredEvent]], None] | None = None,
    ) -> AppendResult:
        """Append; ``request_id``: a scoped digest or one of the service's own, never a
        caller's raw id. Each event holding a hidden field gets its blinding nonce.
        ``meanwhile``: work on the events as they would be stored (eventstore/overlap.py),
        once their decoding is known."""
        records = self._records(match_id, events, expected)
        stream = stream_of(match_id)

        def known(stored: Sequence[StoredEvent]) -> None:
            # the writer knows each event without decoding it (held by (seq, hash): an
            # append that is not stored leaves nothing another event could be taken for)
            for item, event in zip(stored, events, strict=True):
                self.decoded.remember(item, event)
            if meanwhile is not None:
                meanwhile(stored)

        with self.fanout.appending(stream):
            try:
                result = await self._append_overlapping(
                    stream, records, expected, request_id or None, fingerprint, known
                )
            except RequestIdReused:
                raise _reused() from None
            except StreamClosed:  # the store's own guard: the seal was the last append
                raise ServiceError(
                    RefusalCode.GAME_OVER, "the match is sealed: nothing is appended after its seal"
                ) from None
            self.fanout.appended(stream, result.events)  # its listeners here need no read
        return result

    def _records(
        self, match_id: str, events: Sequence[MatchEvent], expected: int
    ) -> list[NewEvent]:
        """The events as stored, each holding a hidden field with its blinding nonce."""
        seed = self.keyring.seed(match_id)
        return [
            blinded(encode(event), seed, expected + 1 + index) for index, event in enumerate(events)
        ]

    async def _outcome(
        self, match_id: str, first: int, last: int, viewer: Viewer, digest: str
    ) -> Outcome:
        """The outcome of an earlier append, read back, with its receipt again."""
        match = await self.load(match_id)
        stored = await self.store.read(stream_of(match_id), first, last - first + 1)
        events = tuple(self.visible(item, viewer, match.over) for item in stored)
        receipt = self._receipt(match_id, stored, digest)
        await self._seal_if_over(match)
        return Outcome(last, events, match, viewer, tuple(stored), receipt)

    def visible(self, stored: StoredEvent, viewer: Viewer, revealed: bool) -> dict[str, Any]:
        """``visible`` for an event of this service's own store, decoded once and shown
        once per viewer while recent: one dict per event and viewer, shared (a thousand
        spectators of a match see each event alike); read it, never change it."""
        key = (stored.stream, stored.seq, stored.hash, viewer, revealed)
        shown = self._shown.get(key)
        if shown is None:
            event = self.decoded.decode(stored)
            shown = self._shown.put(key, _visible(stored, event, viewer, revealed))
        return shown

    # -- seeing ----------------------------------------------------------------

    async def stored_events(
        self, match_id: str, from_seq: int = 0, limit: int | None = None
    ) -> list[StoredEvent]:
        """The match's events from ``from_seq`` (at most ``limit``) as stored, nothing
        hidden: what an adapter gives anyone goes through ``visible`` first."""
        return await self.store.read(stream_of(match_id), from_seq, limit)

    async def seen(self, match_id: str, token: str | None) -> Seen:
        """The token's view of the match now, with its legal actions."""
        match = await self.load(match_id)
        return seen_by(match, viewer_of(self.authorize(match, token)))

    async def next_turn(self, match_id: str, token: str | None, after: int = -1) -> Seen:
        """Wait until the token's seat is to act at a version after ``after``, or the
        match is over; then what ``seen`` would answer."""
        # From the cache when it has the match: waiting from a version that is behind
        # misses nothing (the events after it come first), so only a turn found there
        # needs a fresh look. (Tokens depend on nothing that changes.)
        cached = self._cache.get(match_id)
        match = cached or await self.load(match_id)
        viewer = viewer_of(self.authorize(match, token))
        if viewer.seat is None:
            raise ServiceError(MatchRefusalCode.PERMISSION_DENIED, "only a seat token has turns")
        if match is cached and _turn_for(match, viewer, after):
            match = await self.load(match_id)
        # the newest this process has (others may have folded more while it loaded); from
        # here to the wait's registration nothing else runs, so no turn slips past
        newest = self._cache.get(match_id)
        if newest is not None and newest.version > match.version:
            match = newest
        if _turn_for(match, viewer, after):
            return seen_by(match, viewer)
        ready = functools.partial(_turn_for, viewer=viewer, after=max(after, match.version))
        return seen_by(await self.waits.until(match_id, match.version + 1, ready), viewer)

    async def events(
        self, match_id: str, viewer: Viewer, from_seq: int = 0
    ) -> AsyncIterator[dict[str, Any]]:
        """Every event from ``from_seq`` on as ``viewer`` may see it, then live ones."""
        async for batch in self.event_batches(match_id, viewer, from_seq):
            for event in batch.events:
                yield event

    async def event_batches(
        self, match_id: str, viewer: Viewer, from_seq: int = 0
    ) -> AsyncIterator[Batch]:
        """As ``events``, in the batches they come in (an action's events together),
        each with the seat's turn when it leaves the seat to act."""
        revealed = (await self.load(match_id)).over
        async with self.fanout.listen(stream_of(match_id), max(0, from_seq)) as batches:
            async for batch in batches:
                seen = []
                for stored in batch:
                    revealed = revealed or stored.type in REVEALING
                    seen.append(self.visible(stored, viewer, revealed))
                yield Batch(seen, await self._turn_after(match_id, batch, viewer))

    async def _turn_after(
        self, match_id: str, batch: Sequence[StoredEvent], viewer: Viewer
    ) -> Seen | None:
        """The seat's view and legal actions if it is to act right after ``batch``."""
        if viewer.seat is None:
            return None
        match = await self._match_after(match_id, batch)
        if match is None or match.game.turn != viewer.seat:
            return None
        seen = seen_by(match, viewer)
        return seen if seen.actions else None

    async def _match_after(self, match_id: str, batch: Sequence[StoredEvent]) -> Match | None:
        """The match right after a batch of its events, or None when more events have
        come since: their batch will tell. The cached match plus the batch, when they
        join up (another process's appends reach this one's cache so, without a read)."""
        seq = batch[-1].seq
        match = self._cache.get(match_id)
        if match is not None and match.version < seq:
            newer = [item for item in batch if item.seq > match.version]
            if newer[0].seq == match.version + 1:
                match = fold_match(match, newer, self.decoded.decode)
                self._remember(match)
        if match is None or match.version < seq:
            match = await self.load(match_id)
        return match if match.version == seq else None


def _turn_for(match: Match, viewer: Viewer, after: int) -> bool:
    """Whether ``viewer``'s seat has a turn to answer: it is to act (or the match is
    over) at a version after ``after``."""
    return match.version > after and (match.over or match.game.turn == viewer.seat)


def viewer_of(role: Role) -> Viewer:
    return Viewer.of_seat(role.seat) if role.seat is not None else SPECTATOR


SHOWN_LIMIT = 8192  # entries; the oldest goes (a live match's recent events refill it)


def visible(stored: StoredEvent, viewer: Viewer, revealed: bool) -> dict[str, Any]:
    """A stored event as ``viewer`` may see it (everything once ``revealed``: the
    match has ended), with its seq and time."""
    return _visible(stored, decode(stored), viewer, revealed)


def _visible(
    stored: StoredEvent, event: MatchEvent, viewer: Viewer, revealed: bool
) -> dict[str, Any]:
    if isinstance(event, LifecycleEvent):
        record = {"type": stored.type, **encode(event).data}
    else:
        record = visible_record(event, viewer, revealed)
    return {"seq": stored.seq, "at": stored.at, **record}


def scope_of(role: Role) -> str:
    """Whose request ids these are: a seat's, or the host's."""
    return "host" if role.seat is None else f"seat:{role.seat}"


def fingerprint_of(*parts: Any) -> str:
    """A digest of what a request asked (its canonical JSON)."""
    text = json.dumps(parts, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


@functools.lru_cache(maxsize=4096)
def act_fingerprint(command: SeatCommand | None) -> str:
    """The fingerprint of an Act asking for ``command`` (a match repeats its commands:
    the same passes and plays, each the same frozen value)."""
    return fingerprint_of("act", command_parts(command))


def command_parts(command: SeatCommand | None) -> list[Any]:
    """A seat command as plain values: its type and fields."""
    if command is None:
        return []
    return [type(command).__name__, *(getattr(command, f.name) for f in fields(command))]


def _reused() -> ServiceError:
    return ServiceError(
        ServiceCode.REQUEST_ID_REUSED,
        "that request id was used for a different request; use a new one",
    )
