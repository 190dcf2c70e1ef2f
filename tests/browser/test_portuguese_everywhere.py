"""Portuguese everywhere: every screen of each game, walked in pt-BR, shows no English.

A player seat is played by its clock (a short one) against a bot, so the table passes
through every phase of the game to the final scores; after each patch the page's
visible text (and the names of its controls) is checked against every English string
of the client and of the game content that the Portuguese strings do not also hold.
Names and proper nouns that both languages share are listed on purpose in ALLOWED.
"""

from __future__ import annotations

import asyncio

import pytest

from tests.browser.conftest import NewPage
from tests.browser.helpers import FINAL, table_url
from tests.support.server import LiveServer

pytestmark = [pytest.mark.browser, pytest.mark.timeout(150)]

# Proper nouns and words both languages write the same way.
ALLOWED = [
    "Rollhouse",
    "Rollie",
    "Roll Player",
    "Roll Builder",
    "Tidehaven",
    "Highcrag",
    "Ana",
    "Total",
    "Status",
]

# Collect English fragments once, then check the page after every change.
INSTALL = """async (allowed) => {
  const { DICTIONARIES } = await import('/js/i18n.js');
  const en = DICTIONARIES.en, pt = DICTIONARIES['pt-BR'];
  const ptText = Object.values(pt).join('\\n');
  const ok = new Set(allowed);
  const phrases = new Map();
  for (const [key, value] of Object.entries(en)) {
    if (pt[key] === value) continue;
    for (const part of value.split(/\\{\\w+\\}/)) {
      const p = part.trim().replace(/^[^\\p{L}]+|[^\\p{L}]+$/gu, '');
      if (p.length < 4 || ok.has(p) || ptText.includes(p) || !/[a-z]/.test(p)) continue;
      const esc = p.replace(/[.*+?^${}()|[\\]\\\\]/g, '\\\\$&');
      phrases.set(p, [key, new RegExp(`(^|[^\\\\p{L}])${esc}([^\\\\p{L}]|$)`, 'u')]);
    }
  }
  window.__english = {};
  const visible = (el) => el && el.checkVisibility ? el.checkVisibility() : true;
  window.__checkEnglish = (where) => {
    const texts = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n.parentElement;
      if (!el || el.closest('script, style, .mono, [data-testid=room-id]') || !visible(el)) continue;
      if (n.textContent.trim()) texts.push(n.textContent);
    }
    for (const el of document.querySelectorAll('[aria-label], [title], [placeholder]')) {
      if (!visible(el)) continue;
      for (const a of ['aria-label', 'title', 'placeholder']) if (el.getAttribute(a)) texts.push(el.getAttribute(a));
    }
    for (let text of texts) {
      for (const a of allowed) text = text.split(a).join(' ');
      for (const [p, [key, re]] of phrases) {
        if (re.test(text)) window.__english[`${p} | in "${text.slice(0, 90)}" | key ${key}`] = where;
      }
    }
  };
  return phrases.size;
}"""

HOOK = """() => {
  let queued = false;
  rollhouse.on('view', () => {
    if (queued) return;
    queued = true;
    setTimeout(() => { queued = false; window.__checkEnglish('table'); }, 30);
  });
}"""


async def install(page: object) -> None:
    size = await page.evaluate(INSTALL, ALLOWED)  # type: ignore[attr-defined]
    assert size > 100  # the checker knows the English strings


async def english_on(page: object) -> dict[str, str]:
    return await page.evaluate("window.__english")  # type: ignore[attr-defined, no-any-return]


async def test_the_lobby_and_rules_show_no_english(
    live_server: LiveServer, new_page: NewPage
) -> None:
    """The lobby (cards, filters, form of each game) in Portuguese holds no English."""
    await live_server.create_room("rollie", 2, room={"clock": 0, "bots": 1})
    page = await new_page("Ana", lang="pt-BR")
    await page.goto(live_server.url + "/")
    await page.get_by_test_id("play-bot-rollie").wait_for()
    await page.locator("[data-testid=rooms-body] tr").first.wait_for()
    await install(page)
    for game in ("rollie", "roll-player", "roll-builder"):
        await page.get_by_test_id("create-game").select_option(game)
        await page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
        await page.evaluate(f"window.__checkEnglish('lobby {game}')")
    assert await english_on(page) == {}


@pytest.mark.parametrize(
    ("game", "options"),
    [("rollie", {"rounds": 2}), ("roll-player", {}), ("roll-builder", {"visionaries": 3})],
)
async def test_every_screen_of_a_game_shows_no_english(
    live_server: LiveServer, new_page: NewPage, game: str, options: dict[str, object]
) -> None:
    """Played through by its clock against a bot, no screen of the game shows English."""
    room = (
        await live_server.create_room(
            game, 2, options=options, room={"clock": 0.3, "bots": 1, "bot_delay": 0}
        )
    )["room"]
    page = await new_page("Ana", lang="en")
    await page.goto(table_url(live_server.url, room))
    # a few lines are logged in English first: switching re-translates them too
    await page.wait_for_function(
        "document.querySelectorAll('[data-testid=event-log] li').length >= 3", timeout=30000
    )
    await page.get_by_test_id("lang-pt").click()
    await install(page)
    await page.evaluate("window.__checkEnglish('after the switch')")
    await page.evaluate(HOOK)
    await page.wait_for_selector(FINAL, timeout=120000)
    await page.wait_for_timeout(200)
    await page.evaluate("window.__checkEnglish('final')")
    found = await english_on(page)
    assert found == {}, "\n".join(sorted(found))


@pytest.mark.parametrize("lang", ["en", "pt-BR"])
async def test_the_replay_timeline_names_cards_and_dice_in_words(
    live_server: LiveServer, new_page: NewPage, lang: str
) -> None:
    """Log lines keep names as keys; the replay's timeline still reads them as words."""
    room = (
        await live_server.create_room(
            "roll-player", 2, room={"clock": 5, "bots": 2, "bot_delay": 0}
        )
    )["room"]
    for _ in range(500):
        if live_server.services.rooms.live[room].model.is_over:
            break
        await asyncio.sleep(0.02)
    page = await new_page("Ana", lang=lang)
    await page.goto(f"{live_server.url}/replay.html?room={room}")
    timeline = page.get_by_test_id("replay-timeline")
    await timeline.locator("li").nth(20).wait_for()
    text = await timeline.inner_text()
    assert "[object Object]" not in text
    assert ("Initiative" if lang == "en" else "Iniciativa") in text
