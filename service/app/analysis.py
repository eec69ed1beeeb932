"""Analysis jobs: the expert's judgement of every move of a finished match's game
(``clients.analysis``), asked for over REST, run in the expert's process pool and kept
once made (``AnalysisStore``: derived data, made again from the events whenever
needed).

A job is one game of one match at one budget (playouts per judged move), so its work
is bounded whatever the match's length: a 300-game UECda table is analysed game by game.
Its key names the match, the game, the budget and a digest of the analysing code, so a
result made by other code is never served as this code's.

- ``request``: a finished match only (``match_not_over`` before: a live match's hands
  are still secret); a slot of the caller's analyses and of everyone's (``Quotas``: 429
  with Retry-After past them); then the job is claimed in the store (one job a key,
  across replicas) and run: the events are read and the moves prepared in a worker, then
  each judged move is searched in a worker of its own, so an expert seat waiting for
  the same pool waits one move's search at most, never a whole analysis.
- ``status``: the result once kept; while under way, moves judged of moves to judge.

A job's record lives while its replica refreshes it (every ``HEARTBEAT`` s, lapsing
after ``JOB_TTL_MS``): a job lost with its replica (a restart) is not resumed. Its
record lapses, and ``status`` then says ``analysis_not_requested``: it must be asked
for again (its quota slot is let go then, or after ``Limits.analysis_hold``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from dataclasses import dataclass
from typing import Any

from clients import analysis
from clients.expert import in_pool, think_in_pool
from eventstore.analyses import AnalysisStore

from .errors import RefusalCode, ServiceCode, ServiceError
from .match import stream_of
from .queries import MatchQueries
from .quotas import Caller

log = logging.getLogger("daifugo.analysis")

JOB_TTL_MS = 30_000  # a job's record lapses this long after its replica last refreshed it
HEARTBEAT = 10.0  # seconds between refreshes
FAILED_TTL_MS = 600_000  # how long a failed job's reason is shown
# how long a result is kept: derived data, made again on request; results of code since
# replaced (another digest) are never read again, and go
RESULT_TTL_MS = 30 * 24 * 3600 * 1000
READ_PAGE = 1000  # events read in one turn of the loop


@dataclass(frozen=True, slots=True)
class Job:
    """What a request names: the match, the game, the budget."""

    match_id: str
    game: int
    playouts: int

    @property
    def key(self) -> str:
        return f"{self.match_id}.{self.game}.{self.playouts}.{analysis.code_digest()}"


class Analyses:
    def __init__(
        self, queries: MatchQueries, store: AnalysisStore, background: bool = True
    ) -> None:
        self.queries = queries
        self.service = queries.service
        self.store = store
        self.running: dict[str, asyncio.Task[None]] = {}
        self.background = background  # False: jobs are left queued (tests of the queue)

    async def job_of(self, match_id: str, game: int, playouts: int) -> Job:
        """The job asked for, checked: the match is over, has that game, and the
        budget is one the service runs."""
        seen = await self.queries.spectate(match_id)
        match = seen.match
        if not match.over:
            raise ServiceError(ServiceCode.MATCH_NOT_OVER, "a match is analysed once it is over")
        games = match.game.game_number
        if not 1 <= game <= games:
            raise ServiceError(
                RefusalCode.BAD_REQUEST, f"match {match_id} has games 1 to {games}, not {game}"
            )
        if playouts not in analysis.BUDGETS:
            budgets = ", ".join(map(str, analysis.BUDGETS))
            raise ServiceError(
                RefusalCode.BAD_REQUEST, f"playouts per move are one of {budgets}, not {playouts}"
            )
        return Job(match.match_id, game, playouts)

    async def request(
        self, caller: Caller | None, match_id: str, game: int, playouts: int
    ) -> dict[str, Any]:
        """Queue the job (nothing when it is kept or under way); its status."""
        job = await self.job_of(match_id, game, playouts)
        key = job.key
        known = await self._known(job)
        if known is not None and known["state"] != "failed":
            return known
        if known is not None:  # failed: asked again, it runs again
            await self.store.drop_job(key)
        if not await self.store.claim(key, _record("queued"), JOB_TTL_MS):
            return await self._known(job) or _status(job, "queued")
        quotas = self.service.quotas
        if quotas is not None and caller is not None:
            try:
                await quotas.take_analysis(caller, key)
            except ServiceError:
                await self.store.drop_job(key)
                raise
        if self.background:
            self.running[key] = asyncio.create_task(self._run(job))
        return _status(job, "queued")

    async def status(self, match_id: str, game: int, playouts: int) -> dict[str, Any]:
        job = await self.job_of(match_id, game, playouts)
        known = await self._known(job)
        if known is not None:
            return known
        quotas = self.service.quotas
        if quotas is not None:  # a job lost with its replica holds no slot any longer
            await quotas.release_analysis(job.key)
        raise ServiceError(
            ServiceCode.ANALYSIS_NOT_REQUESTED,
            f"no analysis of game {job.game} at {job.playouts} playouts a move is kept or "
            "under way (never asked for, or lost in a restart): POST to ask for it",
        )

    async def _known(self, job: Job) -> dict[str, Any] | None:
        body = await self.store.result(job.key)
        if body is not None:
            return {**_status(job, "done"), "result": json.loads(body)}
        record = await self.store.job(job.key)
        if record is None:
            return None
        return {**_status(job, "queued"), **json.loads(record)}

    async def _run(self, job: Job) -> None:
        key = job.key
        heartbeat = asyncio.create_task(self._refresh(key))
        try:
            result = await self._analyse(job)
            await self.store.save_result(key, json.dumps(result).encode(), RESULT_TTL_MS)
            await self.store.drop_job(key)
        except asyncio.CancelledError:
            raise
        except Exception as error:  # a worker died, the store failed: said, not hidden
            log.exception("the analysis of %s failed", key)
            with contextlib.suppress(Exception):
                reason = f"the analysis failed ({type(error).__name__}): ask again"
                record = _record("failed", reason=reason)
                await self.store.save_job(key, record, FAILED_TTL_MS)
        finally:
            heartbeat.cancel()
            self.running.pop(key, None)
            if self.service.quotas is not None:
                with contextlib.suppress(Exception):
                    await self.service.quotas.release_analysis(key)

    async def _refresh(self, key: str) -> None:
        """Keep the job's record alive while this replica works on it."""
        while True:
            await asyncio.sleep(HEARTBEAT)
            with contextlib.suppress(Exception):
                record = await self.store.job(key)
                if record is not None:
                    await self.store.save_job(key, record, JOB_TTL_MS)

    async def _analyse(self, job: Job) -> dict[str, Any]:
        # a page at a time, each a short turn of the loop: a 300-game table's whole
        # stream read at once would hold it for a quarter of a second or more
        records: list[tuple[str, dict[str, Any]]] = []
        async for page in self.service.store.read_pages(stream_of(job.match_id), 0, READ_PAGE):
            records += [(event.type, event.data) for event in page]
        prepared = await in_pool(analysis.prepare, records, job.game, job.playouts)
        searched = [item for item in prepared.decisions if item.request is not None]
        await self._progress(job, "running", 0, len(searched))
        moves = []
        done = 0
        for decision in prepared.decisions:
            means = None
            if decision.request is not None:
                means = (await think_in_pool(decision.request)).means
                done += 1
                await self._progress(job, "running", done, len(searched))
            moves.append(analysis.judged(decision, means))
        return analysis.report(prepared, job.game, job.playouts, moves)

    async def _progress(self, job: Job, state: str, done: int, total: int) -> None:
        await self.store.save_job(job.key, _record(state, done, total), JOB_TTL_MS)

    def stop(self) -> None:
        """Abandon the jobs under way (the server stops: their records lapse)."""
        for task in self.running.values():
            task.cancel()


def _record(state: str, done: int = 0, total: int = 0, reason: str = "") -> bytes:
    body: dict[str, Any] = {"state": state, "done": done, "total": total}
    if reason:
        body["reason"] = reason
    return json.dumps(body).encode()


def _status(job: Job, state: str) -> dict[str, Any]:
    return {
        "match_id": job.match_id,
        "game": job.game,
        "playouts": job.playouts,
        "state": state,
        "done": 0,
        "total": 0,
    }
