"""Quotas: how much of the service one caller, and every caller together, may take.

A caller is known by its network address (an IPv6 one by its /64, which one host is
usually given whole) and, once registered players hold keys, by its player key too:
every per-caller limit is counted under each key a caller has (``Caller.counted_as``).

- creates: at most ``creates`` matches per caller in any ``create_window`` seconds;
- bots playing at once: at most ``bots_per_caller`` of one caller's, ``bots`` of all,
  held from the create (or the seating of a bot) until the match ends or is abandoned;
- games per set: at most ``games_per_set``, wherever a caller gives it (the top-level
  field or the rule set's option);
- audits: at most ``audits_per_caller`` of one caller's at once;
- analyses: at most ``analyses_per_caller`` of one caller's queued or running at once,
  ``analyses`` of all (each is minutes of a worker's CPU).
- lobby seats: at most ``seats_per_caller`` seats one caller took from the lobby (no
  invite) in matches that have not ended, so one address cannot fill every open table.

Counting goes through the ``QuotaStore`` port (in Redis: it holds across replicas).
A refusal is a ``QuotaExceeded``, with its reason code and when to try again; the
adapters answer 429 with ``Retry-After`` (REST) or RESOURCE_EXHAUSTED with ErrorInfo and
RetryInfo (gRPC). What the service itself creates (UECda tables, the operator's
``--uecda-bots``) is the operator's choice and counts against no quota."""

from __future__ import annotations

import contextlib
import enum
import ipaddress
import math
import secrets
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from typing import Any, assert_never

from eventstore import StoredEvent
from eventstore.quotas import Full, Gauge, QuotaStore, Window

from .errors import QuotaReason, ServiceCode, ServiceError
from .following import Resume
from .match import ENDING, match_id_of
from .scanning import SharedScan
from .signing import now_ms

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@dataclass(frozen=True, slots=True)
class Limits:
    """Every quota and its default (``daifugo serve`` flags; docs/SECURITY.md)."""

    creates: int = 10  # matches one caller may create ...
    create_window: float = 60.0  # ... in any this many seconds
    bots_per_caller: int = 10  # one caller's bots playing at once
    bots: int = 40  # every caller's bots playing at once
    games_per_set: int = 100  # games per set a caller may ask for
    audits_per_caller: int = 2  # one caller's audits running at once
    seats_per_caller: int = 4  # seats one caller holds, taken from the lobby, at once
    audit_hold: float = 600.0  # seconds an audit's slot is held at most (its replica died)
    analyses_per_caller: int = 2  # one caller's analyses queued or running at once
    analyses: int = 4  # every caller's analyses queued or running at once
    analysis_hold: float = 900.0  # seconds an analysis's slot is held at most (replica died)
    full_retry: int = 30  # Retry-After (s) when a gauge is full: nobody knows when it frees
    idle_abandon: float = 1800.0  # seconds without an action before a match is abandoned
    # seconds a service bot waits at least before each action, whatever its match asks: the
    # quotas bound how many bots play, this how much of the serving loop each may take
    bot_min_pause: float = 0.02
    trusted_proxies: tuple[Network, ...] = ()  # whose X-Forwarded-For is believed

    def __post_init__(self) -> None:
        whole = (
            *("creates", "bots_per_caller", "bots", "games_per_set", "audits_per_caller"),
            *("seats_per_caller", "analyses_per_caller", "analyses"),
        )
        for name in whole:
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be 1 or more")
        times = (self.create_window, self.audit_hold, self.analysis_hold, self.full_retry)
        if not all(time > 0 for time in times):
            raise ValueError("times must be positive")
        if self.idle_abandon < 0:
            raise ValueError("the idle limit is 0 (never) or more")
        if not 0 <= self.bot_min_pause <= 10:
            raise ValueError("the bots' least pause is 0 to 10 seconds")


@dataclass(frozen=True, slots=True)
class Caller:
    """Who asks: its address as the service sees it (``caller_address``) and, when
    registered players exist, its player key's id ("" today)."""

    address: str
    player: str = ""

    def counted_as(self) -> tuple[str, ...]:
        """What its quotas are counted under: its network, and its player key."""
        keys = (f"net:{network_of(self.address)}",)
        return (*keys, f"player:{self.player}") if self.player else keys


