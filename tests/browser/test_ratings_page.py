"""Registered players, ratings and the arena in the page, in a real Chromium: sign up
(the key kept in the browser), rotate the key, sign out; "Play rated" seats the player
at a rated match our bots fill; the leaderboard and a player's page with its plot and
games linked to replays, reached by keyboard, and no axe-core violation on either."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from dataclasses import dataclass

import httpx
import pytest
import pytest_asyncio
from playwright.async_api import Page

from clients.runner import play_seat
from clients.sdk import DaifugoClient
from service.app.arena import ArenaSettings
from service.app.selfplay import random_policy
from service.runtime import Running

from ..service_support import isolated_service
from .keys import focus_by_keyboard
from .test_replay_audit import axe_violations

pytestmark = pytest.mark.asyncio(loop_scope="session")
POOL = "federation.4-5"


@dataclass
class Arena:
    running: Running
    base_url: str


@pytest_asyncio.fixture(loop_scope="session")
async def arena_site(redis_url: str) -> AsyncIterator[Arena]:
    settings = ArenaSettings(bots_after=0.5, games_per_set=1, turn_seconds=5)
    async with isolated_service(
        redis_url, grpc_port=0, http_port=0, arena_settings=settings
    ) as running:
        yield Arena(running, f"http://127.0.0.1:{running.http_port}")


async def test_sign_up_rotate_sign_out_and_play_rated(arena_site: Arena, page: Page) -> None:
    await page.goto(f"{arena_site.base_url}/#/account")
    await page.fill("#signup-name", "Page Player")
    await page.click("#signup-form button[type=submit]")
    await page.wait_for_selector("#signed-in:not([hidden])")
    assert await page.text_content("#signed-in-name") == "Page Player"
    first = await page.evaluate("localStorage.getItem('daifugo:player-key')")
    assert first and first == await page.text_content("#new-key-value")

    await page.click("#rotate-key")
    await page.wait_for_function(
        "(old) => localStorage.getItem('daifugo:player-key') !== old", arg=first
    )
    async with httpx.AsyncClient(base_url=arena_site.base_url) as http:
        old = await http.get("/players/me", headers={"Authorization": f"Bearer {first}"})
        assert old.status_code == 401

    await page.select_option("#rated-pool", POOL)
    await page.click("#play-rated")
    await page.wait_for_url("**/#/match/*")
    await page.wait_for_selector("#hand-title")  # the seat is this browser's: its hand shows
    match_id = page.url.rsplit("/", 1)[1]
    match = await arena_site.running.service.load(match_id)
    assert match.rated and "Page Player" in match.names

    await page.evaluate("location.hash = '#/account'")
    await page.click("#sign-out")
    await page.wait_for_selector("#signup-form:not([hidden])")
    assert await page.evaluate("localStorage.getItem('daifugo:player-key')") is None


async def test_leaderboard_and_player_page_by_keyboard(arena_site: Arena, page: Page) -> None:
    async with httpx.AsyncClient(base_url=arena_site.base_url) as http:
        made = await http.post("/players", json={"name": "Board Player"})
        key, player_id = made.json()["key"], made.json()["player"]["player_id"]
    target = f"127.0.0.1:{arena_site.running.grpc_port}"
    async with DaifugoClient(target, player_key=key) as client:
        queue = client.join_queue(POOL)
        seat = await anext(queue)  # type: ignore[call-overload]
        await asyncio.wait_for(play_seat(seat, random_policy(random.Random(3))), 120)
        await queue.aclose()  # type: ignore[attr-defined]

    await page.goto(f"{arena_site.base_url}/#/ratings")
    for _ in range(100):  # the ratings follow the log: wait for the game to be rated
        await page.evaluate("location.hash = '#/'")
        await page.evaluate("location.hash = '#/ratings'")
        await page.wait_for_selector("#ratings-status:not(:empty)")
        if await page.locator("#ratings a", has_text="Board Player").count():
            break
        await asyncio.sleep(0.2)
    rows = await page.locator("#ratings tbody tr").count()
    assert rows == 4  # the player and the three bots that filled the table
    assert not await axe_violations(page)

    link = f"#ratings a[href$='{player_id}']"
    await focus_by_keyboard(page, link)
    await page.keyboard.press("Enter")
    await page.wait_for_selector("#player-view:not([hidden]) #player-games tbody tr")
    label = await page.get_attribute("#player-plot svg", "aria-label")
    assert label and "Board Player" in label
    replay = page.locator("#player-games tbody a").first
    assert "/replay/" in (await replay.get_attribute("href") or "")
    assert not await axe_violations(page)
