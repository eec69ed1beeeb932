"""The web page in a real browser: the match list, watching a live match and
replaying a finished one. Waits have timeouts; nothing asserts how long
anything took."""

from __future__ import annotations

import asyncio

import pytest
from playwright.async_api import Page

from service.app.match import fold_match, stream_of
from service.rules.cards import format_mask
from tests.integration.conftest import arrange

from .conftest import Site, bot_tasks, new_match, start
from .keys import focus_by_keyboard, text_of

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def wait_listed(page: Page, site: Site, state: str, match_ids: set[str]) -> None:
    """The listing is a projection: wait until GET /matches lists these matches."""
    for _ in range(200):
        response = await page.request.get(f"{site.base_url}/matches?state={state}&limit=200")
        assert response.ok, await response.text()
        listed = {item["match_id"] for item in (await response.json())["matches"]}
        if match_ids <= listed:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"GET /matches never listed {match_ids} as {state}")


# -- the list --------------------------------------------------------------------


async def test_lists_matches_with_filter_and_more(site: Site, page: Page) -> None:
    finished = []
    for _ in range(3):
        created = await new_match(site.client, "federation", 2)
        await start(site.client, created)
        await asyncio.gather(*bot_tasks(site.client, created, [0, 1]))
        finished.append(created.match_id)
    live = await new_match(site.client, "classic", 2)
    await start(site.client, live)  # nobody plays: it stays live
    await wait_listed(page, site, "finished", set(finished))
    await wait_listed(page, site, "live", {live.match_id})

    await page.goto(f"{site.base_url}/")
    await page.wait_for_selector("#list-status:has-text('shown')")
    assert await page.locator(f"#match-list li[data-match-id='{live.match_id}']").count() == 1

    # the finished ones, two at a time: "More matches" follows the cursor (newest
    # first, so ours come first unless other matches are being made meanwhile)
    await page.eval_on_selector("#match-list", "(list) => { list.dataset.pageSize = '2'; }")
    await page.select_option("#filter-state", "finished")
    await page.click("#filter button[type=submit]")
    await page.wait_for_selector("#more:not([hidden])")
    assert await page.locator("#match-list li").count() == 2
    ids: list[str] = []
    for _ in range(50):
        ids = await page.eval_on_selector_all(
            "#match-list li", "(items) => items.map(i => i.dataset.matchId)"
        )
        if set(finished) <= set(ids) or not await page.locator("#more:not([hidden])").count():
            break
        await page.click("#more")
        await page.wait_for_function(
            "(n) => document.querySelectorAll('#match-list li').length > n", arg=len(ids)
        )
    states = await page.eval_on_selector_all(
        "#match-list li", "(items) => items.map(i => i.dataset.state)"
    )
    assert set(states) == {"finished"}
    assert len(ids) == len(set(ids))  # pages do not overlap
    assert set(finished) <= set(ids) and live.match_id not in ids
    # after "More", the focus is on the first match of the new page
    focused = await page.evaluate("document.activeElement.closest('li')?.dataset.matchId")
    assert focused in ids[2:]

    # a match opens from its link
    await page.click(f"#match-list li[data-match-id='{finished[0]}'] a")
    await page.wait_for_selector("#replay:not([hidden]) #replay-position[data-seq]")


# -- watching ------------------------------------------------------------------------


async def test_watch_live_match_updates_and_announces(site: Site, page: Page) -> None:
    created = await new_match(site.client, "classic", 2)
    await page.goto(f"{site.base_url}/#/match/{created.match_id}")
    await page.wait_for_selector("#connection[data-state='open']")
    live_region = page.locator("#announcer")
    assert await live_region.get_attribute("role") == "status"
    assert await live_region.get_attribute("aria-live") == "polite"
    # every redraw of the seats, as the page saw it: (seat 0's count, the field)
    await page.evaluate(
        """() => {
            window.seen = [];
            const seats = document.getElementById("seats");
            new MutationObserver(() => {
                const seat = seats.querySelector('[data-seat="0"]');
                const field = document.getElementById("field").dataset.cards;
                if (seat) window.seen.push(`${seat.dataset.count}|${field}`);
            }).observe(seats, { childList: true });
        }"""
    )

    await start(site.client, created)
    bots = bot_tasks(site.client, created, [0, 1], pause=0.1)
    await page.wait_for_function(
        "() => document.getElementById('announcer').textContent.includes('played')"
    )
    assert "Playing" in await text_of(page, "#fact-phase")
    assert await page.locator("#seats li").count() == 2
    await asyncio.wait_for(asyncio.gather(*bots), 120)

    await page.wait_for_selector("#ended:not([hidden])")
    await page.wait_for_function(
        "() => document.getElementById('fact-phase').textContent === 'Match over'"
    )
    seen: list[str] = await page.evaluate("window.seen")
    assert len(set(seen)) >= 5, seen  # the table changed again and again as events came
    log = await text_of(page, "#log")
    assert "Game 1 dealt" in log and "played" in log and "finished" in log
    spoken = await live_region.text_content() or ""
    assert "The match is over" in spoken
    # the places the page shows are the service's
    match = await site.running.service.load(created.match_id)
    places = match.game.places()
    for seat, place in places.items():
        shown = await page.get_attribute(f"#seats li[data-seat='{seat}']", "data-place")
        assert shown == str(place)


