"""The expert's analysis on the replay page, in real Chromium: asked for by keyboard, a
progress bar while it runs, then each seat's graph with its table, every labelled move
marked in the move list and on the timeline, and the expert's choice beside the move
shown; no axe-core violation at 1280 and 390 px, and no sideways scroll at 320 px."""

from __future__ import annotations

import json
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import httpx
import pytest
from playwright.async_api import Page

from .conftest import Site, screenshot
from .keys import focus_by_keyboard, text_of
from .test_comeback import reflows_at_320
from .test_replay_audit import at_step, axe_violations, finished

pytestmark = pytest.mark.asyncio(loop_scope="session")
ANALYSIS_MS = 300_000  # the default budget on a shared machine: never a timing assertion


async def test_the_replay_shows_the_expert_s_analysis(
    site: Site, page: Page, artifacts: Path
) -> None:
    match_id = await finished(site, players=3)
    await page.goto(f"{site.base_url}/#/match/{match_id}/replay/3")
    await at_step(page, 3)
    await page.wait_for_selector("#analysis-ask:not([hidden])")
    assert "not been analysed" in await text_of(page, "#analysis-status")
    assert await axe_violations(page) == []

    # asked by keyboard: a progress bar while the job runs, then the result
    await focus_by_keyboard(page, "#analysis-ask")
    await page.keyboard.press("Enter")
    await page.wait_for_selector("#analysis-progress:not([hidden])")
    await page.wait_for_selector("#analysis-results:not([hidden])", timeout=ANALYSIS_MS)
    assert await page.locator("#analysis-progress").is_hidden()
    async with httpx.AsyncClient(base_url=site.base_url) as http:
        answer = (await http.get(f"/matches/{match_id}/analysis")).json()
    assert answer["state"] == "done"
    result = answer["result"]
    judged = [move for move in result["moves"] if move["kind"] == "judged"]
    labelled = [move for move in judged if move["label"]]

    # the graph: an image with a text alternative, one line a seat that was judged
    graph = page.locator("#analysis-graph svg[role='img']")
    assert "Expected place of each seat" in (await graph.locator("title").text_content() or "")
    seats = {move["seat"] for move in judged}
    assert await graph.locator("polyline").count() == len(seats)
    assert await graph.locator("circle").count() == len(labelled)
    # ... and its figures in tables
    assert await page.locator("#analysis-seats-body tr").count() == result["players"]
    rows = page.locator("#analysis-moves-body tr")
    assert await rows.count() == len(judged)
    shown = await page.eval_on_selector_all(
        "#analysis-moves-body tr",
        "(rows) => rows.map((r) => [Number(r.dataset.seq), r.dataset.label ?? null])",
    )
    assert shown == [[move["seq"], move["label"]] for move in judged]

    # the labelled moves marked in the move list and on the timeline
    marked = await page.eval_on_selector_all(
        "#replay-moves button[data-label]", "(buttons) => buttons.map((b) => Number(b.dataset.seq))"
    )
    assert marked == [move["seq"] for move in labelled]
    ticks = await page.eval_on_selector_all(
        "#analysis-marks option", "(options) => options.map((o) => Number(o.value))"
    )
    assert ticks == marked
    if labelled:
        assert await page.get_attribute("#replay-timeline", "list") == "analysis-marks"
        words = await page.locator(
            f"#replay-moves button[data-seq='{labelled[0]['seq']}']"
        ).text_content()
        assert labelled[0]["label"] in (words or "") and "the expert" in (words or "")

    # a judged move's step, reached from the table by keyboard: the expert's choice beside it
    await page.click("#analysis-details summary")
    target = labelled[0] if labelled else judged[0]
    await focus_by_keyboard(page, f"#analysis-moves-body tr[data-seq='{target['seq']}'] button")
    await page.keyboard.press("Enter")
    await at_step(page, target["seq"])
    note = await text_of(page, "#analysis-move")
    assert as_the_page_rounds(target["taken_place"]) in note
    if target["best"] != target["taken"]:
        assert "the expert:" in note and (target["label"] or "") in note
    else:
        assert "the expert's choice too" in note

    for width in (1280, 390):
        await page.set_viewport_size({"width": width, "height": 900})
        violations = await axe_violations(page)
        assert violations == [], json.dumps(violations, indent=1)
    await reflows_at_320(page)
    await screenshot(page, artifacts, "analysis")


def as_the_page_rounds(value: float) -> str:
    """`Number.toFixed(2)`: the float's exact value, a tie rounded up (Python's
    format rounds a tie to even, so 2.125 would be 2.12 here and 2.13 on the page)."""
    return str(Decimal(value).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))
