"""Following a seat's event stream to the end of the match through the SDK, which
resumes a broken stream from the last seq it saw."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator
from typing import Any, cast

from clients.sdk import SeatSession

LAST_EVENT = "MatchSealed"  # a match's last event: its seal, after the seed is revealed


class StreamWatcher:
    def __init__(self, session: SeatSession) -> None:
        self.session = session
        self.seen: list[tuple[int, str]] = []  # (seq, type) of every event streamed

    async def follow(self) -> None:
        # an async generator: closed on leaving, which ends its call
        events = cast(AsyncGenerator[dict[str, Any], None], self.session.events())
        async with contextlib.aclosing(events):
            async for event in events:
                self.seen.append((event["seq"], event["type"]))
                if event["type"] == LAST_EVENT:
                    return
