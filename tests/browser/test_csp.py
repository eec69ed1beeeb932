"""The page is served under a Content-Security-Policy with no inline script, framing
or sniffing (the `page` fixture fails any browser test whose page breaks the policy);
this shows the policy is in force, so that check is not empty."""

from __future__ import annotations

import pytest
from playwright.async_api import Browser, Error, Page

from .conftest import TIMEOUT_MS, Site, csp_violation

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def test_the_page_runs_under_a_policy_that_blocks_inline_script(
    site: Site, browser: Browser
) -> None:
    # a page of its own: the `page` fixture would fail it for the violation made here
    context = await browser.new_context()
    try:
        page = await context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        await _blocks_inline_script(site, page)
    finally:
        await context.close()


async def _blocks_inline_script(site: Site, page: Page) -> None:
    response = await page.goto(site.base_url + "/")
    assert response is not None and response.ok
    headers = await response.all_headers()
    policy = headers["content-security-policy"]
    assert "script-src 'self'" in policy and "unsafe-inline" not in policy
    assert "frame-ancestors 'none'" in policy
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["x-frame-options"] == "DENY"
    assert headers["referrer-policy"] == "no-referrer"
    # the honest path: the page's own module ran (it filled the match list's heading)
    await page.wait_for_selector("#list-view")
    # an inline script, as an injected one would be: refused, and reported
    blocked: list[str] = []
    page.on("console", lambda message: blocked.append(message.text))
    with pytest.raises(Error):
        await page.add_script_tag(content="window.injected = true")
    assert await page.evaluate("window.injected === undefined")
    assert any(csp_violation(text) for text in blocked), blocked