# -- replaying -----------------------------------------------------------------------


async def test_replay_finished_match_forward_and_back(site: Site, page: Page) -> None:
    created = await new_match(site.client, "federation", 2)
    await start(site.client, created)
    await asyncio.gather(*bot_tasks(site.client, created, [0, 1]))
    stored = await site.running.service.store.read(stream_of(created.match_id), 0, 100_000)
    total = len(stored)

    async def expect_position(seq: int) -> None:
        await page.wait_for_function(
            "(seq) => document.getElementById('replay-position').dataset.seq === String(seq)",
            arg=seq,
        )
        assert await text_of(page, "#replay-position") == f"Event {seq + 1} of {total}"
        # every hand as the events folded up to seq say (computed here, not by the page)
        hands = fold_match(None, stored[: seq + 1]).game.hands
        for seat, hand in enumerate(hands):
            shown = await page.get_attribute(f"#seats li[data-seat='{seat}']", "data-hand")
            assert (shown or "").split() == format_mask(hand), f"seat {seat} at {seq}"

    await page.goto(f"{site.base_url}/#/match/{created.match_id}")
    dealt = next(event.seq for event in stored if event.type == "GameDealt")
    await expect_position(dealt)  # it opens on the full deal: 20 cards each
    assert [
        len((await page.get_attribute(f"#seats li[data-seat='{seat}']", "data-hand") or "").split())
        for seat in (0, 1)
    ] == [20, 20]
    assert await page.get_attribute("#replay-event", "data-type") == "GameDealt"

    # the arrows go move by move: the turn passing on is no step
    moves = [event.seq for event in stored if event.type != "TurnMoved"]
    after = [seq for seq in moves if seq > dealt]
    for _ in range(3):
        await page.keyboard.press("ArrowRight")
    await expect_position(after[2])
    await page.keyboard.press("ArrowLeft")
    await expect_position(after[1])
    await page.keyboard.press("End")
    await expect_position(total - 1)
    assert await page.get_attribute("#replay-next", "aria-disabled") == "true"
    await page.keyboard.press("ArrowRight")  # past the end: stays
    await expect_position(total - 1)
    await page.keyboard.press("Home")
    await expect_position(0)
    # the buttons, reached and pressed by keyboard
    await focus_by_keyboard(page, "#replay-next")
    await page.keyboard.press("Enter")
    await expect_position(next(seq for seq in moves if seq > 0))
    await focus_by_keyboard(page, "#replay-last")
    await page.keyboard.press("Space")
    await expect_position(total - 1)
    await focus_by_keyboard(page, "#replay-prev")
    await page.keyboard.press("Enter")
    before_last = max(seq for seq in moves if seq < total - 1)
    await expect_position(before_last)
    spoken = await text_of(page, "#announcer")
    assert f"Event {before_last + 1} of {total}" in spoken


async def test_the_log_puts_a_lock_on_the_play_that_starts_it(site: Site, page: Page) -> None:
    arranged = await arrange(
        site.running, site.client, "torasobi", ["3S 4S 9D JD", "5S 6S 9C QC"], leader=0
    )
    await page.goto(f"{site.base_url}/#/match/{arranged.match_id}")
    await page.wait_for_selector("#connection[data-state='open']")
    await arranged.seats[0].play(["3S"])
    await arranged.seats[1].play(["5S"])  # two spades in a row: a suit lock
    line = page.locator("#log li", has_text="suit lock")
    await line.wait_for()
    # the eye sees symbols, a screen reader hears words; no "to play" noise
    assert await line.locator(".shown").text_content() == "Seat 1 played 5♠ — suit lock ♠"
    assert await line.locator(".words").text_content() == (
        "Seat 1 played 5 of spades — suit lock spades"
    )
    assert "to play" not in await text_of(page, "#log")
    await page.wait_for_selector("#states li[data-state='suit-lock']")


async def test_the_discard_pile_shows_its_marked_cards(site: Site, page: Page) -> None:
    """docs/RULES.md §5, Later decisions 21: a card a pick took is marked, and the
    discard pile's badge says so once it lies there again."""
    arranged = await arrange(
        site.running,
        site.client,
        "torasobi",
        ["3D 3C 7H", "4S 6D 9C", "5S TD QH"],
        leader=0,
        options={"salvage": True},
        revolution=True,
    )
    await page.goto(f"{site.base_url}/#/match/{arranged.match_id}")
    await page.wait_for_selector("#connection[data-state='open']")
    seat0, seat1, seat2 = arranged.seats
    for three in ("3D", "3C", "3D"):  # unbeatable in revolution; each flush asks a salvage
        await seat0.play([three])
        await seat1.pass_()
        await seat2.pass_()
        if three == "3C":
            await seat0.pick(["3D"])  # marked from now on
    badge = page.locator("#states li[data-state='discard-pile']")
    await badge.filter(has_text="(1 marked)").wait_for()
    spoken = await badge.locator(".visually-hidden").text_content() or ""
    assert "marked, never taken again: 3 of diamonds" in spoken, spoken
