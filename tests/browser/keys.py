"""Keyboard helpers for the browser tests: how a keyboard-only person gets
around the page (Tab / Shift+Tab, Space / Enter), and small DOM reads."""

from __future__ import annotations

from typing import Any

from playwright.async_api import Page

_RANKS = {"T": "10", "J": "jack", "Q": "queen", "K": "king", "A": "ace"}
_SUITS = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}


_ORDER = "3456789TJQKA2"


def sort_by_strength(codes: list[str], reversed_order: bool = False) -> list[str]:
    """Weakest first in the order in force, jokers last, suits ♠♥♦♣ (as the page sorts)."""

    def key(code: str) -> tuple[int, int]:
        if code == "JK":
            return (100, 0)
        value = _ORDER.index(code[0])
        return (len(_ORDER) - value if reversed_order else value, "SHDC".index(code[1]))

    return sorted(codes, key=key)


def card_name(code: str) -> str:
    """What a screen reader should say for a card: "10 of spades", "joker"."""
    if code == "JK":
        return "joker"
    return f"{_RANKS.get(code[0], code[0])} of {_SUITS[code[1]]}"


async def focus_by_keyboard(page: Page, selector: str, limit: int = 120) -> None:
    """Press Tab or Shift+Tab (whichever way the element lies) until the
    element ``selector`` names has the focus: how a keyboard user gets there."""
    for _ in range(limit):
        where = await page.evaluate(
            """(selector) => {
                const target = document.querySelector(selector);
                if (!target) return "missing";
                const active = document.activeElement;
                if (active === target) return "there";
                if (!active || active === document.body) return "after";
                const position = active.compareDocumentPosition(target);
                return position & Node.DOCUMENT_POSITION_FOLLOWING ? "after" : "before";
            }""",
            selector,
        )
        assert where != "missing", f"nothing matches {selector}"
        if where == "there":
            return
        await page.keyboard.press("Tab" if where == "after" else "Shift+Tab")
    raise AssertionError(f"Tab never reached {selector}")


async def text_of(page: Page, selector: str) -> str:
    return (await page.locator(selector).text_content()) or ""


async def dataset(page: Page, selector: str) -> dict[str, str]:
    result: dict[str, str] = await page.eval_on_selector(selector, "(e) => ({...e.dataset})")
    return result


async def seat_state(page: Page, base_url: str, match_id: str, token: str) -> dict[str, Any]:
    """What the service says the seat may do (the test's oracle, not the person's keys)."""
    response = await page.request.get(
        f"{base_url}/matches/{match_id}/seat", headers={"Authorization": f"Bearer {token}"}
    )
    assert response.ok, await response.text()
    result: dict[str, Any] = await response.json()
    return result


async def focus_card(page: Page, selector: str) -> None:
    """Tab to the hand (one tab stop), then arrow keys to the card ``selector`` names."""
    await focus_by_keyboard(page, "#hand button[tabindex='0']")
    cards = page.locator("#hand button")
    for _ in range(await cards.count() + 1):
        where = await page.evaluate(
            """(selector) => {
                const buttons = [...document.querySelectorAll("#hand button")];
                const target = document.querySelector(selector);
                return buttons.indexOf(target) - buttons.indexOf(document.activeElement);
            }""",
            selector,
        )
        if where == 0:
            return
        await page.keyboard.press("ArrowRight" if where > 0 else "ArrowLeft")
    raise AssertionError(f"the arrows never reached {selector}")


async def select_cards(page: Page, cards: list[str]) -> None:
    """Select each card with the keyboard: Tab to the hand, arrows to the card, then
    Space or Enter."""
    for index, code in enumerate(cards):
        await focus_card(page, f"#hand button[data-code='{code}'][aria-pressed='false']")
        await page.keyboard.press("Space" if index % 2 == 0 else "Enter")
    pressed = await page.eval_on_selector_all(
        "#hand button[aria-pressed='true']", "(buttons) => buttons.map(b => b.dataset.code)"
    )
    assert sorted(pressed) == sorted(cards)


async def choose_reading(page: Page, plays: list[dict[str, Any]], chosen: dict[str, Any]) -> None:
    """Several readings of the same cards: pick ``chosen``'s in the select, by keyboard."""
    same = [play for play in plays if sorted(play["cards"]) == sorted(chosen["cards"])]
    if len(same) < 2:
        return
    await page.wait_for_selector("#joker-choice:not([hidden])")
    await focus_by_keyboard(page, "#joker-select")
    await page.keyboard.press("Home")
    for _ in range(same.index(chosen)):
        await page.keyboard.press("ArrowDown")
    assert await page.eval_on_selector("#joker-select", "(s) => s.value") == str(same.index(chosen))


async def take_seat(page: Page, base_url: str, match_id: str, token: str) -> None:
    """Open the match and take the seat: Tab to the token field, type, Enter."""
    await page.goto(f"{base_url}/#/match/{match_id}")
    await page.wait_for_selector("#seat-panel:not([hidden])")
    await focus_by_keyboard(page, "#token")
    await page.keyboard.type(token)
    await page.keyboard.press("Enter")
    await page.wait_for_selector("#hand button")
    # the hand's heading has the focus: the next Tab reaches the first card
    assert await page.evaluate("document.activeElement.id") == "hand-title"


async def wait_my_turn(page: Page) -> dict[str, str]:
    """Wait until the page says it is the seat's turn (or the match is over)."""
    await page.wait_for_function(
        """() => {
            const prompt = document.getElementById("seat-prompt");
            return prompt.dataset.turn === "yes" || prompt.dataset.phase === "match_over";
        }"""
    )
    return await dataset(page, "#seat-prompt")


async def press_button(page: Page, selector: str) -> None:
    """Tab to a button and press Enter on it."""
    await focus_by_keyboard(page, selector)
    await page.keyboard.press("Enter")
