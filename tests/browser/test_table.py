"""Opening a table from the page and playing it: the new-table form with bots,
a whole game by keyboard alone to the results panel, and two people in two
browser contexts seated through an invite link, playing each other."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.async_api import Browser, Page

from .conftest import TIMEOUT_MS, Site, screenshot
from .keys import focus_by_keyboard, seat_state, select_cards, text_of, wait_my_turn

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def fill_by_keyboard(page: Page, selector: str, text: str) -> None:
    await focus_by_keyboard(page, selector)
    await page.keyboard.press("Control+A")
    await page.keyboard.type(text)


async def seat_token(page: Page, match_id: str) -> str:
    token = await page.evaluate("(id) => sessionStorage.getItem(`daifugo:seat:${id}`)", match_id)
    assert token, "the page keeps the seat's token in this tab"
    return str(token)


def match_id_of(page: Page) -> str:
    return page.url.split("#/match/")[1].split("/")[0]


async def play_turns(page: Page, site: Site, match_id: str, token: str) -> dict[str, int]:
    """Play the seat by keyboard until the match is over: the service's legal actions
    say what may be done (the test's oracle); keys do it."""
    played = passed = 0
    for _ in range(400):
        prompt = await wait_my_turn(page)
        if prompt["phase"] == "match_over":
            return {"played": played, "passed": passed}
        state = await seat_state(page, site.base_url, match_id, token)
        if str(state["version"]) != prompt["version"]:
            await asyncio.sleep(0.05)  # the page has not caught up yet: look again
            continue
        assert await page.get_attribute("#act-pass", "aria-disabled") == "false"
        legal: list[dict[str, Any]] = state["legal"]
        plays = [action for action in legal if action["action"] == "play"]
        gives = [action for action in legal if action["action"] in ("give", "discard")]
        if gives:
            await select_cards(page, gives[0]["cards"])
            await focus_by_keyboard(page, f"#act-{gives[0]['action']}")
            await page.keyboard.press("Enter")
        elif plays and (not any(a["action"] == "pass" for a in legal) or played % 3 != 2):
            chosen = min(plays, key=lambda play: (len(play["cards"]) != 1, play["cards"]))
            if "JK" in chosen["cards"]:  # keep the joker while another play is legal
                chosen = next((p for p in plays if "JK" not in p["cards"]), chosen)
            await select_cards(page, chosen["cards"])
            await focus_by_keyboard(page, "#act-play")
            await page.keyboard.press("Enter")
            played += 1
        else:
            await page.keyboard.press("p")
            passed += 1
        await page.wait_for_function(
            "(v) => document.getElementById('seat-prompt').dataset.version !== v",
            arg=prompt["version"],
        )
    raise AssertionError("the match did not end")


async def test_a_table_with_three_bots_played_by_keyboard_to_the_results(
    site: Site, page: Page, artifacts: Path
) -> None:
    await page.goto(f"{site.base_url}/")
    await page.wait_for_selector("#list-status:has-text('.')")
    await screenshot(page, artifacts, "front")
    await focus_by_keyboard(page, "#new-table")
    await page.keyboard.press("Enter")
    await page.wait_for_selector("#new-rules input[data-rule='eight_cut']")
    # each local rule is a toggle with its Japanese name and what it means
    label = await text_of(page, "label[for='rule-eight_cut']")
    assert "8切り" in label and "Eight-cut" in label
    about = await page.get_attribute("#rule-eight_cut", "aria-describedby")
    assert "flushes" in await text_of(page, f"#{about}")
    assert await page.locator("#new-seats select").count() == 3  # seats 1-3: greedy bots
    await fill_by_keyboard(page, "#new-name", "Keys")
    await fill_by_keyboard(page, "#new-games", "1")
    await fill_by_keyboard(page, "#new-bot-pause", "0")
    await screenshot(page, artifacts, "new-table")
    await focus_by_keyboard(page, "#new-create")
    await page.keyboard.press("Enter")

    await page.wait_for_url("**/#/match/*")
    match_id = match_id_of(page)
    await page.wait_for_selector("#hand button")
    token = await seat_token(page, match_id)
    assert token not in page.url
    names = await page.eval_on_selector_all(
        "#seats .seat-name", "(items) => items.map(i => i.textContent)"
    )
    assert names[0] == "Keys (seat 0) (you)" and all("bot" in name for name in names[1:])
    # the rules in play, each with its tooltip; the ones turned off are not shown
    assert await page.locator("#rules-active li[data-rule='eight_cut']").count() == 1
    assert await page.locator("#rules-active li[data-rule='omen']").count() == 0
    tip = await page.get_attribute(
        "#rules-active li[data-rule='eight_cut'] button", "aria-describedby"
    )
    assert "8切り" in await text_of(page, f"#{tip}")

    # off the seat's turn Play and Pass are disabled, and P does nothing
    await page.wait_for_selector("#seat-prompt[data-turn]")
    if await page.get_attribute("#seat-prompt", "data-turn") == "no":
        assert await page.get_attribute("#act-pass", "aria-disabled") == "true"
    await wait_my_turn(page)
    await screenshot(page, artifacts, "table")
    counts = await play_turns(page, site, match_id, token)
    assert counts["played"] > 0

    await page.wait_for_selector("#results:not([hidden])[data-final='true']")
    rows = await page.eval_on_selector_all(
        "#results-table tbody tr", "(rows) => rows.map(r => Number(r.dataset.total))"
    )
    assert sorted(rows) == [0, 1, 2, 3]  # one game of four: 3, 2, 1 and 0 points
    match = await site.running.service.load(match_id)
    places = match.game.places()
    for seat, place in places.items():
        total = await page.get_attribute(f"#results-table tr[data-seat='{seat}']", "data-total")
        assert total == str(4 - place)
    await page.wait_for_selector("#results-audit[data-verdict='valid']")
    href = await page.get_attribute("#download-record", "href")
    assert href == f"/matches/{match_id}/record?format=jsonl"
    # the seat's signed receipts, kept in the tab, are offered for download
    assert await page.locator("#download-receipts").is_visible()
    download = await page.get_attribute("#download-receipts", "download")
    assert download == f"receipts-{match_id}.jsonl"
    # from the table's create on: its own, the creator's seat's and the auto start's,
    # then one per action; the auditor takes them all against the exported log
    kept = json.loads(
        await page.evaluate("(id) => sessionStorage.getItem(`daifugo:receipts:${id}`)", match_id)
    )
    assert [receipt["first_seq"] for receipt in kept[:3]] == [0, 4, 5]
    async with httpx.AsyncClient(base_url=site.base_url, timeout=60) as http:
        log = (await http.get(f"/matches/{match_id}/record", params={"format": "jsonl"})).text
        report = (await http.post("/audit", json={"log": log, "receipts": kept})).json()
    assert report["verdict"] == "valid" and report["not_run"] == [], report
    log = await text_of(page, "#log")
    assert "to play" not in log
    assert "Keys (seat 0)" not in log or "played" in log
    await screenshot(page, artifacts, "results")

    # Rematch: a new match, same options and seats
    await focus_by_keyboard(page, "#rematch")
    await page.keyboard.press("Enter")
    await page.wait_for_function("(id) => !location.hash.includes(id)", arg=match_id)
    await page.wait_for_selector("#hand button")
    again = await site.running.service.load(match_id_of(page))
    assert again.bots == match.bots and again.rules == match.rules
    assert again.names[0] == "Keys"


async def test_two_people_take_two_seats_through_an_invite_and_play(
    site: Site, browser: Browser, page: Page
) -> None:
    await page.goto(f"{site.base_url}/#/new")
    await page.wait_for_selector("#new-rules input[data-rule='eight_cut']")
    await page.select_option("#new-players", "2")
    await page.fill("#new-games", "1")
    await page.fill("#new-name", "Ann")
    await page.select_option("#new-seat-1", "invite")
    await page.click("#new-create")
    await page.wait_for_selector("#host-panel:not([hidden]) #invite-link-1")
    match_id = match_id_of(page)
    link = await page.input_value("#invite-link-1")
    assert f"/#/invite/{match_id}/1." in link and "?" not in link

    other = await browser.new_context(viewport={"width": 390, "height": 844})
    try:
        friend = await other.new_page()
        friend.set_default_timeout(TIMEOUT_MS)
        requests: list[str] = []
        friend.on("request", lambda request: requests.append(request.url))
        await friend.goto(link)
        await friend.wait_for_selector("#invite-view:not([hidden])")
        assert "1." not in friend.url.split("#")[1]  # the secret left the address bar
        await friend.fill("#invite-name", "Bo")
        await friend.keyboard.press("Enter")
        await friend.wait_for_selector("#hand button")
        assert all(link.split("/")[-1] not in url for url in requests)
        # the match started once both seats were taken; each sees its own hand
        await page.wait_for_selector("#hand button")
        tokens = {0: await seat_token(page, match_id), 1: await seat_token(friend, match_id)}
        assert tokens[0] != tokens[1]
        # the invited tab keeps the receipts of its seat and of the start it set off
        kept = await friend.evaluate(
            "(id) => JSON.parse(sessionStorage.getItem(`daifugo:receipts:${id}`))", match_id
        )
        assert [receipt["first_seq"] for receipt in kept[:2]] == [2, 3]

        # the same link a second time: the seat is taken
        third = await other.new_page()
        await third.goto(link)
        await third.click("#invite-take")
        await third.wait_for_selector("#invite-error:has-text('seat_taken')")
        await third.close()

        async def plays(player: Page, seat: int) -> dict[str, int]:
            return await play_turns(player, site, match_id, tokens[seat])

        await asyncio.gather(plays(page, 0), plays(friend, 1))
        for player in (page, friend):
            await player.wait_for_selector("#results:not([hidden])[data-final='true']")
        match = await site.running.service.load(match_id)
        assert match.over and match.names == ("Ann", "Bo")
    finally:
        await other.close()


async def test_the_host_seats_bots_and_starts_the_table(site: Site, page: Page) -> None:
    await page.goto(f"{site.base_url}/#/new")
    await page.wait_for_selector("#new-rules input[data-rule='eight_cut']")
    await page.select_option("#new-players", "3")
    await page.check("#new-host-only")
    for seat in (0, 1, 2):
        await page.select_option(f"#new-seat-{seat}", "invite")
    await page.uncheck("#new-auto-start")
    await page.fill("#new-bot-pause", "0.5")  # three bots at no pause may finish unseen
    await page.click("#new-create")
    await page.wait_for_selector("#host-panel:not([hidden]) #invite-link-2")
    match_id = match_id_of(page)
    assert await page.locator("#token-form:not([hidden])").count() == 1  # hosting only
    assert await page.locator("#host-start").is_hidden()
    for kind in ("random", "greedy", "stronger"):
        await page.select_option("#host-bot-kind", kind)
        await focus_by_keyboard(page, "#host-bot")
        await page.keyboard.press("Enter")
        await page.wait_for_selector(f"#seats .seat-name:has-text('{kind} bot')")
    await page.wait_for_selector("#host-start:not([hidden])")
    assert "joined" in await text_of(page, "#announcer")
    await focus_by_keyboard(page, "#host-start")
    await page.keyboard.press("Enter")
    await page.wait_for_selector("#host-panel", state="hidden")
    await page.wait_for_selector("#fact-phase:has-text('Playing')")
    match = await site.running.service.load(match_id)
    assert match.started and match.bots == ("random", "greedy", "stronger")


async def test_the_host_seats_the_expert(site: Site, page: Page) -> None:
    await page.goto(f"{site.base_url}/#/new")
    await page.wait_for_selector("#new-rules input[data-rule='eight_cut']")
    await page.select_option("#new-players", "2")
    await page.check("#new-host-only")
    for seat in (0, 1):
        await page.select_option(f"#new-seat-{seat}", "invite")
    await page.uncheck("#new-auto-start")
    await page.click("#new-create")
    await page.wait_for_selector("#host-panel:not([hidden]) #invite-link-1")
    match_id = match_id_of(page)
    for kind in ("expert", "greedy"):
        await page.select_option("#host-bot-kind", kind)
        await focus_by_keyboard(page, "#host-bot")
        await page.keyboard.press("Enter")
        await page.wait_for_selector(f"#seats .seat-name:has-text('{kind} bot')")
    await focus_by_keyboard(page, "#host-start")
    await page.keyboard.press("Enter")
    await page.wait_for_selector("#fact-phase:has-text('Playing')")
    match = await site.running.service.load(match_id)
    assert match.started and match.bots == ("expert", "greedy")
