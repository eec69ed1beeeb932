"""A match is sealed even when its writer dies between the match's end and the
seal: the background work finds it ended and unsealed, and seals it."""

from __future__ import annotations

import asyncio
import secrets

from clients.bots import GreedyBot
from eventstore import RedisEventStore
from service.app.following import SharedFeed
from service.app.keyring import Keyring
from service.app.match import Match, stream_of
from service.app.sealer import Sealer
from service.app.service import GameService, MatchOptions
from service.app.signing import ephemeral_signer
from service.audit import audit_events
from service.rules.legal import legal_actions
from service.rules.views import Viewer, build_view


class DiesBeforeSealing(GameService):
    """A writer that stops right after the match's last event, as a kill -9 would."""

    async def _seal_if_over(self, match: Match) -> bool:
        return False


async def test_the_background_seals_a_match_its_writer_left_unsealed(redis_url: str) -> None:
    store = RedisEventStore.from_url(redis_url, prefix=f"sealing-{secrets.token_hex(4)}")
    keyring, signer = Keyring(secrets.token_bytes(32)), ephemeral_signer()
    try:
        writer = DiesBeforeSealing(store, keyring, signer)
        made = await writer.create(MatchOptions("classic", 2, {}))
        await writer.start(made.match_id, made.host_token)
        bot = GreedyBot()
        while not (match := await writer.load(made.match_id)).over:
            seat = match.game.turn
            assert seat is not None
            view = build_view(match.game, Viewer.of_seat(seat))
            action = bot(view, legal_actions(match.game))
            await writer.act(made.match_id, made.seat_tokens[seat], lambda _s, a=action: a)
        stream = stream_of(made.match_id)
        assert (await store.read(stream))[-1].type == "SeedRevealed"
        assert audit_events(await store.read(stream), signer.key_set()).verdict == "invalid"

        # another replica's background work, with the deployment's key
        sealer = Sealer(GameService(store, keyring, signer), tick=0.05)
        feed = SharedFeed(store, [sealer])
        running = [asyncio.create_task(sealer.run()), asyncio.create_task(feed.run())]
        try:
            for _ in range(600):
                if (await store.read(stream))[-1].type == "MatchSealed":
                    break
                await asyncio.sleep(0.1)
        finally:
            sealer.stop()
            feed.stop()
            await asyncio.wait_for(asyncio.gather(*running), 10)
        events = await store.read(stream)
        assert [e.type for e in events[-2:]] == ["SeedRevealed", "MatchSealed"]
        report = audit_events(events, signer.key_set())
        assert report.verdict == "valid", report.to_dict()
        assert report.check("seal").ok
    finally:
        await store.close()
