"""Browser tests: the web page in a real headless Chromium (Playwright's async
API, on the same event loop as the service), against the real service with
its REST server on a free port, bots playing over gRPC.

They skip only when no Chromium executable is installed (Debian's `chromium`
package; Playwright's own browser downloads are never used)."""

from __future__ import annotations

import asyncio
import os
import shutil
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
import pytest_asyncio
from playwright.async_api import Browser, Page, async_playwright

from clients.bots import GreedyBot
from clients.runner import play_seat
from clients.sdk import CreatedMatch, DaifugoClient
from service.runtime import Running

from ..service_support import isolated_service

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# generous: a slow CI machine, never a timing assertion
TIMEOUT_MS = 30_000


def chromium_executable() -> str | None:
    """Debian's Chromium (or one named by CHROMIUM), if installed."""
    named = os.environ.get("CHROMIUM")
    if named and shutil.which(named):
        return shutil.which(named)
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return "/usr/bin/chromium" if os.access("/usr/bin/chromium", os.X_OK) else None


# One Chromium for the whole session (starting it is the slow part), so every
# browser test runs on the session's event loop (each test module says so).
@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def browser() -> AsyncIterator[Browser]:
    executable = chromium_executable()
    if executable is None:
        pytest.skip("no Chromium executable found (apt-get install chromium): browser tests skip")
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            await launched.close()


@pytest.fixture(scope="session")
def artifacts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the browser tests leave what a person should look at (screenshots)."""
    return tmp_path_factory.mktemp("artifacts", numbered=False)


async def screenshot(page: Page, artifacts: Path, name: str) -> None:
    """The page at 1280 and at 390 px wide, whole, into the artifacts."""
    size = page.viewport_size or {"width": 1280, "height": 900}
    for width in (1280, 390):
        await page.set_viewport_size({"width": width, "height": 900})
        await page.screenshot(path=str(artifacts / f"{name}-{width}.png"), full_page=True)
    await page.set_viewport_size(size)


@dataclass
class Site:
    running: Running
    base_url: str
    client: DaifugoClient


@pytest_asyncio.fixture(loop_scope="session")
async def site() -> AsyncIterator[Site]:
    async with isolated_service(None, grpc_port=0, http_port=0) as running:
        assert running.http_port is not None
        async with DaifugoClient(f"127.0.0.1:{running.grpc_port}", timeout=20) as client:
            yield Site(running, f"http://127.0.0.1:{running.http_port}", client)


@pytest_asyncio.fixture(loop_scope="session")
async def page(browser: Browser) -> AsyncIterator[Page]:
    context = await browser.new_context(viewport={"width": 1280, "height": 900})
    opened = await context.new_page()
    opened.set_default_timeout(TIMEOUT_MS)
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    # the page works under its Content-Security-Policy: Chromium reports each thing the
    # policy blocked (an inline script or style, an eval, a foreign load) on the console
    violations: list[str] = []
    opened.on(
        "console",
        lambda message: violations.append(message.text) if csp_violation(message.text) else None,
    )
    try:
        yield opened
    finally:
        await context.close()
    assert not errors, f"the page raised: {errors}"
    assert not violations, f"the page broke its Content-Security-Policy: {violations}"


def csp_violation(text: str) -> bool:
    return "Content Security Policy" in text


async def new_match(client: DaifugoClient, preset: str, players: int) -> CreatedMatch:
    return await client.create_match(preset, players, games_per_set=1)


async def start(client: DaifugoClient, created: CreatedMatch) -> None:
    await client.host(created.match_id, created.host_token).start()


def bot_tasks(
    client: DaifugoClient, created: CreatedMatch, seats: Sequence[int], pause: float = 0.0
) -> list[asyncio.Task[None]]:
    return [
        asyncio.create_task(
            play_seat(client.seat(created.match_id, created.seat_tokens[seat]), GreedyBot(), pause)
        )
        for seat in seats
    ]
