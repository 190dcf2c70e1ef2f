"""People at the table in the browser (issue 21): a private table through an invite
link, a stranger refused without it, chat in both languages, a host removing a
spectator, a signed-in player taking their seat back from a second browser mid-game,
quick match and "My games"; on a desktop and on a phone (390x844).

Every page plays as a guest made on its first visit (its own browser context, so its
own localStorage); names and chat lines are text, never HTML.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest

from tests.browser.conftest import NewPage
from tests.browser.helpers import my_seat, play_one, play_to_the_end
from tests.browser.test_accessibility import audit, require_axe
from tests.browser.test_portuguese_everywhere import english_on, install
from tests.support.server import LiveServer

pytestmark = [pytest.mark.browser, pytest.mark.timeout(150)]

PHONE = {"width": 390, "height": 844}
CONNECTED = "[data-testid=connection-status][data-state=connected]"
HOSTILE = '<img src=x onerror="window.__pwned=1">'
ENTITIES = "Tom & Jerry <3 — 1 > 0 &amp; &lt;b&gt;"


async def create_private(page: Any, base: str, seats: int = 2) -> str:
    """Create a private Rollie table from the lobby; the invite link it copies."""
    await page.goto(base + "/")
    await page.wait_for_selector("[data-testid=account-name]")
    await page.get_by_test_id("create-game").select_option("rollie")
    await page.get_by_test_id("create-seats").select_option(str(seats))
    await page.get_by_test_id("create-bots").select_option("0")
    await page.get_by_test_id("create-visibility").select_option("private")
    await page.get_by_test_id("create-spectator-chat").check()
    await page.get_by_test_id("create-submit").click()
    await page.wait_for_url(re.compile(r"table\.html\?room=.*invite="))
    await page.wait_for_selector(CONNECTED)
    room = await page.evaluate("window.rollhouse.room")
    await page.wait_for_selector("[data-testid=host-panel]:not([hidden]) [data-testid=host-lock]")
    return await copied_link(page, room)


async def copied_link(page: Any, room: str) -> str:
    """Press "Copy invite link" and read the clipboard: the link a host would send."""
    await page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    await page.evaluate("navigator.clipboard.writeText('')")
    await page.get_by_test_id("copy-invite").click()
    await page.wait_for_function("navigator.clipboard.readText().then(t => t.length > 0)")
    link = str(await page.evaluate("navigator.clipboard.readText()"))
    assert f"room={room}" in link and "invite=" in link
    return link


async def say(page: Any, text: str) -> None:
    await page.get_by_test_id("chat-input").fill(text)
    await page.get_by_test_id("chat-send").click()
    await page.wait_for_function("window.rollhouse.pending.size === 0")


async def chat_texts(page: Any, channel: str = "players") -> list[str]:
    return list(
        await page.eval_on_selector_all(
            f"[data-testid=chat-{channel}] [data-testid=chat-text]",
            "els => els.map(e => e.textContent)",
        )
    )


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
async def test_a_private_table_through_an_invite_link(
    live_server: LiveServer, new_page: NewPage, viewport: str
) -> None:
    """Ana (EN) makes a private table; Bruno (PT) joins from the link; a stranger's page
    without the code is told the room does not exist; they chat in both languages, the
    lines shown as text; the host removes a spectator who spoke up; both play."""
    ana = await new_page("Ana", lang="en")
    bruno = await new_page("Bruno", lang="pt-BR", locale="pt-BR")
    if viewport == "phone":
        await ana.set_viewport_size(PHONE)
        await bruno.set_viewport_size(PHONE)
    base = live_server.url
    link = await create_private(ana, base)
    room = link.split("room=")[1].split("&")[0]

    # the room is not in the lobby's list, even for its host
    listed = await ana.evaluate("fetch('/api/rooms').then(r => r.json())")
    assert room not in [r["room"] for r in listed["rooms"]]

    # a stranger with the room's id and no code: "not found", as for no room at all
    stranger = await new_page("Eve")
    await stranger.goto(f"{base}/table.html?room={room}")
    fatal = stranger.get_by_test_id("fatal-message")
    await fatal.wait_for(state="visible")
    await stranger.wait_for_selector("[data-testid=connection-status][data-state=closed]")
    assert await stranger.evaluate("window.rollhouse.view") is None
    await stranger.goto(f"{base}/table.html?room={room}&watch=1")
    await fatal.wait_for(state="visible")
    assert await stranger.evaluate("window.rollhouse.view") is None

    # Bruno joins from the link and takes the other seat: the game starts
    await bruno.goto(link)
    await bruno.wait_for_selector(CONNECTED)
    assert await my_seat(bruno) == 1
    assert await my_seat(ana) == 0
    await ana.wait_for_function("window.rollhouse.view.room.status === 'playing'")

    # chat in both languages; text that looks like markup stays text
    await say(ana, "Good luck, Bruno!")
    await say(bruno, "Boa sorte! Vamos jogar 🎲")
    await say(ana, ENTITIES)
    await bruno.wait_for_function(
        "document.querySelectorAll('[data-testid=chat-players] [data-testid=chat-text]').length === 3"
    )
    assert await chat_texts(bruno) == ["Good luck, Bruno!", "Boa sorte! Vamos jogar 🎲", ENTITIES]
    # an HTML tag is refused by the server (chat/bad_text), told in the page's language
    await say(ana, HOSTILE)
    error = ana.get_by_test_id("chat-error")
    await error.wait_for(state="visible")
    assert await error.get_attribute("data-code") == "chat/bad_text"
    assert await ana.evaluate("window.__pwned") is None
    assert await bruno.locator("[data-testid=chat] img").count() == 0
    # the chat speaks the page's language
    assert await bruno.get_by_test_id("chat-send").text_content() == "Enviar"
    assert await ana.get_by_test_id("chat-send").text_content() == "Send"
    # a line over 500 characters is refused, translated, and changes nothing
    await bruno.get_by_test_id("chat-input").fill("x" * 501)
    await bruno.evaluate(
        "document.querySelector('[data-testid=chat-input]').removeAttribute('maxlength')"
    )
    await bruno.get_by_test_id("chat-input").fill("x" * 501)
    await bruno.get_by_test_id("chat-send").click()
    error = bruno.get_by_test_id("chat-error")
    await error.wait_for(state="visible")
    assert await error.get_attribute("data-code") == "chat/bad_text"
    assert "caracteres" in (await error.text_content() or "")
    assert len(await chat_texts(ana)) == 3

    # the host hides a line: it leaves every view
    seq = await ana.evaluate("rollhouse.view.chat.players[2].seq")
    await ana.get_by_test_id(f"chat-hide-{seq}").wait_for(state="hidden")  # her own line
    bruno_seq = await ana.evaluate("rollhouse.view.chat.players[1].seq")
    await ana.get_by_test_id(f"chat-hide-{bruno_seq}").click()
    await bruno.wait_for_function(
        "document.querySelectorAll('[data-testid=chat-players] [data-testid=chat-text]').length === 2"
    )
    assert "Boa sorte! Vamos jogar 🎲" not in await chat_texts(bruno)

    if viewport == "phone":  # the host's panel and the chat fit the phone: no sideways scroll
        for page in (ana, bruno):
            assert await page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]

    # both play a few moves, at once: whoever the game awaits first moves first (one after
    # the other, the first page waited for its turn until the room's clock moved the game)
    async def a_move(page: Any) -> None:
        seat = await my_seat(page)
        for _ in range(3):
            move = await play_one(page, seat)
            if move in ("roll", "take", "secure"):
                break

    await asyncio.gather(a_move(ana), a_move(bruno))


async def test_a_host_removes_a_spectator(live_server: LiveServer, new_page: NewPage) -> None:
    """Before the game starts, a spectator with the link speaks up; the host removes
    them from their chat line: their page says so (PT), and the link opens nothing for
    them any more."""
    ana = await new_page("Ana", lang="en")
    link = await create_private(ana, live_server.url, seats=3)
    carla = await new_page("Carla", lang="pt-BR", locale="pt-BR")
    await carla.goto(link + "&watch=1")
    await carla.wait_for_selector(CONNECTED)
    assert await carla.evaluate("rollhouse.role") == "spectator"
    await say(carla, "Oi, posso assistir?")
    await ana.wait_for_selector("[data-testid=chat-players] [data-testid=chat-text]")
    assert await chat_texts(ana) == ["Oi, posso assistir?"]
    seq = await ana.evaluate("rollhouse.view.chat.players[0].seq")
    await ana.get_by_test_id(f"chat-remove-{seq}").click()
    fatal = carla.get_by_test_id("fatal-message")
    await fatal.wait_for(state="visible")
    assert "removeu" in (await fatal.text_content() or "")
    await carla.wait_for_selector("[data-testid=connection-status][data-state=closed]")
    # the same link, the same player: refused again
    await carla.goto(link)
    await fatal.wait_for(state="visible")
    assert await carla.evaluate("window.rollhouse.seat") is None
    # and the host's panel still shows a free seat
    assert await ana.evaluate("rollhouse.view.room.seats[1].taken") is False

    # removing her revoked the code she came with: the host issues a new link; the old
    # one opens nothing for a newcomer, the new one does
    room = link.split("room=")[1].split("&")[0]
    await ana.get_by_test_id("host-new-invite").click()
    await ana.get_by_test_id("host-message").wait_for()
    fresh = await copied_link(ana, room)
    assert fresh != link
    dan = await new_page("Dan")
    await dan.goto(link)
    await dan.get_by_test_id("fatal-message").wait_for(state="visible")
    assert await dan.evaluate("window.rollhouse.view") is None

    # the host locks the seats: a newcomer with the right link is told, and may watch
    await ana.get_by_test_id("host-lock").click()
    await ana.get_by_test_id("host-unlock").wait_for()
    await dan.goto(fresh)
    await dan.get_by_test_id("watch-instead").click()
    await dan.wait_for_selector(CONNECTED)
    assert await dan.evaluate("rollhouse.role") == "spectator"
    # unlocked, Dan may sit down; the host hands the role to Dan, who fills the last seat
    # with a bot: the game starts
    await ana.get_by_test_id("host-unlock").click()
    await ana.get_by_test_id("host-lock").wait_for()
    await dan.goto(fresh)
    await dan.wait_for_selector(CONNECTED)
    assert await my_seat(dan) == 1
    await ana.wait_for_function("rollhouse.view.room.seats[1].taken === true")
    await ana.get_by_test_id("host-give-1").click()  # the host role goes to Dan
    await dan.wait_for_selector("[data-testid=host-panel] [data-testid=host-lock]")
    await ana.get_by_test_id("host-name").wait_for()
    await dan.get_by_test_id("host-fill").click()
    await ana.wait_for_function("rollhouse.view.room.status === 'playing'")
    await dan.get_by_test_id("host-panel").get_by_text("The game has begun", exact=False).wait_for()


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
async def test_a_signed_in_player_takes_their_seat_back_on_a_second_browser(
    live_server: LiveServer, new_page: NewPage, browser: Any, viewport: str
) -> None:
    """Ana keeps her guest account (username and password) from the lobby, plays a
    bot mid-game, then signs in on a second browser context (no seat token there) and
    opens the table: she has her seat back; "My games" lists the room on both."""
    ana = await new_page("Ana", lang="pt-BR", locale="pt-BR")
    if viewport == "phone":
        await ana.set_viewport_size(PHONE)
    base = live_server.url
    await ana.goto(base + "/")
    await ana.wait_for_selector("[data-testid=account-name]")
    await ana.get_by_test_id("show-register").click()
    await ana.get_by_test_id("register-username").fill("ana.b")
    await ana.get_by_test_id("register-password").fill("correct horse battery")
    await ana.get_by_test_id("register-submit").click()
    await ana.wait_for_selector("[data-testid=signout-all]")
    who = await ana.get_by_test_id("account-who").text_content() or ""
    assert "ana.b" in who and "Conectado como" in who  # the account panel speaks Portuguese
    assert await ana.locator("#mygames-title").text_content() == "Meus jogos"
    assert await ana.get_by_test_id("match-rollie").text_content() == "Partida rápida"
    # play against a bot from the lobby, a few moves in
    await ana.get_by_test_id("play-bot-rollie").click()
    await ana.wait_for_url(re.compile(r"table\.html\?room="))
    seat = await my_seat(ana)
    room = await ana.evaluate("rollhouse.room")
    await ana.wait_for_function("rollhouse.view.room.status === 'playing'")
    for _ in range(6):
        await play_one(ana, seat)
        await ana.wait_for_function("window.rollhouse.pending.size === 0")
    seq_before = await ana.evaluate("rollhouse.seq")

    other = await new_page(None, lang="pt-BR", locale="pt-BR")
    if viewport == "phone":
        await other.set_viewport_size(PHONE)
    await other.goto(base + "/")
    await other.wait_for_selector("[data-testid=account-who]")
    await other.get_by_test_id("show-signin").click()
    await other.get_by_test_id("signin-username").fill("ana.b")
    await other.get_by_test_id("signin-password").fill("correct horse battery")
    await other.get_by_test_id("signin-submit").click()
    await other.wait_for_selector("[data-testid=signout-all]")
    # My games lists the room, and resumes it
    resume = other.get_by_test_id(f"mygame-resume-{room}")
    await resume.wait_for()
    assert await other.evaluate(f"localStorage.getItem('rollhouse.seat.{room}')") is None
    await resume.click()
    await other.wait_for_selector(CONNECTED)
    assert await my_seat(other) == seat
    assert await other.evaluate("rollhouse.role") == "player"
    assert await other.evaluate("rollhouse.seq") >= seq_before
    # the first browser was replaced by the second: only one connection holds the seat
    await ana.get_by_test_id("fatal-message").wait_for(state="visible")
    move = await play_one(other, seat)
    assert move in ("roll", "take", "secure", "over", "missed")


async def test_quick_match_seats_two_browsers_at_one_table(
    live_server: LiveServer, new_page: NewPage
) -> None:
    """Two guests press "Quick match" for Rollie in the lobby: the same room, two seats."""
    pages = [await new_page("Ana"), await new_page("Bruno", lang="pt-BR", locale="pt-BR")]
    rooms, seats = [], []
    for page in pages:
        await page.goto(live_server.url + "/")
        await page.wait_for_selector("[data-testid=account-name]")
    # a new name in the lobby's field is the player's display name (PATCH /api/me)
    await pages[0].get_by_test_id("player-name").fill("Ana Maria")
    await pages[0].get_by_test_id("player-name").dispatch_event("change")
    await pages[0].wait_for_function(
        "document.querySelector('[data-testid=account-name]').textContent === 'Ana Maria'"
    )
    # a name with a bidi override is refused (player/bad_name), said in the panel; nothing changes
    await pages[0].get_by_test_id("player-name").fill("Ana\u202eairaM")
    await pages[0].get_by_test_id("player-name").dispatch_event("change")
    await pages[0].get_by_test_id("account-error").wait_for()
    assert await pages[0].get_by_test_id("account-name").text_content() == "Ana Maria"
    for page in pages:
        await page.get_by_test_id("match-rollie").click()
        await page.wait_for_url(re.compile(r"table\.html\?room="))
        seats.append(await my_seat(page))
        rooms.append(await page.evaluate("rollhouse.room"))
    assert rooms[0] == rooms[1]
    assert len(set(seats)) == 2
    names = await pages[1].evaluate("rollhouse.view.room.seats.map(s => s.name)")
    assert "Ana Maria" in names and "Bruno" in names


async def test_my_games_lists_a_finished_private_game_and_replays_it(
    live_server: LiveServer, new_page: NewPage
) -> None:
    """A private game against a bot, played to the end: "My games" shows it finished with
    its scores, and its replay opens (the history of a private room, read with the session)."""
    ana = await new_page("Ana")
    await ana.goto(live_server.url + "/")
    await ana.wait_for_selector("[data-testid=account-name]")
    room = await ana.evaluate(
        """fetch('/api/rooms', {method: 'POST', headers: {'content-type': 'application/json',
             authorization: 'Bearer ' + localStorage.getItem('rollhouse.session')},
           body: JSON.stringify({game: 'rollie', seats: 2, options: {rounds: 1},
             room: {visibility: 'private', bots: 1, bot_delay: 0, clock: 0}})})
         .then(r => r.json()).then(d => d.room)"""
    )
    await ana.goto(f"{live_server.url}/table.html?room={room}")
    await play_to_the_end(ana, [])
    await ana.goto(live_server.url + "/")
    item = ana.get_by_test_id(f"mygame-{room}")
    await item.wait_for()
    assert await item.get_attribute("data-status") == "finished"
    assert "Scores:" in (await ana.get_by_test_id(f"mygame-result-{room}").text_content() or "")
    await ana.get_by_test_id(f"mygame-replay-{room}").click()
    await ana.wait_for_selector("[data-testid=replay-timeline] li")
    assert await ana.get_by_test_id("fatal-message").is_hidden()
    # a stranger's replay page of the same room: nothing to see
    eve = await new_page("Eve")
    await eve.goto(f"{live_server.url}/replay.html?room={room}")
    await eve.wait_for_timeout(500)
    assert await eve.locator("[data-testid=replay-timeline] li").count() == 0


async def test_a_host_removes_a_seated_player_who_cannot_come_back(
    live_server: LiveServer, new_page: NewPage
) -> None:
    """Before the start, the host removes the player in seat 2: their page says so, the
    seat is free, and neither their seat token nor their session opens the room again."""
    ana = await new_page("Ana", lang="pt-BR", locale="pt-BR")
    link = await create_private(ana, live_server.url, seats=3)
    bruno = await new_page("Bruno")
    await bruno.goto(link)
    assert await my_seat(bruno) == 1
    remove = ana.get_by_test_id("host-remove-1")
    await remove.wait_for()
    assert await remove.text_content() == "Remover"
    await remove.click()
    fatal = bruno.get_by_test_id("fatal-message")
    await fatal.wait_for(state="visible")
    assert "removed you" in (await fatal.text_content() or "")
    await ana.wait_for_function("rollhouse.view.room.seats[1].taken === false")
    await bruno.reload()
    await fatal.wait_for(state="visible")
    assert await bruno.evaluate("window.rollhouse.view") is None
    assert await bruno.evaluate("window.rollhouse.seat") is None


async def test_the_people_panels_show_no_english_in_portuguese(
    live_server: LiveServer, new_page: NewPage
) -> None:
    """In pt-BR: the account panel and its forms, the host's panel, the chat of players and
    of spectators, the waiting room of a private table, a locked table's message."""
    ana = await new_page("Ana", lang="pt-BR", locale="pt-BR")
    await ana.goto(live_server.url + "/")
    await ana.wait_for_selector("[data-testid=account-name]")
    await install(ana)
    for form in ("show-register", "show-signin"):
        await ana.get_by_test_id(form).click()
        await ana.evaluate(f"window.__checkEnglish('lobby {form}')")
    assert await english_on(ana) == {}
    link = await create_private(ana, live_server.url, seats=3)
    carla = await new_page("Carla", lang="pt-BR", locale="pt-BR")
    await carla.goto(link + "&watch=1")
    await carla.wait_for_selector(CONNECTED)
    await say(carla, "Oi!")
    await ana.wait_for_selector("[data-testid=chat-players] [data-testid=chat-text]")
    await ana.get_by_test_id("host-lock").click()
    await ana.get_by_test_id("host-unlock").wait_for()
    dan = await new_page("Dan", lang="pt-BR", locale="pt-BR")
    await dan.goto(link)
    await dan.get_by_test_id("watch-instead").wait_for()
    for page, where in ((ana, "host"), (carla, "spectator"), (dan, "locked")):
        await install(page)
        await page.evaluate(f"window.__checkEnglish('{where}')")
        found = await english_on(page)
        assert found == {}, "\n".join(sorted(found))


