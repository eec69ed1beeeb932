"""The table people come back to: a seat got back from any tab or device through
its link, leaving that asks first, the legal cards shown on the seat's turn with
the hand and its buttons in view, at 1280 and 390 px, with reflow at 320 px and
axe-core on each new state."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.async_api import Browser, Page

from .conftest import TIMEOUT_MS, Site, new_match, start
from .keys import focus_by_keyboard, seat_state, take_seat, text_of
from .test_replay_audit import axe_violations

pytestmark = pytest.mark.asyncio(loop_scope="session")

WIDTHS = [pytest.param(1280, id="1280"), pytest.param(390, id="390")]


async def no_horizontal_scroll(page: Page) -> None:
    """WCAG 1.4.10: nothing wider than the window, at the width the page is now."""
    wide = await page.evaluate(
        "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    assert wide <= 0, f"the page scrolls sideways by {wide} px"


async def reflows_at_320(page: Page) -> None:
    size = page.viewport_size
    await page.set_viewport_size({"width": 320, "height": 640})
    await no_horizontal_scroll(page)
    if size:
        await page.set_viewport_size(size)


@pytest.mark.parametrize("width", WIDTHS)
async def test_a_seat_comes_back_through_its_link_in_another_browser_and_leaving_asks(
    site: Site, browser: Browser, page: Page, width: int
) -> None:
    await page.set_viewport_size({"width": width, "height": 844})
    created = await new_match(site.client, "torasobi", 2)
    await start(site.client, created)
    match_id, token = created.match_id, created.seat_tokens[0]
    await take_seat(page, site.base_url, match_id, token)

    # the link is in the page only while its box is open
    assert await page.input_value("#seat-link") == ""
    await focus_by_keyboard(page, "#seat-link-box summary")
    await page.keyboard.press("Enter")
    await page.wait_for_function("() => document.getElementById('seat-link').value !== ''")
    link = await page.input_value("#seat-link")
    assert link.endswith(f"#/seat/{match_id}/{token}")
    await focus_by_keyboard(page, "#seat-link-copy")
    await page.keyboard.press("Enter")
    await page.wait_for_selector("#seat-link-status:not(:empty)")
    assert await axe_violations(page) == []
    await reflows_at_320(page)

    # another device: a fresh browser with nothing stored opens the link
    other = await browser.new_context(viewport={"width": 390, "height": 844})
    try:
        device = await other.new_page()
        device.set_default_timeout(TIMEOUT_MS)
        requests: list[str] = []
        device.on("request", lambda request: requests.append(request.url))
        await device.goto(link)
        await device.wait_for_selector("#hand button")
        assert token not in device.url  # the token left the address bar and the history
        assert device.url.endswith(f"#/match/{match_id}")
        assert all(token not in url for url in requests)
        assert "(you)" in await text_of(device, "#seats")
        mine = await seat_state(device, site.base_url, match_id, token)
        shown = await device.eval_on_selector_all(
            "#hand button", "(buttons) => buttons.map(b => b.dataset.code)"
        )
        assert sorted(shown) == sorted(mine["view"]["hand"])
        # the link pasted whole in the token box also seats
        third = await other.new_page()
        await third.goto(f"{site.base_url}/#/match/{match_id}")
        await third.wait_for_selector("#token-form:not([hidden])")
        await third.fill("#token", link)
        await third.press("#token", "Enter")
        await third.wait_for_selector("#hand button")
    finally:
        await other.close()

    # leaving asks first; Stay keeps the seat
    await focus_by_keyboard(page, "#leave-seat")
    await page.keyboard.press("Enter")
    await page.wait_for_selector("#leave-confirm:not([hidden])")
    assert await page.evaluate("document.activeElement.id") == "leave-no"
    assert await axe_violations(page) == []
    await page.keyboard.press("Enter")
    await page.wait_for_selector("#leave-confirm", state="hidden")
    assert await page.evaluate("document.activeElement.id") == "leave-seat"
    assert await page.locator("#hand button").count() > 0
    await page.click("#leave-seat")
    await page.click("#leave-yes")
    await page.wait_for_selector("#token-form:not([hidden])")
    stored: Any = await page.evaluate(
        "(id) => sessionStorage.getItem(`daifugo:seat:${id}`)", match_id
    )
    assert stored is None
    assert "link" in await text_of(page, "label[for='token']")
