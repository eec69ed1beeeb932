"""Spectators' and replayers' reads: the match list, a match now, its events
page by page, and the match at any seq."""

from __future__ import annotations

import functools
from typing import Annotated, Any

import msgspec
from litestar import Request, get
from litestar.di import NamedDependency
from litestar.params import FromPath, QueryParameter

from ..app import queries
from ..app.catalog import MatchState
from ..app.errors import RefusalCode, ServiceError
from ..app.queries import spectator_view
from ..app.quotas import network_of
from ..rules import PRESETS
from .context import Context, limit_reads
from .errors import ERROR_RESPONSES, responses
from .models import EventPage, MatchPage, MatchSummary, MatchView, MatchViewAt

MAX_PAGE = 500


@get(
    "/matches",
    summary="List matches, newest first",
    description="Filtered by state and preset, a page at a time (``next`` is the cursor of the "
    "next page). Backed by a projection of the event streams: eventually consistent, a new "
    "match shows up a moment after it is created. A match with a spectator delay is listed "
    "as its events that old make it. Counted as one of the caller's reads, and one more "
    "for each thousand archived matches it reads from the archive.",
    responses=responses(400, 429, 503),
    guards=[limit_reads],
)
async def list_matches(
    ctx: NamedDependency[Context],
    request: Request[Any, Any, Any],
    match_state: Annotated[MatchState | None, QueryParameter(name="state")] = None,
    preset: Annotated[str | None, QueryParameter(max_length=40)] = None,
    limit: Annotated[int, QueryParameter(ge=1, le=200)] = 50,
    cursor: Annotated[str | None, QueryParameter(max_length=100)] = None,
) -> MatchPage:
    if preset is not None and preset not in PRESETS:
        raise ServiceError(
            RefusalCode.BAD_REQUEST, f"no preset {preset!r}; presets: {sorted(PRESETS)}"
        )
    try:
        network = network_of(ctx.caller(request).address)
        listings, after = await ctx.catalog.page(
            match_state, preset, limit, cursor, functools.partial(ctx.reads.take, network)
        )
    except ValueError as error:
        raise ServiceError(RefusalCode.BAD_REQUEST, f"cursor: {error}") from None
    # as a spectator may see each now: one whose delay still hides that it started is
    # not listed among the live ones
    shown = [await ctx.catalog.as_seen(item, queries.now_ms()) for item in listings]
    matches = [
        msgspec.convert(item, MatchSummary, from_attributes=True)
        for item in shown
        if match_state is None or item.state == match_state
    ]
    return MatchPage(matches, after)


@get(
    "/matches/{match_id:str}",
    summary="A match as a spectator sees it now",
    description="No hand, blind or unused card until the match is over; then everything. A "
    "spectator delay shows the match as it was that long ago.",
    responses=responses(*ERROR_RESPONSES, 429),
    guards=[limit_reads],
)
async def get_match(ctx: NamedDependency[Context], match_id: FromPath[str]) -> MatchView:
    seen, match = await ctx.queries.now(match_id)
    return MatchView(
        match_id=match.match_id,
        state=seen.state,
        version=seen.visible,
        names=list(match.names),
        spectator_delay_ms=match.spectator_delay_ms,
        view=spectator_view(match.game),
        turn_ms=match.turn_ms,
        turn_deadline_ms=None if match.spectator_delay_ms else match.turn_deadline_ms,
    )


@get(
    "/matches/{match_id:str}/events",
    summary="A match's events, a page at a time",
    description="Each event as a spectator may see it (everything once the match is over). "
    "``next`` is the ``from`` of the next page, null when nothing more is visible now.",
    responses=responses(*ERROR_RESPONSES, 429),
    guards=[limit_reads],
)
async def list_events(
    ctx: NamedDependency[Context],
    match_id: FromPath[str],
    from_seq: Annotated[int, QueryParameter(name="from", ge=0, le=2**62)] = 0,
    limit: Annotated[int, QueryParameter(ge=1, le=MAX_PAGE)] = 100,
) -> EventPage:
    page = await ctx.queries.events(match_id, from_seq, limit)
    return EventPage(page.events, page.next_seq)


@get(
    "/matches/{match_id:str}/state",
    summary="The match after event ``seq``: replay to any point",
    description="The spectator's view of the state folded from events 0..seq. Once the match "
    "is over every hand, blind and unused card is shown at every seq (the full deal); while "
    "it is live, none. ``version`` is the last seq visible now.",
    responses=responses(*ERROR_RESPONSES, 429),
    guards=[limit_reads],
)
async def get_state(
    ctx: NamedDependency[Context],
    match_id: FromPath[str],
    seq: Annotated[int, QueryParameter(ge=0, le=2**62)],
) -> MatchViewAt:
    at = await ctx.queries.state_at(match_id, seq)
    seen, match = at.seen, at.match
    return MatchViewAt(
        match_id=match.match_id,
        state=seen.state,
        version=seen.visible,
        names=list(seen.match.names),
        spectator_delay_ms=match.spectator_delay_ms,
        view=at.view,
        turn_ms=match.turn_ms,
        turn_deadline_ms=None,  # a past state: no clock runs in it
        seq=seq,
    )


HANDLERS = [list_matches, get_match, list_events, get_state]
