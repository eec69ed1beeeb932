"""A stranger takes an open seat from the lobby, the new-table form asks who may take
its open seats and groups its rules by docs/RULES.md section, and the table's smaller
words: its state in the header as it goes, the end that is no error, Play or P off
the seat's turn answered, chips in English with their Japanese beside, and the audit
page's `not_run` in the report's words. At 1280 and
390 px, with reflow at 320 px and axe-core on each new state."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.async_api import Page

from .conftest import Site, bot_tasks, new_match, start
from .keys import focus_by_keyboard, take_seat, text_of
from .test_comeback import WIDTHS, no_horizontal_scroll, reflows_at_320
from .test_replay_audit import axe_violations, finished

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def open_table(site: Site, **fields: Any) -> dict[str, Any]:
    body = {"preset": "torasobi", "players": 3, "bots": 0, "seat": 0, "name": "Host", **fields}
    async with httpx.AsyncClient(base_url=site.base_url, timeout=30) as http:
        answer = await http.post("/matches", json=body)
    assert answer.status_code == 201, answer.text
    table: dict[str, Any] = answer.json()
    return table


async def lobby_item(page: Page, base_url: str, match_id: str) -> str:
    selector = f"#lobby-list li[data-match-id='{match_id}']"
    for _ in range(100):  # the catalog is eventually consistent: load the lobby again
        await page.goto(f"{base_url}/#/")
        await page.wait_for_selector("#lobby-status:not(:empty)")
        if await page.locator(selector).count():
            return selector
        await page.goto("about:blank")
        await asyncio.sleep(0.1)
    raise AssertionError(f"{match_id} never shown in the lobby")


@pytest.mark.parametrize("width", WIDTHS)
async def test_a_stranger_joins_an_open_seat_from_the_lobby_by_keyboard(
    site: Site, page: Page, width: int
) -> None:
    await page.set_viewport_size({"width": width, "height": 844})
    listed = await open_table(site, lobby=True, bots={"2": "greedy"})
    invite_only = await open_table(site)
    await page.goto(f"{site.base_url}/#/")
    join = f"{await lobby_item(page, site.base_url, listed['match_id'])} button.lobby-join"
    # an invite-only table is never offered
    closed = f"#lobby-list li[data-match-id='{invite_only['match_id']}']"
    assert not await page.locator(closed).count()
    # the button says which table it joins (one "Join" per table would say nothing)
    label = await page.get_attribute(join, "aria-label") or ""
    assert label.startswith("Join: torasobi, 3 players: 1 seat free"), label
    assert "Host" in await text_of(page, f"#lobby-list li[data-match-id='{listed['match_id']}']")
    assert await axe_violations(page) == []
    await no_horizontal_scroll(page)
    await reflows_at_320(page)

    await focus_by_keyboard(page, "#lobby-name")
    await page.keyboard.type("Sam")
    await focus_by_keyboard(page, join)
    await page.keyboard.press("Enter")
    await page.wait_for_url(f"**/#/match/{listed['match_id']}")
    await page.wait_for_selector("#hand button")
    match = await site.running.service.load(listed["match_id"])
    assert match.names == ("Host", "Sam", "greedy bot 2") and match.started
    await page.wait_for_selector("#match-meta[data-state='live']")

    # back in the lobby: a full table is gone; at a table with a seat left, this
    # browser (any tab of it) is told it has a seat there, and offered no second one
    two_free = await open_table(site, lobby=True, players=4, bots={"3": "greedy"})
    await page.goto(f"{site.base_url}/#/")
    item = await lobby_item(page, site.base_url, two_free["match_id"])
    await page.fill("#lobby-name", "Sam")
    await page.click(f"{item} button.lobby-join")
    await page.wait_for_url(f"**/#/match/{two_free['match_id']}")
    await page.wait_for_selector("#play:not([hidden])")  # seated; no hand before the deal
    other_tab = await page.context.new_page()
    try:
        await other_tab.goto(f"{site.base_url}/#/")
        item = await lobby_item(other_tab, site.base_url, two_free["match_id"])
        assert not await other_tab.locator(f"{item} button").count()
        assert "You have seat 1 here" in await text_of(other_tab, item)
        assert not await other_tab.locator(
            f"#lobby-list li[data-match-id='{listed['match_id']}']"
        ).count()
    finally:
        await other_tab.close()
    match = await site.running.service.load(two_free["match_id"])
    assert match.names.count("Sam") == 1 and match.seats_free == (2,)


@pytest.mark.parametrize("width", WIDTHS)
async def test_the_form_groups_rules_by_section_asks_a_name_and_who_takes_open_seats(
    site: Site, page: Page, width: int
) -> None:
    await page.set_viewport_size({"width": width, "height": 800})
    await page.goto(f"{site.base_url}/#/new")
    await page.wait_for_selector("#new-rules input[data-rule='eight_cut']")
    legends = await page.eval_on_selector_all(
        "#new-rules fieldset.rule-group > legend", "(all) => all.map((l) => l.textContent)"
    )
    assert [legend.split(" ")[0] for legend in legends] == ["§2", "§3", "§5"]
    in_section = await page.eval_on_selector_all(
        "#new-rules fieldset[data-section='§2'] input[data-rule]",
        "(boxes) => boxes.map((b) => b.dataset.rule)",
    )
    assert in_section[:3] == ["revolution", "stairs", "eight_cut"] and len(in_section) == 8
    # a search puts away the sections it finds nothing in
    await page.fill("#new-rule-search", "salvage")
    assert await page.locator("#new-rules fieldset.rule-group:not([hidden])").count() == 1
    assert "1 of 29 shown" in await text_of(page, "fieldset[data-section='§5'] .rule-group-count")
    await page.fill("#new-rule-search", "")

    # an empty name is marked in place, and nothing is sent
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.method))
    await page.fill("#new-games", "1")
    await page.click("#new-create")
    await page.wait_for_selector("#new-name[aria-invalid='true']")
    assert "Enter your name" in await text_of(page, "#new-name-error")
    assert await page.evaluate("document.activeElement.id") == "new-name"
    assert "POST" not in requests
    assert await axe_violations(page) == []
    await reflows_at_320(page)

    await page.keyboard.type("Ann")
    await page.select_option("#new-players", "2")
    await page.select_option("#new-seat-1", "invite")
    await focus_by_keyboard(page, "#new-invite-only")  # a radio group is one Tab stop
    await page.keyboard.press("ArrowDown")
    assert await page.is_checked("#new-lobby")
    await page.click("#new-create")
    await page.wait_for_url("**/#/match/*")
    match_id = page.url.split("#/match/")[1]
    match = await site.running.service.load(match_id)
    assert match.lobby and not match.invites and match.names[0] == "Ann"
    # the header says the table waits for players, then that it is live
    await page.wait_for_selector("#match-meta[data-state='open']")
    assert "not started yet" in await text_of(page, "#match-meta")
    async with httpx.AsyncClient(base_url=site.base_url, timeout=30) as http:
        joined = await http.post(f"/matches/{match_id}/join", json={"name": "Bo"})
    assert joined.status_code == 200, joined.text
    await page.wait_for_selector("#match-meta[data-state='live']")


@pytest.mark.parametrize("width", WIDTHS)
async def test_play_or_p_off_the_turn_says_so_and_chips_read_in_english(
    site: Site, page: Page, width: int
) -> None:
    await page.set_viewport_size({"width": width, "height": 844})
    created = await site.client.create_match("torasobi", 2, games_per_set=1)
    await start(site.client, created)
    match = await site.running.service.load(created.match_id)
    assert match.game.turn is not None
    waiting = 1 - match.game.turn  # the seat whose turn it is not
    await take_seat(page, site.base_url, created.match_id, created.seat_tokens[waiting])
    await page.wait_for_selector("#seat-prompt[data-turn='no']")
    await page.keyboard.press("p")
    await page.wait_for_selector("#turn-note:has-text('Not your turn')")
    assert await page.get_attribute("#turn-note", "role") == "status"
    assert f"Seat {match.game.turn}" in await text_of(page, "#turn-note")
    await page.evaluate("document.getElementById('turn-note').textContent = ''")
    await focus_by_keyboard(page, "#act-play")
    await page.keyboard.press("Enter")
    await page.wait_for_selector("#turn-note:has-text('Not your turn')")
    assert (await site.running.service.load(created.match_id)).version == match.version

    # the rules in play read in English, the Japanese beside in lang="ja"
    chip = page.locator("#rules-active li[data-rule='eight_cut'] .rule-chip")
    assert (await chip.text_content() or "").startswith("Eight-cut")
    assert await chip.locator("[lang='ja']").text_content() == "8切り"
    assert await axe_violations(page) == []
    await reflows_at_320(page)


async def test_the_header_follows_the_match_to_its_end_which_is_no_error(
    site: Site, page: Page
) -> None:
    created = await new_match(site.client, "torasobi", 2)
    await page.goto(f"{site.base_url}/#/match/{created.match_id}")
    await page.wait_for_selector("#match-meta[data-state='open']")  # seated, not started
    assert "not started yet" in await text_of(page, "#match-meta")
    await start(site.client, created)
    await asyncio.gather(*bot_tasks(site.client, created, [0, 1], pause=0.05))
    await page.wait_for_selector("#match-meta[data-state='finished']")
    await page.wait_for_selector("#ended:not([hidden])")
    state = await page.get_attribute("#connection", "data-state")
    hidden = await page.locator("#connection").is_hidden()
    assert hidden or state == "over", state
    assert "Not following" not in await text_of(page, "#connection")
    # leaving for another match: the stream this page stops is no news there
    await page.goto(f"{site.base_url}/#/match/{created.match_id}/replay/3")
    await page.wait_for_selector("#replay-position[data-seq='3']")
    await page.wait_for_selector("#match-audit[data-verdict='valid']")
    assert await page.locator("#connection").is_hidden()


@pytest.mark.parametrize("width", WIDTHS)
async def test_the_audit_page_says_not_run_in_the_report_s_words_not_failed(
    site: Site, page: Page, width: int, tmp_path: Path
) -> None:
    """A check with nothing to check (no receipts given) is `not_run` on the page as in
    the JSON report `daifugo audit` prints, never a red "failed"; the seal's status is
    the report's too."""
    await page.set_viewport_size({"width": width, "height": 800})
    match_id = await finished(site)
    record = await page.request.get(f"{site.base_url}/matches/{match_id}/record?format=jsonl")
    log = tmp_path / "match.jsonl"
    log.write_text(await record.text())
    answer = await page.request.post(
        f"{site.base_url}/audit",
        data=log.read_bytes(),
        headers={"Content-Type": "application/x-ndjson"},
    )
    report = await answer.json()
    assert answer.ok, report
    statuses = {check["name"]: check["status"] for check in report["checks"]}
    assert statuses["receipts"] == "not_run" and statuses["seal"] == "passed"

    await page.goto(f"{site.base_url}/#/audit")
    await page.set_input_files("#audit-file", str(log))
    await page.click("#audit-form button[type=submit]")
    await page.wait_for_selector("#audit-report-verdict[data-verdict='valid']")
    shown = await page.eval_on_selector_all(
        "#audit-report-checks li",
        "(items) => items.map((i) => [i.dataset.check, i.dataset.status])",
    )
    assert dict(shown) == statuses
    receipts = "#audit-report-checks li[data-check='receipts']"
    assert (await text_of(page, receipts)).startswith("receipts: not_run — no receipts given")
    colour = await page.eval_on_selector(receipts, "(e) => getComputedStyle(e).color")
    assert colour != "rgb(161, 18, 18)"  # not the refusals' red
    assert "failed" not in await text_of(page, "#audit-report-checks")
    assert await axe_violations(page) == []

    # the finished match's own verdict uses the same words
    await page.goto(f"{site.base_url}/#/match/{match_id}")
    await page.wait_for_selector("#match-audit[data-verdict='valid']")
    assert "Not run (not_run): receipts" in await text_of(page, "#match-audit")


async def test_the_page_brings_its_own_japanese_glyphs_under_its_policy(
    site: Site, page: Page
) -> None:
    """大富豪 renders with no Japanese font installed: the page's own subset loads from
    the app (font-src 'self'; the page fixture fails on any CSP violation)."""
    served = await page.request.get(f"{site.base_url}/static/fonts/daifugo-jp.woff2")
    assert served.ok and served.headers["content-type"] == "font/woff2"
    await page.goto(f"{site.base_url}/#/")
    await page.wait_for_selector("#lobby-status:not(:empty)")
    loaded = await page.evaluate(
        """async () => {
            const faces = await document.fonts.load('16px "Daifugo JP"', "大富豪");
            return faces.map((face) => [face.family, face.status]);
        }"""
    )
    # loaded from the app (a blocked or missing font would be "error"); its cover of
    # every character the page writes is tests/unit/test_page_font.py's
    assert [(family.strip('"'), status) for family, status in loaded] == [("Daifugo JP", "loaded")]
