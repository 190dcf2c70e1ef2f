"""js/games/rollie.js describe(): the log lines and banners a patch's events give."""

from __future__ import annotations

from typing import Any

import pytest
import pytest_asyncio

from tests.browser.conftest import NewPage
from tests.support.server import LiveServer

pytestmark = [pytest.mark.browser, pytest.mark.timeout(30)]

# Builds two-seat views (Ana, Bruno) and runs describe() on them in the page.
DESCRIBE = """async ([before, after, events]) => {
  const { default: rollie } = await import('/js/games/rollie.js');
  const { t } = await import('/js/i18n.js');
  const bills = (b = {}) => ({"-5": 0, "0": 0, "2": 0, "5": 0, "10": 0, ...b});
  const seat = (s, x = {}) => {
    const row = {seat: s, bet: bills(x.bet), wallet: bills(x.wallet), start_tokens: [],
                 in_play: true, decided: false, ...x};
    row.bet = bills(x.bet); row.wallet = bills(x.wallet);
    const worth = (c) => Object.entries(c).reduce((n, [v, k]) => n + Number(v) * k, 0);
    row.bet_total = worth(row.bet); row.wallet_total = worth(row.wallet);
    return row;
  };
  const view = (g) => ({game: {phase: "deciding", round: 1, first_player: 0, dice: [2, 5],
    values: [-5, 0, 2, 5, 10], bank: bills({"-5": 30, "0": 30, "2": 30, "5": 30, "10": 30}),
    exhausted: [], face_up_tokens: [], face_down_tokens: 3, awaiting: [], result: null,
    ...g, seats: g.seats.map((x, s) => seat(s, x))}});
  const ctx = {seatName: (s) => ["Ana", "Bruno"][s], ui: {}};
  return rollie.describe(view(before), view(after), events, ctx).map((l) => ({
    text: t(l.key, l.params), banner: !!l.banner, kind: l.kind,
    also: l.also ? t(l.also.key, l.also.params) : null}));
}"""


async def describe(page: Any, before: dict, after: dict, events: list[str]) -> list[dict]:  # type: ignore[type-arg]
    return await page.evaluate(DESCRIBE, [before, after, events])  # type: ignore[no-any-return]


@pytest_asyncio.fixture(loop_scope="module")
async def page(live_server: LiveServer, new_page: NewPage) -> Any:
    page = await new_page(None)
    await page.goto(live_server.url + "/")
    return page


async def test_secure_of_an_empty_bet_that_ends_the_round_is_logged(page: Any) -> None:
    """The last decider securing nothing is still named, though no holding changed."""
    before = {"awaiting": [1], "seats": [{"in_play": False, "decided": True}, {}]}
    after = {"phase": "rolling", "round": 2, "first_player": 1, "awaiting": [1],
             "face_up_tokens": [4], "seats": [{}, {}]}  # fmt: skip
    lines = await describe(page, before, after, ["secured", "round_ended", "round_started"])
    texts = [line["text"] for line in lines]
    assert texts == [
        "Bruno secured 0.",
        "Round 1 is over.",
        "Round 2 begins: Start token 4 is turned up.",
    ]
    assert [line["banner"] for line in lines] == [False, False, True]


async def test_a_rollie_names_who_crashes_and_who_stays(page: Any) -> None:
    """Double 5: the Bet holding a 5 crashes, the Bet without one stays; one banner."""
    before = {"phase": "rolling", "dice": [2, 5], "awaiting": [0],
              "seats": [{"bet": {"5": 1, "2": 1}}, {"bet": {"2": 2}}]}  # fmt: skip
    after = {"phase": "rolling", "round": 2, "first_player": 1, "dice": [5, 5],
             "awaiting": [1], "face_up_tokens": [3], "seats": [{}, {"bet": {"2": 2}}]}  # fmt: skip
    events = ["rolled", "rollie", "crash", "round_ended", "round_started"]
    lines = await describe(page, before, after, events)
    assert lines[0]["text"] == "Ana rolled 5 and 5."
    rollie = lines[1]
    assert rollie["text"] == "Rollie! Double 5!" and rollie["banner"] and rollie["kind"] == "rollie"
    assert rollie["also"] == "Crash! Ana loses the Bet."
    assert lines[2]["text"] == "Crash! Ana loses the Bet."
    assert [line["banner"] for line in lines] == [False, True, False, False, False]


async def test_takes_and_secures_with_a_token_are_logged_per_seat(page: Any) -> None:
    """A take names the bill; a secure names the amount and the Start token taken."""
    before = {"awaiting": [0, 1], "face_up_tokens": [6], "seats": [{"bet": {"10": 1}}, {}]}
    after = {"awaiting": [1], "seats": [{"wallet": {"10": 1}, "start_tokens": [6],
             "in_play": False, "decided": True}, {}]}  # fmt: skip
    lines = await describe(page, before, after, ["secured"])
    assert [line["text"] for line in lines] == ["Ana secured 10 and Start token 6."]
    after = {"awaiting": [0], "seats": [{"bet": {"10": 1}}, {"bet": {"-5": 1}, "decided": True}]}
    lines = await describe(page, before, after, ["took"])
    # the page writes values with a true minus sign
    assert [line["text"] for line in lines] == ["Bruno took a \u22125."]