async def test_a_name_typed_just_before_playing_is_the_seats_name(
    live_server: LiveServer, new_page: NewPage
) -> None:
    """A guest types a name in the lobby and at once plays a bot: the seat carries it."""
    page = await new_page(None)
    await page.goto(live_server.url + "/")
    await page.wait_for_selector("[data-testid=account-name]")
    assert (await page.get_by_test_id("account-name").text_content() or "").startswith("Guest")
    await page.get_by_test_id("player-name").fill("Zoë")
    await page.get_by_test_id("play-bot-rollie").click()
    await page.wait_for_url(re.compile(r"table\.html\?room="))
    seat = await my_seat(page)
    await page.wait_for_function(f"rollhouse.view.room.seats[{seat}].name === 'Zoë'")


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
async def test_the_people_panels_have_no_serious_accessibility_violation(
    live_server: LiveServer, new_page: NewPage, viewport: str
) -> None:
    """axe-core (as test_accessibility.py runs it) over the account forms, the host's
    table with its panel and chat, and a spectator's view of both channels."""
    require_axe()
    found: dict[str, list[dict[str, Any]]] = {}
    ana = await new_page("Ana")
    carla = await new_page("Carla", lang="pt-BR", locale="pt-BR")
    if viewport == "phone":
        await ana.set_viewport_size(PHONE)
        await carla.set_viewport_size(PHONE)
    await ana.goto(live_server.url + "/")
    await ana.wait_for_selector("[data-testid=account-name]")
    await ana.get_by_test_id("show-register").click()
    await audit(ana, f"account form ({viewport})", found)
    link = await create_private(ana, live_server.url, seats=3)
    await carla.goto(link + "&watch=1")
    await carla.wait_for_selector(CONNECTED)
    await say(carla, "Oi!")
    await say(ana, "Hello!")
    await ana.wait_for_function(
        "document.querySelectorAll('[data-testid=chat-players] [data-testid=chat-text]').length === 2"
    )
    await audit(ana, f"host's table ({viewport})", found)
    await audit(carla, f"spectator's table ({viewport})", found)
    blocking = [
        f"{where}: {v['impact']} {v['id']} ({v['help']}) x{v['count']}: {v['nodes']}"
        for where, violations in found.items()
        for v in violations
        if v["impact"] in ("serious", "critical")
    ]
    assert not blocking, "\n".join(blocking)
