"""Bot seats: seats a match gave to one of the service's own bots (``SeatJoined.bot``)
are played by the replica holding the background lease, through the same
decide → append path as any client's seat, with the seat's own token.

Like the turn timers, the worker follows the global feed, so it finds every bot seat
wherever its match was created, and a replica that takes the lease over picks up the
bot seats of every live match: a bot seat never stalls a match because the process
that created it went away. A bot sees only its seat's view and legal actions.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import logging
from collections.abc import Awaitable, Callable, Sequence

from eventstore import EventStoreError, StoredEvent

from ..match.events import BotKind
from ..rules.commands import SeatCommand
from ..rules.rulesets import RuleSet
from ..rules.views import View
from .following import Resume
from .keyring import Role
from .match import Match, match_id_of, stream_of
from .scanning import SharedScan
from .service import GameService, ServiceError

log = logging.getLogger("daifugo.bots")

# a bot that thinks long (the expert) answers with an awaitable: it thinks off the loop
Policy = Callable[[View, Sequence[SeatCommand]], SeatCommand | Awaitable[SeatCommand]]
BotFactory = Callable[[BotKind, RuleSet], Policy]
"""A fresh bot of a kind for a match with these rules (the wiring gives the policies:
the service layer knows no bot's strategy)."""

# refusals that mean the match moved on while the bot thought (a timer acted first)
_MOVED_ON = frozenset({"not_your_turn", "wrong_action", "game_over", "match_over"})
RETRY_PAUSE = 1.0  # seconds after a failure before the seat looks again


class BotSeats:
    name = "bot seats"
    pace = 0.25  # the feed only finds new bot seats: a quarter second late is soon enough

    def __init__(
        self,
        service: GameService,
        make_bot: BotFactory,
        scan: SharedScan | None = None,
        min_pause: float = 0.0,
    ) -> None:
        """``min_pause``: seconds a bot waits at least before each action, whatever its
        match's ``bot_pause`` (a server's bound on how fast bot tables take the loop)."""
        self.service = service
        self.min_pause = min_pause
        self.scan = scan  # None: a look of its own
        self.make_bot = make_bot
        self.playing: dict[tuple[str, int], asyncio.Task[None]] = {}
        self._stopping = asyncio.Event()

    def stop(self) -> None:
        """Ask ``run`` to return. (A flag, not only cancellation: a cancellation
        that lands inside a Redis client call may not come out.)"""
        self._stopping.set()

    async def run(self) -> None:
        """Play the bot seats the feed finds until ``stop``."""
        try:
            await self._stopping.wait()
        finally:
            seats = list(self.playing.values())
            for task in seats:
                task.cancel()
            if seats:
                await asyncio.wait(seats, timeout=2.0)

    async def start(self) -> Resume:
        """Where every stream is now, playing the bot seats of the live matches."""
        scan = await (self.scan or SharedScan(self.service.store)).scan()
        for match_id in scan.live():
            self._play_all(await self.service.load(match_id))
        return scan.resume()

    async def take(self, event: StoredEvent) -> None:
        match_id = match_id_of(event.stream)
        if event.type == "SeatJoined" and event.data.get("bot") and match_id is not None:
            self._play_all(await self.service.load(match_id))

    def _play_all(self, match: Match) -> None:
        if match.over:
            return
        for seat, kind in enumerate(match.bots):
            key = (match.match_id, seat)
            if kind and (key not in self.playing or self.playing[key].done()):
                bot = self.make_bot(BotKind(kind), match.rules)
                self.playing[key] = asyncio.create_task(self._play(match, seat, bot))

    async def _play(self, match: Match, seat: int, bot: Policy) -> None:
        """Act whenever it is the seat's turn, until the match is over."""
        service, match_id = self.service, match.match_id
        token = service.keyring.token(match_id, Role("seat", seat))
        pause = max(match.bot_pause_ms / 1000, self.min_pause)
        after = -1  # the version the seat last acted at (or found nothing to do at)
        try:
            while not self._stopping.is_set():
                seen = None
                try:
                    seen = await service.next_turn(match_id, token, after)
                    if seen.match.over:
                        return
                    if seen.actions:
                        if pause:
                            await asyncio.sleep(pause)
                        answer = bot(seen.view, seen.actions)
                        chosen = await answer if inspect.isawaitable(answer) else answer
                        request_id = f"bot:{seen.match.version}"
                        await service.act(
                            match_id, token, functools.partial(_same, chosen), request_id
                        )
                    after = seen.match.version
                except ServiceError as refused:
                    if refused.code in _MOVED_ON and seen is not None:
                        after = seen.match.version  # look again once the match has moved on
                    else:  # the same turn again after a pause: a failed action is retried
                        log.warning("bot seat %d of %s: %s", seat, stream_of(match_id), refused)
                        await asyncio.sleep(RETRY_PAUSE)
                except EventStoreError as error:
                    log.warning("bot seat %d of %s: %s", seat, stream_of(match_id), error)
                    await asyncio.sleep(RETRY_PAUSE)
        finally:
            self.playing.pop((match_id, seat), None)


def _same(command: SeatCommand, seat: int) -> SeatCommand:
    return command
