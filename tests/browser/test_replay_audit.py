"""Replays people can share, the audit made visible, the rankings, and an axe-core
check of every kind of page: a replay link opens at its step; autoplay, jump to
a game and one seat's view; an uploaded forged log shows invalid with a link to
its first bad step."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Page, Response

from clients.sdk import DaifugoClient
from eventstore import StoredEvent
from service.app.archiver import archive_now, followers_of
from service.app.match import fold_match, stream_of
from service.rest.app import RestSettings
from service.rest.read_rate import ReadRate
from service.rules.cards import format_mask

from ..service_support import isolated_service
from .conftest import Site, bot_tasks, new_match, screenshot, start
from .keys import focus_by_keyboard, take_seat, text_of

pytestmark = pytest.mark.asyncio(loop_scope="session")
AXE = Path(__file__).parent / "vendor" / "axe.min.js"


async def finished(site: Site, players: int = 2) -> str:
    created = await new_match(site.client, "torasobi", players)
    await start(site.client, created)
    await asyncio.gather(*bot_tasks(site.client, created, list(range(players))))
    return created.match_id


async def at_step(page: Page, seq: int) -> None:
    await page.wait_for_function(
        "(seq) => document.getElementById('replay-position').dataset.seq === String(seq)",
        arg=seq,
    )


async def replayed_at(
    page: Page, site: Site, match_id: str, stored: list[StoredEvent], seq: int
) -> None:
    """The replay opened at ``seq`` by its link shows every hand as it was then."""
    await page.goto(f"{site.base_url}/#/match/{match_id}/replay/{seq}")
    await at_step(page, seq)
    hands = fold_match(None, stored[: seq + 1]).game.hands
    for seat, hand in enumerate(hands):
        shown = await page.get_attribute(f"#seats li[data-seat='{seat}']", "data-hand")
        assert (shown or "").split() == format_mask(hand)


async def test_a_replay_link_opens_at_its_step(site: Site, page: Page, artifacts: Path) -> None:
    match_id = await finished(site)
    stored = await site.running.service.store.read(stream_of(match_id))
    seq = len(stored) // 2
    await replayed_at(page, site, match_id, stored, seq)
    assert await page.get_attribute("#replay-link", "href") == f"#/match/{match_id}/replay/{seq}"
    assert await page.input_value("#replay-timeline") == str(seq)
    await screenshot(page, artifacts, "replay")

    # moving on (to the next move: the turn passing on is no step) keeps the address bar
    # on the step: the link to share
    following = next(e.seq for e in stored[seq + 1 :] if e.type != "TurnMoved")
    await page.keyboard.press("ArrowRight")
    await at_step(page, following)
    await page.wait_for_function("(s) => location.hash.endsWith(`/replay/${s}`)", arg=following)

    # one seat's view as it was: its own hand only
    await page.select_option("#replay-perspective", "1")
    await page.wait_for_selector("#seats li[data-seat='1'].mine")
    assert await page.locator("#seats li[data-hand]").count() == 0
    await page.select_option("#replay-perspective", "")
    await page.wait_for_selector("#seats li[data-seat='0'][data-hand]")

    # jump to game 1's deal, then autoplay at 4×
    dealt = next(event.seq for event in stored if event.type == "GameDealt")
    await page.select_option("#replay-game", str(dealt))
    await at_step(page, dealt)
    await page.select_option("#replay-speed", "4")
    await focus_by_keyboard(page, "#replay-auto")
    await page.keyboard.press("Enter")
    await page.wait_for_function(
        "(d) => Number(document.getElementById('replay-position').dataset.seq) > d + 1", arg=dealt
    )
    await page.keyboard.press("Enter")  # pause
    assert await page.get_attribute("#replay-auto", "aria-pressed") == "false"

    # the match page shows its audit verdict; the results panel too
    await page.goto(f"{site.base_url}/#/match/{match_id}")
    await page.wait_for_selector("#match-audit[data-verdict='valid']")
    await page.wait_for_selector("#results:not([hidden]) #results-audit[data-verdict='valid']")


def forged(log: str) -> tuple[str, int]:
    """The log with one play's cards changed (its hash no longer matches)."""
    lines = [json.loads(line) for line in log.splitlines() if line]
    for record in lines:
        if record["type"] == "CardsPlayed":
            record["data"]["cards"] = ["2S"] if record["data"]["cards"] != ["2S"] else ["2H"]
            return "".join(json.dumps(item) + "\n" for item in lines), int(record["seq"])
    raise AssertionError("no play to forge")


