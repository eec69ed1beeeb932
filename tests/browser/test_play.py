"""Playing a seat from the page with the keyboard alone (docs/RULES.md §4): Tab /
Shift+Tab to cards and buttons, Space or Enter to select, Enter on Play, P to
pass; the other seat is a bot over gRPC. The test reads the service's legal
actions to decide what to do, and then does it with key presses only."""

from __future__ import annotations

import asyncio
import json

import pytest
from playwright.async_api import Page

from tests.integration.conftest import arrange

from .conftest import Site, bot_tasks, new_match, start
from .keys import (
    card_name,
    choose_reading,
    focus_by_keyboard,
    focus_card,
    press_button,
    seat_state,
    select_cards,
    sort_by_strength,
    take_seat,
    text_of,
    wait_my_turn,
)

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def test_play_a_seat_by_keyboard_alone(site: Site, page: Page) -> None:
    created = await new_match(site.client, "federation", 2)
    token = created.seat_tokens[0]
    await start(site.client, created)
    bots = bot_tasks(site.client, created, [1])
    match_id = created.match_id

    await take_seat(page, site.base_url, match_id, token)
    assert token not in page.url
    assert await page.locator("#token").input_value() == ""
    # each card is a toggle button named for a screen reader ("3 of spades"); the hand
    # is one stop of the tab order (a roving tabindex), weakest card first
    dealt = (await seat_state(page, site.base_url, match_id, token))["view"]["hand"]
    for code in dealt:
        card = page.get_by_role("button", name=card_name(code), exact=True, pressed=False)
        assert await card.count() == dealt.count(code)
    stops = await page.eval_on_selector_all(
        "#hand button", "(buttons) => buttons.map(b => b.tabIndex)"
    )
    assert sorted(stops) == [-1] * (len(dealt) - 1) + [0]
    shown = await page.eval_on_selector_all("#hand button", "(bs) => bs.map(b => b.dataset.code)")
    assert shown == sort_by_strength(dealt)

    played = passed = refused = 0
    for _ in range(200):
        prompt = await wait_my_turn(page)
        if prompt["phase"] == "match_over":
            break
        state = await seat_state(page, site.base_url, match_id, token)
        if str(state["version"]) != prompt["version"]:
            await asyncio.sleep(0.05)  # the page has not caught up yet: look again
            continue
        assert "Your turn" in await text_of(page, "#announcer")
        legal = state["legal"]
        plays = [action for action in legal if action["action"] == "play"]
        can_pass = any(action["action"] == "pass" for action in legal)
        hand: list[str] = state["view"]["hand"]
        playable = {code for play in plays for code in play["cards"]}

        wrong = [code for code in hand if code not in playable]
        if not refused and (not state["view"]["field"] or wrong):
            # once: something the rules refuse, and the alert saying why
            if state["view"]["field"]:
                await select_cards(page, wrong[:1])  # no legal play holds this card
                await focus_by_keyboard(page, "#act-play")
                await page.keyboard.press("Enter")
            else:
                await page.keyboard.press("p")  # the leader may not pass
            await page.wait_for_selector("#refusal[data-code]")
            code = await page.get_attribute("#refusal", "data-code")
            assert code != "cannot_pass" or not state["view"]["field"]
            assert (await text_of(page, "#refusal")).startswith(f"Refused ({code}): ")
            assert await page.get_attribute("#refusal", "role") == "alert"
            refused += 1
            if state["view"]["field"]:
                await focus_card(page, "#hand button[aria-pressed='true']")
                await page.keyboard.press("Space")  # unselect it again
            continue

        if can_pass and (not plays or (played + passed) % 5 == 4):
            await page.keyboard.press("p")
            passed += 1
        else:
            chosen = max(plays, key=lambda play: len(play["cards"]))
            await select_cards(page, chosen["cards"])
            await choose_reading(page, plays, chosen)
            await focus_by_keyboard(page, "#act-play")
            await page.keyboard.press("Enter")
            played += 1
        # the page takes in the new position before the next turn
        await page.wait_for_function(
            "(v) => document.getElementById('seat-prompt').dataset.version !== v",
            arg=prompt["version"],
        )
        refusal = await text_of(page, "#refusal")
        assert not await page.locator("#refusal[data-code]").count(), refusal
    else:
        raise AssertionError("the match did not end")

    await asyncio.wait_for(asyncio.gather(*bots), 60)
    assert played > 0 and refused == 1
    final = await text_of(page, "#seat-prompt")
    assert "The match is over" in final
    spoken = await text_of(page, "#announcer")
    assert "finished" in spoken or "The match is over" in spoken
    log = await text_of(page, "#log")
    assert "You (seat 0) played" in log and "finished" in log
    match = await site.running.service.load(match_id)
    assert match.over
    place = match.game.places()[0]
    assert f"You finished {['', '1st', '2nd'][place]}" in final


