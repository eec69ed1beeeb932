"""The README's screenshots (docs/screenshots/), made again in Debian's Chromium against a
service of its own (in memory): the new-table form with its fields marked in place, the
table on your turn, and a finished match's replay seen by one seat, each at 1280x800 and
390x844, the first screen as a person sees it.

    .venv/bin/python tools/screenshots.py [--out docs/screenshots]"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from playwright.async_api import Page, async_playwright  # noqa: E402

from clients.bots import GreedyBot  # noqa: E402
from clients.runner import play_match  # noqa: E402
from clients.sdk import DaifugoClient  # noqa: E402
from tests.browser.conftest import CHROMIUM_ARGS, chromium_executable  # noqa: E402
from tests.service_support import isolated_service  # noqa: E402

SIZES = ((1280, 800), (390, 844))


async def new_table(page: Page, base: str, out: Path, width: int) -> None:
    await page.goto(f"{base}/#/new")
    await page.wait_for_selector("#new-rules input[data-rule='eight_cut']")
    await page.fill("#new-games", "0")
    await page.click("#new-create")  # games and the empty name marked; the focus on games
    await page.wait_for_selector("#new-name[aria-invalid='true']")
    await page.screenshot(path=str(out / f"new-table-{width}.png"))


async def your_turn(page: Page, base: str, out: Path, width: int) -> None:
    await page.goto(f"{base}/#/new")
    await page.wait_for_selector("#new-rules input[data-rule='eight_cut']")
    await page.fill("#new-name", "Ann")
    await page.fill("#new-games", "1")
    await page.fill("#new-bot-pause", "0.3")
    await page.click("#new-create")
    await page.wait_for_url("**/#/match/*")
    await page.wait_for_selector("#seat-prompt[data-turn='yes']", timeout=60_000)
    await page.wait_for_timeout(800)  # the turn's scroll and the play animation settle
    await page.screenshot(path=str(out / f"table-your-turn-{width}.png"))


async def replay(page: Page, base: str, match_id: str, out: Path, width: int) -> None:
    await page.goto(f"{base}/#/match/{match_id}/replay/40")
    await page.wait_for_selector("#replay-position[data-seq='40']")
    await page.select_option("#replay-perspective", "0")
    await page.wait_for_selector("#replay-hand:not([hidden])")
    await page.evaluate("window.scrollTo(0, 0)")
    await page.screenshot(path=str(out / f"replay-{width}.png"))


async def main(out: Path) -> None:
    executable = chromium_executable()
    if executable is None:
        raise SystemExit("no Chromium (apt-get install chromium)")
    out.mkdir(parents=True, exist_ok=True)
    async with isolated_service(None, grpc_port=0, http_port=0) as running:
        base = f"http://127.0.0.1:{running.http_port}"
        async with DaifugoClient(f"127.0.0.1:{running.grpc_port}") as client:
            bots = [GreedyBot() for _ in range(4)]
            finished = await play_match(client, "torasobi", bots, games_per_set=1)
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(
                executable_path=executable, args=CHROMIUM_ARGS
            )
            for width, height in SIZES:
                context = await browser.new_context(viewport={"width": width, "height": height})
                page = await context.new_page()
                await new_table(page, base, out, width)
                await your_turn(page, base, out, width)
                await replay(page, base, finished, out, width)
                await context.close()
            await browser.close()
    for path in sorted(out.glob("*.png")):
        print(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    asyncio.run(main(parser.parse_args().out))