async def test_a_replay_waits_out_the_read_rate_instead_of_failing(page: Page) -> None:
    """A replay makes more reads than a tight read rate's burst (the match, its events,
    a state per step): each read refused 429 rate_limited waits as Retry-After says and
    goes again, so the page shows the step instead of an error."""
    rest = RestSettings(reads=ReadRate(per_second=2, burst=2))
    async with (
        isolated_service(None, grpc_port=0, http_port=0, rest=rest) as running,
        DaifugoClient(f"127.0.0.1:{running.grpc_port}", timeout=20) as client,
    ):
        site = Site(running, f"http://127.0.0.1:{running.http_port}", client)
        match_id = await finished(site)
        stored = await running.service.store.read(stream_of(match_id))
        refused: list[str] = []

        def note_refusal(answer: Response) -> None:
            if answer.status == 429:
                refused.append(answer.url)

        page.on("response", note_refusal)
        seq = len(stored) // 2
        await page.goto(f"{site.base_url}/#/match/{match_id}/replay/{seq}")
        await at_step(page, seq)
        moves = [e.seq for e in stored[seq + 1 :] if e.type != "TurnMoved"][:3]
        for move in moves:
            await page.keyboard.press("ArrowRight")
            await at_step(page, move)
        assert refused  # the rate was reached, and waited out