async def test_give_discard_bomb_and_joker_reading_by_keyboard(site: Site, page: Page) -> None:
    """The steps a play can ask for (seven-pass give, ten-discard, queen bomber)
    and a joker with two readings, in a position set up by hand; seat 1 passes
    over gRPC whenever it is its turn."""
    arranged = await arrange(
        site.running,
        site.client,
        "torasobi",
        ["4D 5D JK 7H TD QH 3C 4C KS KD", "3D 6D 9S 9H JC AC 2C 3S"],
        leader=0,
        options={"seven_pass": True, "ten_discard": True, "queen_bomber": True},
    )
    match_id, other = arranged.match_id, arranged.seats[1]
    token = arranged.seats[0].token
    await take_seat(page, site.base_url, match_id, token)

    async def play(cards: list[str]) -> None:
        await wait_my_turn(page)
        await select_cards(page, cards)
        await press_button(page, "#act-play")

    async def other_passes() -> None:
        await page.wait_for_selector("#seat-prompt[data-turn='no']")
        await other.pass_()

    # seven-pass: a 7 asks for one card to give
    await play(["7H"])
    await page.wait_for_selector("#act-give:not([hidden])[aria-disabled='false']")
    assert await page.locator("#act-play").is_hidden()
    assert "give 1 card" in await text_of(page, "#seat-prompt")
    await select_cards(page, ["3C"])
    await press_button(page, "#act-give")
    await page.wait_for_selector("#act-give", state="hidden")
    # the pressed button went away; the focus did not fall to the page's start
    assert await page.evaluate("document.activeElement.id") == "act-play"
    await other_passes()

    # ten-discard: a 10 asks for one card to discard
    await play(["TD"])
    await page.wait_for_selector("#act-discard:not([hidden])[aria-disabled='false']")
    await select_cards(page, ["4C"])
    await press_button(page, "#act-discard")
    await other_passes()

    # queen bomber: a Q asks for one rank; seat 1 loses its 9s
    await play(["QH"])
    await page.wait_for_selector("#bomb-ranks:not([hidden])")
    await focus_by_keyboard(page, "#bomb-ranks button[data-rank='9']")
    await page.keyboard.press("Space")
    assert await page.get_attribute("#bomb-ranks button[data-rank='9']", "aria-pressed") == "true"
    await press_button(page, "#act-bomb")
    await other_passes()

    # 4D 5D JK is 3-4-5 or 4-5-6: the page asks which, in a select
    await wait_my_turn(page)
    await select_cards(page, ["4D", "5D", "JK"])
    await page.wait_for_selector("#joker-choice:not([hidden])")
    options = await page.eval_on_selector_all(
        "#joker-select option", "(options) => options.map(o => o.textContent)"
    )
    assert sorted(options) == ["3 of diamonds", "6 of diamonds"]
    await focus_by_keyboard(page, "#joker-select")
    await page.keyboard.press("Home")
    if options[0] != "3 of diamonds":
        await page.keyboard.press("ArrowDown")
    await press_button(page, "#act-play")
    await page.wait_for_selector("#field[data-cards='4D 5D JK']")

    view = (await seat_state(page, site.base_url, match_id, token))["view"]
    assert view["field_jokers_as"] == ["3D"]
    assert view["hand"] == ["KD", "KS"]
    assert view["hand_sizes"][1] == 8 + 1 - 2  # got 3C, lost 9S 9H
    assert await page.get_attribute("#seats li[data-seat='1']", "data-count") == "7"
    assert "joker as 3 of diamonds" in await text_of(page, "#field-owner")
    log = await text_of(page, "#log")
    for said in (
        "You (seat 0) must give 1 card",
        "You (seat 0) gave 3 of clubs to Seat 1",
        "You (seat 0) discarded 4 of clubs",
        "You (seat 0) bombed 9",
        "joker as 3 of diamonds (stairs)",
    ):
        assert said in log, said
    assert not await page.locator("#refusal[data-code]").count()

    # the token lived in this tab's sessionStorage only, beside the seat's signed receipts;
    # leaving the seat forgets the token and keeps the receipts (the player's evidence)
    stored = await page.evaluate("Object.fromEntries(Object.entries(sessionStorage))")
    receipts = {key: value for key, value in stored.items() if key.startswith("daifugo:receipts:")}
    assert [value for key, value in stored.items() if key not in receipts] == [token]
    kept = json.loads(receipts[f"daifugo:receipts:{match_id}"])
    assert kept and all(receipt["signature"] for receipt in kept)
    assert await page.evaluate("localStorage.length") == 0
    await press_button(page, "#leave-seat")
    await press_button(page, "#leave-yes")  # leaving asks first
    await page.wait_for_selector("#token-form:not([hidden])")
    left = await page.evaluate("Object.keys(sessionStorage)")
    assert left == list(receipts) and token not in json.dumps(stored[left[0]])
    assert await page.locator("#play").is_hidden()
