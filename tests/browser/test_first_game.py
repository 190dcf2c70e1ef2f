"""Issue 24, a first game that teaches: "Learn as you play" starts a Rollie game against
a bot where the table says what to do now and why, points at the control, in English
and in Portuguese, and can be hidden."""

from __future__ import annotations

import pytest

from tests.browser.conftest import NewPage
from tests.browser.helpers import ACTIONABLE, my_seat, play_one

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]


@pytest.mark.parametrize(
    ("lang", "roll", "take"),
    [("en", "press Roll", "tap a die"), ("pt-BR", "aperte Rolar", "toque num dado")],
)
async def test_learn_as_you_play(
    live_server: object, new_page: NewPage, lang: str, roll: str, take: str
) -> None:
    page = await new_page("Ana", lang=lang)
    await page.goto(live_server.url + "/")  # type: ignore[attr-defined]
    await page.get_by_test_id("learn-rollie").click()
    await page.wait_for_url("**/table.html?room=*&learn=1")
    seat = await my_seat(page)
    coach = page.get_by_test_id("coach-now")
    await coach.wait_for()
    said: set[str] = set()
    for _ in range(12):
        await page.wait_for_selector(ACTIONABLE, timeout=30000)  # the player's move
        text = await coach.inner_text()
        said.add(text)
        if roll in text:  # the Roll button is what it points at
            assert await page.locator("[data-testid=roll-button].coach-target").count() == 1
        if take in text:
            assert await page.locator(".die.takeable.coach-target").count() >= 1
        if any(roll in s for s in said) and any(take in s for s in said):
            break
        await play_one(page, seat)
        await page.wait_for_function("window.rollhouse.pending.size === 0")
    assert any(roll in s for s in said) or any(take in s for s in said), said
    await page.get_by_test_id("coach-hide").click()
    assert await page.get_by_test_id("coach").count() == 0