async def test_an_archived_match_replays_and_audits_as_it_did_live(page: Page) -> None:
    """Once the archiver has moved a match out of the store (its followers done with
    it), the replay shows the same hands at a step and the match page the same valid
    audit: the page reads the archive through the same REST paths."""
    async with (
        isolated_service(None, grpc_port=0, http_port=0) as running,
        DaifugoClient(f"127.0.0.1:{running.grpc_port}", timeout=20) as client,
    ):
        site = Site(running, f"http://127.0.0.1:{running.http_port}", client)
        match_id = await finished(site)
        stream = stream_of(match_id)
        stored = await running.service.store.read(stream)
        assert running.archive is not None
        for _ in range(200):  # the projections follow the feed in the background
            mover = await archive_now(
                running.service.store,
                running.archive,
                running.storage.snapshots(),
                keep_live_ms=0,
                followers=followers_of(running.storage),
            )
            if mover.moved.matches:
                break
            await asyncio.sleep(0.05)
        assert await running.storage.events.read_as_stored(stream) == []
        assert await running.archive.get(stream) is not None

        await replayed_at(page, site, match_id, stored, len(stored) // 2)
        await page.goto(f"{site.base_url}/#/match/{match_id}")
        await page.wait_for_selector("#match-audit[data-verdict='valid']")


async def test_an_uploaded_forged_log_is_invalid_and_links_its_first_bad_step(
    site: Site, page: Page, artifacts: Path, tmp_path: Path
) -> None:
    match_id = await finished(site)
    response = await page.request.get(f"{site.base_url}/matches/{match_id}/record?format=jsonl")
    text, bad_seq = forged(await response.text())
    upload = tmp_path / "forged.jsonl"
    upload.write_text(text)

    await page.goto(f"{site.base_url}/")
    await focus_by_keyboard(page, "a[href='#/audit']")
    await page.keyboard.press("Enter")
    await page.wait_for_selector("#audit-view:not([hidden])")
    await page.set_input_files("#audit-file", str(upload))
    await focus_by_keyboard(page, "#audit-form button[type=submit]")
    await page.keyboard.press("Enter")
    await page.wait_for_selector("#audit-report-verdict[data-verdict='invalid']")
    assert (await text_of(page, "#audit-report-verdict")).startswith("Invalid")
    links = page.locator("#audit-report-checks a.bad-seq")
    assert await links.count() >= 1
    seqs = [
        int(await links.nth(i).get_attribute("data-seq") or -1) for i in range(await links.count())
    ]
    assert bad_seq in seqs
    await screenshot(page, artifacts, "audit")
    first = links.nth(seqs.index(bad_seq))
    assert await first.get_attribute("href") == f"#/match/{match_id}/replay/{bad_seq}"
    await first.click()
    await at_step(page, bad_seq)

    # the honest log is valid
    honest = tmp_path / "honest.jsonl"
    honest.write_text(await response.text())
    await page.goto(f"{site.base_url}/#/audit")
    await page.set_input_files("#audit-file", str(honest))
    await page.click("#audit-form button[type=submit]")
    await page.wait_for_selector("#audit-report-verdict[data-verdict='valid']")


async def test_the_rankings_have_a_page(site: Site, page: Page) -> None:
    await finished(site)
    await page.goto(f"{site.base_url}/#/rankings")
    for _ in range(100):  # a projection: it catches up a moment later
        await page.wait_for_selector("#rankings-status:not(:empty)")
        if await page.locator("#rankings tbody tr").count():
            break
        await asyncio.sleep(0.1)
        await page.evaluate("location.hash = '#/'")
        await page.evaluate("location.hash = '#/rankings'")
    rows = await page.eval_on_selector_all(
        "#rankings tbody tr", "(rows) => rows.map(r => r.children[1].textContent)"
    )
    assert rows and all(rows)


async def axe_violations(page: Page) -> list[dict[str, Any]]:
    """axe-core's every rule (WCAG and best practice) on the page as it is."""
    # evaluated by the test's driver, not added as an inline <script>: the page's
    # Content-Security-Policy rightly blocks those
    await page.evaluate(AXE.read_text())
    result: dict[str, Any] = await page.evaluate(
        """async () => {
            const results = await axe.run(document);
            return {
                passes: results.passes.length,
                violations: results.violations.map((v) => ({
                    id: v.id, impact: v.impact, help: v.help,
                    nodes: v.nodes.slice(0, 5).map((n) => n.target.join(" ")),
                })),
            };
        }"""
    )
    assert result["passes"] > 10, "axe checked nothing"
    violations: list[dict[str, Any]] = result["violations"]
    return violations


async def test_no_axe_violations_on_the_front_page_table_replay_and_audit(
    site: Site, page: Page
) -> None:
    pages: dict[str, list[dict[str, Any]]] = {}
    await page.goto(f"{site.base_url}/")
    await page.wait_for_selector("#list-status:has-text('.')")
    pages["front"] = await axe_violations(page)

    await page.goto(f"{site.base_url}/#/new")
    await page.wait_for_selector("#new-rules input[data-rule='eight_cut']")
    pages["new table"] = await axe_violations(page)

    created = await new_match(site.client, "torasobi", 3)
    await start(site.client, created)
    await take_seat(page, site.base_url, created.match_id, created.seat_tokens[0])
    pages["table"] = await axe_violations(page)

    match_id = await finished(site)
    await page.goto(f"{site.base_url}/#/match/{match_id}/replay/5")
    await at_step(page, 5)
    await page.wait_for_selector("#results:not([hidden])", state="attached")
    pages["replay"] = await axe_violations(page)

    await page.goto(f"{site.base_url}/#/audit")
    await page.wait_for_selector("#audit-view:not([hidden])")
    pages["audit"] = await axe_violations(page)
    await page.goto(f"{site.base_url}/#/rankings")
    await page.wait_for_selector("#rankings-status:not(:empty)")
    pages["rankings"] = await axe_violations(page)
    assert pages == {name: [] for name in pages}, json.dumps(pages, indent=1)


async def test_an_old_logs_warnings_are_listed_beside_a_valid_verdict(
    site: Site, page: Page, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A log of a king pastor's choice stored before the choice was blinded audits valid
    with a warning per choice (docs/AUDIT.md): the page lists each, by code and event."""
    from clients.bots import GreedyBot
    from service.app import codec
    from service.app.service import MatchOptions
    from service.records import BLINDED_TYPES
    from service.rules.legal import legal_actions
    from service.rules.views import Viewer, build_view

    service = site.running.service
    # the service as it was: CardChosen stored without a nonce (schema 1)
    monkeypatch.setattr(codec, "BLINDED_SINCE", {})
    unblinded = BLINDED_TYPES - {"CardChosen"}
    monkeypatch.setattr(codec, "is_blinded", lambda event_type: event_type in unblinded)
    made = await service.create(MatchOptions("classic", 3, {"king_pastor": True}, games_per_set=6))
    await service.start(made.match_id, made.host_token)
    bot = GreedyBot()
    while not (match := await service.load(made.match_id)).over:
        seat = match.game.turn
        assert seat is not None
        chosen = bot(build_view(match.game, Viewer.of_seat(seat)), legal_actions(match.game))
        await service.act(made.match_id, made.seat_tokens[seat], lambda _seat, c=chosen: c)
    monkeypatch.undo()
    choices = [
        event.seq
        for event in await service.stored_events(made.match_id)
        if event.type == "CardChosen"
    ]
    assert choices, "no king pastor's choice in the match"
    record = f"{site.base_url}/matches/{made.match_id}/record?format=jsonl"
    for _ in range(500):  # the sealer seals it a moment after its end
        response = await page.request.get(record)
        if response.ok:
            break
        await asyncio.sleep(0.02)
    upload = tmp_path / "old.jsonl"
    upload.write_text(await response.text())

    await page.goto(f"{site.base_url}/#/audit")
    await page.set_input_files("#audit-file", str(upload))
    await page.click("#audit-form button[type=submit]")
    await page.wait_for_selector("#audit-report-verdict[data-verdict='valid']")
    await page.wait_for_selector("#audit-report-findings:not([hidden])")
    listed = page.locator("#audit-findings li[data-finding='unblinded_hidden_choice']")
    assert await listed.count() == len(choices)
    assert f"event #{choices[0]}" in (await listed.first.text_content() or "")