def network_of(address: str) -> str:
    """An IPv4 address as itself, an IPv6 one as its /64; anything else as given."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address or "unknown"
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


def parse_networks(values: Sequence[str]) -> tuple[Network, ...]:
    """``--trusted-proxy`` values (an address or a network) as networks."""
    return tuple(ipaddress.ip_network(value.strip(), strict=False) for value in values)


def caller_address(peer: str, forwarded_for: Sequence[str], trusted: Sequence[Network]) -> str:
    """The caller's address: the connection's peer, unless the peer is a trusted proxy;
    then the last address of X-Forwarded-For (every such header, in order) that is not a
    trusted proxy, as each proxy appends the address it was called from. Anything the
    caller wrote itself is to the left of that and never read."""
    if not _is_trusted(peer, trusted):
        return peer
    hops = [hop.strip() for header in forwarded_for for hop in header.split(",")]
    for hop in reversed(hops):
        if not _is_trusted(hop, trusted):
            try:
                return str(ipaddress.ip_address(hop))
            except ValueError:
                return peer  # a proxy we trust wrote no address: trust no further
    return peer


class Proxies:
    """The proxies whose forwarded addresses are believed (``--trusted-proxy``)."""

    def __init__(self, trusted: Sequence[Network] = ()) -> None:
        self.trusted = tuple(trusted)

    def caller(self, peer: str, forwarded_for: Sequence[str]) -> Caller:
        return Caller(caller_address(peer, forwarded_for, self.trusted))


def _is_trusted(address: str, trusted: Sequence[Network]) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in network for network in trusted)


def grpc_peer_address(peer: str) -> str:
    """The address of a gRPC peer (``ipv4:1.2.3.4:5``, ``ipv6:[::1]:5``, ``unix:…``)."""
    kind, _, rest = peer.partition(":")
    if kind == "ipv4":
        return rest.rpartition(":")[0]
    if kind == "ipv6":
        return rest.rpartition(":")[0].strip("[]")
    return peer


def check_games(limit: int, *asked: Any) -> None:
    """Refuse games per set past ``limit``, whichever field gave them."""
    for games in asked:
        if isinstance(games, int) and not isinstance(games, bool) and games > limit:
            raise ServiceError(
                ServiceCode.TOO_MANY_GAMES, f"a match has at most {limit} games per set"
            )


class QuotaExceeded(ServiceError):
    """A quota refused the request: try again after ``retry_after`` seconds."""

    def __init__(self, reason: QuotaReason, message: str, retry_after: int) -> None:
        super().__init__(reason, message)
        self.retry_after: int | None = retry_after


class Quotas:
    def __init__(
        self, store: QuotaStore, limits: Limits, clock: Callable[[], int] = now_ms
    ) -> None:
        self.store = store
        self.limits = limits
        self.clock = clock  # ms since the epoch (tests move it)

    def check_games(self, *asked: Any) -> None:
        check_games(self.limits.games_per_set, *asked)

    async def create(self, caller: Caller, match_id: str, token: str, bots: int) -> None:
        """Count a create (``token``: its request; a retry counts once) and its bots."""
        limits = self.limits
        window_ms = round(limits.create_window * 1000)
        keys = caller.counted_as()
        windows = [Window(_key(Counted.CREATES, key), limits.creates, window_ms) for key in keys]
        await self._take(match_id, token, windows, self._bots(caller, bots))

    async def seat_bot(self, caller: Caller, match_id: str, token: str) -> None:
        """Count a bot seated in a match after its create."""
        await self._take(match_id, token, [], self._bots(caller, 1))

    async def lobby_seat(self, caller: Caller, match_id: str, token: str) -> None:
        """Count a seat taken from the lobby (``token``: its request; a retry counts
        once), held until the match ends like its bots."""
        limit = self.limits.seats_per_caller
        gauges = [Gauge(_key(Counted.SEATS, key), limit, 1) for key in caller.counted_as()]
        await self._take(match_id, token, [], gauges)

    async def lobby_seat_not_taken(self, match_id: str, token: str) -> None:
        """The join counted under ``token`` got no seat (another caller took the last):
        its unit is given back."""
        await self.store.give_back(_holder(match_id), token)

    async def release_match(self, match_id: str) -> None:
        """The match ended: its bots play no more."""
        await self.store.release(_holder(match_id))

    async def held_matches(self) -> list[str]:
        """The matches that may hold units (at start, those that ended are let go)."""
        holders = await self.store.holders()
        return [holder[len(_MATCH) :] for holder in holders if holder.startswith(_MATCH)]

    @contextlib.asynccontextmanager
    async def audit(self, caller: Caller) -> AsyncIterator[None]:
        """A slot of the caller's audits for the block's time."""
        limits = self.limits
        job = f"audit:{secrets.token_hex(8)}"
        keys = caller.counted_as()
        gauges = [Gauge(_key(Counted.AUDITS, key), limits.audits_per_caller, 1) for key in keys]
        hold_ms = round(limits.audit_hold * 1000)
        full = await self.store.take(job, job, [], gauges, self.clock(), hold_ms)
        if full is not None:
            raise self._refusal(full)
        try:
            yield
        finally:
            await self.store.release(job)

    async def take_analysis(self, caller: Caller, job: str) -> None:
        """A slot of the caller's analyses and of everyone's for job ``job``, until
        ``release_analysis`` (or ``analysis_hold`` lapses: its replica died)."""
        limits = self.limits
        keys = caller.counted_as()
        mine = [Gauge(_key(Counted.ANALYSES, key), limits.analyses_per_caller, 1) for key in keys]
        gauges = [*mine, Gauge(_key(Counted.ANALYSES), limits.analyses, 1)]
        holder = _ANALYSIS + job
        hold_ms = round(limits.analysis_hold * 1000)
        full = await self.store.take(holder, holder, [], gauges, self.clock(), hold_ms)
        if full is not None:
            raise self._refusal(full)

    async def release_analysis(self, job: str) -> None:
        await self.store.release(_ANALYSIS + job)

    def _bots(self, caller: Caller, bots: int) -> list[Gauge]:
        if not bots:
            return []
        limits = self.limits
        mine = [
            Gauge(_key(Counted.BOTS, key), limits.bots_per_caller, bots)
            for key in caller.counted_as()
        ]
        return [*mine, Gauge(_key(Counted.BOTS), limits.bots, bots)]

    async def _take(
        self, match_id: str, token: str, windows: list[Window], gauges: list[Gauge]
    ) -> None:
        full = await self.store.take(_holder(match_id), token, windows, gauges, self.clock())
        if full is not None:
            raise self._refusal(full)

    def _refusal(self, full: Full) -> QuotaExceeded:
        limits = self.limits
        kind, per_caller, _ = full.key.partition(":")
        match Counted(kind), bool(per_caller):
            case Counted.CREATES, _:
                return QuotaExceeded(
                    QuotaReason.CREATES,
                    f"at most {limits.creates} matches in {limits.create_window:g} s from "
                    "one caller",
                    max(1, math.ceil(full.retry_after_ms / 1000)),
                )
            case Counted.ANALYSES, False:
                reason = QuotaReason.ANALYSES_GLOBAL
                message = f"{limits.analyses} analyses are queued or running already"
            case Counted.ANALYSES, True:
                reason = QuotaReason.ANALYSES
                message = f"at most {limits.analyses_per_caller} analyses of one caller at once"
            case Counted.SEATS, _:
                reason = QuotaReason.SEATS
                message = (
                    f"at most {limits.seats_per_caller} seats taken from the lobby by one "
                    "caller in matches not yet over"
                )
            case Counted.BOTS, False:
                reason, message = QuotaReason.BOTS_GLOBAL, f"{limits.bots} bots are playing already"
            case Counted.BOTS, True:
                reason = QuotaReason.BOTS
                message = f"at most {limits.bots_per_caller} bots of one caller play at once"
            case Counted.AUDITS, _:
                reason = QuotaReason.AUDITS
                message = f"at most {limits.audits_per_caller} audits of one caller run at once"
            case unknown:
                assert_never(unknown)  # type: ignore[arg-type]
        return QuotaExceeded(reason, message, limits.full_retry)


class Counted(enum.StrEnum):
    """What a quota key counts: ``kind:caller`` per caller, ``kind`` alone for everyone."""

    CREATES = "creates"
    BOTS = "bots"
    SEATS = "seats"
    AUDITS = "audits"
    ANALYSES = "analyses"


def _key(kind: Counted, caller: str | None = None) -> str:
    return str(kind) if caller is None else f"{kind}:{caller}"


_MATCH = "match:"
_ANALYSIS = "analysis:"


def _holder(match_id: str) -> str:
    return f"{_MATCH}{match_id}"


class QuotaRelease:
    """Lets go of an ended match's quota (its bots play no more), on the replica that
    holds the background lease: from the feed as matches end, and at start for those
    that ended while no replica held it."""

    name = "quota release"
    pace = 0.25

    def __init__(self, quotas: Quotas, scan: SharedScan) -> None:
        self.quotas = quotas
        self.scan = scan

    async def start(self) -> Resume:
        scan = await self.scan.scan()
        live = set(scan.live())
        for match_id in await self.quotas.held_matches():
            if match_id not in live:
                await self.quotas.release_match(match_id)
        return scan.resume()

    async def take(self, event: StoredEvent) -> None:
        match_id = match_id_of(event.stream)
        if match_id is not None and event.type in ENDING:
            await self.quotas.release_match(match_id)
