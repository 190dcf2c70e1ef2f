"""Players and sessions over HTTP: guests, names, credentials, signing in and out,
expiry, the limits on guessing, and a player's rooms."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from server.config import Settings
from server.people.passwords import Passwords
from tests.support.people import CHEAP, Clock
from tests.support.server import LiveServer, serve

DAY = 86_400.0
PASSWORD = "correct horse battery"


class CountingPasswords(Passwords):
    """Passwords that count the argon2 verifications they run."""

    def __init__(self, cost: tuple[int, ...]) -> None:
        super().__init__(cost)
        self.checks = 0

    def _check(self, stored: str, password: str) -> bool:
        self.checks += 1
        return super()._check(stored, password)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def settings() -> Settings:
    return Settings(store_url="memory://", password_cost=CHEAP)


@pytest.fixture
async def server(settings: Settings, clock: Clock) -> AsyncIterator[LiveServer]:
    async with serve(settings) as live:
        live.services.people.clock = clock
        yield live


@pytest.fixture
async def http(server: LiveServer) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=server.url, timeout=10) as client:
        yield client


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def error(reply: httpx.Response) -> str:
    return str(reply.json()["error"]["code"])


async def guest(http: httpx.AsyncClient, **body: Any) -> dict[str, Any]:
    reply = await http.post("/api/players", json=body)
    assert reply.status_code == 201, reply.text
    return reply.json()  # type: ignore[no-any-return]


async def registered(http: httpx.AsyncClient, username: str = "ana") -> dict[str, Any]:
    made = await guest(http, name="Ana")
    reply = await http.post(
        "/api/me/credentials",
        json={"username": username, "password": PASSWORD},
        headers=auth(made["session"]),
    )
    assert reply.status_code == 200, reply.text
    return made


async def sign_in(http: httpx.AsyncClient, username: str, password: str) -> httpx.Response:
    return await http.post("/api/sessions", json={"username": username, "password": password})


async def metric(http: httpx.AsyncClient, series: str) -> float:
    text = (await http.get("/metrics")).text
    found = re.search(rf"^{re.escape(series)} (\S+)$", text, re.M)
    return float(found[1]) if found else 0.0


# --- guests and names ---


async def test_a_guest_gets_a_player_and_a_session(http: httpx.AsyncClient) -> None:
    """POST /api/players makes a guest with a 256-bit session token, which GET /api/me reads."""
    reply = await http.post("/api/players", json={})
    assert reply.status_code == 201
    assert reply.headers["cache-control"] == "no-store"
    body = reply.json()
    player = body["player"]
    assert re.fullmatch(r"p-[0-9a-f]{16}", player["id"])
    assert player["name"] == f"Guest {player['id'][2:6]}"
    assert player["username"] is None
    assert re.fullmatch(rf"{player['id']}\.[A-Za-z0-9_-]{{43}}", body["session"])
    assert body["expires_in"] == 30 * 86_400
    me = await http.get("/api/me", headers=auth(body["session"]))
    assert me.status_code == 200
    assert me.json() == {"player": player}


NO_SESSION = [
    None,
    "Bearer nonsense",
    "Bearer p-0123456789abcdef." + "A" * 43,  # the shape of a token, of nobody
    "Basic dXNlcjpwYXNz",
    "Bearer",
]


async def test_no_live_session_is_401(http: httpx.AsyncClient) -> None:
    """No session, a malformed or unknown one: 401 player/unauthorized, WWW-Authenticate: Bearer."""
    for header in NO_SESSION:
        headers = {} if header is None else {"Authorization": header}
        reply = await http.get("/api/me", headers=headers)
        assert (reply.status_code, error(reply)) == (401, "player/unauthorized"), header
        assert reply.headers["www-authenticate"] == "Bearer"


async def test_a_guest_may_bring_a_name(http: httpx.AsyncClient) -> None:
    """A guest's name is normalised (NFKC, ends trimmed)."""
    made = await guest(http, name="  \uff21\uff4e\uff41 ")  # fullwidth "Ana"
    assert made["player"]["name"] == "Ana"


async def test_rename(http: httpx.AsyncClient) -> None:
    """PATCH /api/me renames the session's player; GET /api/me shows it."""
    made = await guest(http)
    reply = await http.patch("/api/me", json={"name": "Bia"}, headers=auth(made["session"]))
    assert reply.status_code == 200
    assert reply.json()["player"] == {**made["player"], "name": "Bia"}
    assert (await http.get("/api/me", headers=auth(made["session"]))).json()["player"][
        "name"
    ] == "Bia"


BAD_NAMES = [
    "",
    "   ",
    "x" * 33,
    "x" * 10_000,  # a 10 kB name
    "An\u202ea",  # right-to-left override
    "\u202eevil.exe",
    "An\u2066a",  # a bidi isolate
    "A\u200bna",  # zero-width space
    "A\u200dna",  # zero-width joiner
    "\ufeffAna",
    "An\x00a",
    "<b>An\u200ba</b>",  # markup hiding a zero-width space
    "<script>\n</script>",  # two lines
    42,
    None,
    ["Ana"],
]


async def test_a_bad_name_changes_nothing(http: httpx.AsyncClient) -> None:
    """Renaming to a bad name: 400 player/bad_name, field name; the name stays."""
    made = await guest(http, name="Ana")
    headers = {**auth(made["session"]), "Content-Type": "application/json"}
    for name in BAD_NAMES:
        reply = await http.patch("/api/me", content=json.dumps({"name": name}), headers=headers)
        assert (reply.status_code, error(reply)) == (400, "player/bad_name"), name
        assert reply.json()["error"]["field"] == "name"
    assert (await http.get("/api/me", headers=auth(made["session"]))).json()["player"][
        "name"
    ] == "Ana"


async def test_a_bad_name_makes_no_guest(http: httpx.AsyncClient) -> None:
    """A new guest with a bad name: 400 player/bad_name, and no session given."""
    for name in BAD_NAMES:
        if name is None:
            continue  # no name: a guest named "Guest xxxx"
        reply = await http.post("/api/players", content=json.dumps({"name": name}))
        assert (reply.status_code, error(reply)) == (400, "player/bad_name"), name
        assert "session" not in reply.json()


async def test_markup_in_a_name_is_refused(http: httpx.AsyncClient) -> None:
    """A name with markup gets player/bad_name and changes nothing (no guest is made, a
    rename keeps the old name); names are served as JSON strings only."""
    reply = await http.post("/api/players", json={"name": "<img src=x onerror=alert(1)>"})
    assert (reply.status_code, error(reply)) == (400, "player/bad_name")
    made = await guest(http, name="Ana")
    renamed = await http.patch(
        "/api/me", json={"name": "<b>Ana</b>"}, headers=auth(made["session"])
    )
    assert (renamed.status_code, error(renamed)) == (400, "player/bad_name")
    me = await http.get("/api/me", headers=auth(made["session"]))
    assert me.headers["content-type"] == "application/json"
    assert me.json()["player"]["name"] == "Ana"


BAD_BODIES = [
    (b'{"name": "\xff\xfe"}', "http/bad_json", 400),  # invalid UTF-8
    (b"\xc3\x28", "http/bad_json", 400),
    (b'{"name": "\\ud800"}', "protocol/bad_field", 400),  # a lone surrogate: not plain data
    (b"[]", "http/bad_json", 400),
    (b'{"name": "Ana", "admin": true}', "http/bad_json", 400),
    (b'{"name": "' + b"x" * 70_000 + b'"}', "http/too_large", 413),
]


async def test_bad_bodies_change_nothing(http: httpx.AsyncClient) -> None:
    """Invalid UTF-8, not plain data, not an object, an unknown field, over 64 KiB:
    refused with their codes; the name stays and no guest is made."""
    made = await guest(http, name="Ana")
    for body, code, status in BAD_BODIES:
        for method, path in (("PATCH", "/api/me"), ("POST", "/api/players")):
            reply = await http.request(method, path, content=body, headers=auth(made["session"]))
            assert (reply.status_code, error(reply)) == (status, code), (path, body[:40])
    assert (await http.get("/api/me", headers=auth(made["session"]))).json()["player"][
        "name"
    ] == "Ana"


# --- credentials and signing in ---


async def test_sign_in_on_a_second_device(http: httpx.AsyncClient) -> None:
    """A guest adds a username and password, then signs in elsewhere as the same player."""
    made = await guest(http, name="Ana")
    reply = await http.post(
        "/api/me/credentials",
        json={"username": "Ana.B", "password": PASSWORD},
        headers=auth(made["session"]),
    )
    assert reply.status_code == 200
    assert reply.json()["player"] == {**made["player"], "username": "ana.b"}
    second = await sign_in(http, "ANA.B", PASSWORD)
    assert second.status_code == 201
    assert second.json()["player"]["id"] == made["player"]["id"]
    assert second.json()["session"] != made["session"]
    for token in (made["session"], second.json()["session"]):
        me = await http.get("/api/me", headers=auth(token))
        assert me.json()["player"]["username"] == "ana.b"


BAD_CREDENTIALS: list[tuple[dict[str, Any], str]] = [
    ({"username": "ab", "password": PASSWORD}, "player/bad_username"),
    ({"username": "a" * 33, "password": PASSWORD}, "player/bad_username"),
    ({"username": "ana b", "password": PASSWORD}, "player/bad_username"),
    ({"username": "\u0430na", "password": PASSWORD}, "player/bad_username"),  # Cyrillic a
    ({"username": "\u212aate", "password": PASSWORD}, "player/bad_username"),  # Kelvin sign
    ({"username": 5, "password": PASSWORD}, "player/bad_username"),
    ({"password": PASSWORD}, "player/bad_username"),
    ({"username": "ana", "password": "short"}, "player/bad_password"),
    ({"username": "ana", "password": "x" * 257}, "player/bad_password"),
    ({"username": "ana", "password": None}, "player/bad_password"),
]


async def test_bad_credentials_are_refused(http: httpx.AsyncClient) -> None:
    """Usernames are 3-32 of a-z 0-9 . _ -; passwords 10-256 characters; 400, nothing
    kept, at sign-in too."""
    made = await guest(http)
    for body, code in BAD_CREDENTIALS:
        reply = await http.post("/api/me/credentials", json=body, headers=auth(made["session"]))
        assert (reply.status_code, error(reply)) == (400, code), body
        reply = await http.post("/api/sessions", json=body)
        assert (reply.status_code, error(reply)) == (400, code), body
    me = await http.get("/api/me", headers=auth(made["session"]))
    assert me.json()["player"]["username"] is None


async def test_taken_and_registered_and_anonymous(http: httpx.AsyncClient) -> None:
    """A taken username: 409; a second registration: 409; no session: 401."""
    first = await registered(http, "ana")
    other = await guest(http)
    body = {"username": "ANA", "password": PASSWORD}
    reply = await http.post("/api/me/credentials", json=body, headers=auth(other["session"]))
    assert (reply.status_code, error(reply)) == (409, "player/username_taken")
    body = {"username": "ana2", "password": PASSWORD}
    reply = await http.post("/api/me/credentials", json=body, headers=auth(first["session"]))
    assert (reply.status_code, error(reply)) == (409, "player/already_registered")
    reply = await http.post("/api/me/credentials", json=body)
    assert (reply.status_code, error(reply)) == (401, "player/unauthorized")


async def test_unknown_user_and_wrong_password_answer_alike(
    http: httpx.AsyncClient, server: LiveServer
) -> None:
    """Both get 401 player/bad_credentials with the same message, after one argon2
    verification each (the unknown one against a dummy hash)."""
    await registered(http, "ana")
    passwords = server.services.people.passwords = CountingPasswords(CHEAP)
    wrong = await sign_in(http, "ana", "not the password")
    after_wrong = passwords.checks
    unknown = await sign_in(http, "nobody", "not the password")
    assert (wrong.status_code, unknown.status_code) == (401, 401)
    assert wrong.json() == unknown.json()
    assert error(wrong) == "player/bad_credentials"
    assert (after_wrong, passwords.checks) == (1, 2)


@pytest.mark.parametrize(
    "settings",
    [Settings(store_url="memory://", password_cost=CHEAP, signin_free_per_address=8)],
)
async def test_sign_in_limits_back_off_with_retry_after(
    http: httpx.AsyncClient, clock: Clock
) -> None:
    """Five failures per account, then 1 s, 2 s... (429 player/login_limited with
    Retry-After, counted in /metrics); the right password after the wait clears the
    account; eight failures per address (here), whatever the usernames."""
    await registered(http, "ana")
    for _ in range(5):
        assert (await sign_in(http, "ana", "wrong password")).status_code == 401
    limited = await sign_in(http, "ana", PASSWORD)  # even the right one must wait
    assert (limited.status_code, error(limited)) == (429, "player/login_limited")
    assert limited.headers["retry-after"] == "1"
    clock.now += 1
    assert (await sign_in(http, "ana", "wrong password")).status_code == 401
    again = await sign_in(http, "ana", "wrong password")
    assert (again.status_code, again.headers["retry-after"]) == (429, "2")
    clock.now += 2
    assert (await sign_in(http, "ana", PASSWORD)).status_code == 201
    assert (await sign_in(http, "ana", "wrong password")).status_code == 401  # cleared
    assert await metric(http, 'rollhouse_limit_refusals_total{limit="signin_per_account"}') == 2
    assert await metric(http, 'rollhouse_signins_total{outcome="limited"}') == 2
    assert await metric(http, 'rollhouse_signins_total{outcome="bad_credentials"}') == 7
    assert await metric(http, 'rollhouse_signins_total{outcome="ok"}') == 1
    # 7 failures from this address so far (the success uncounted itself): one more is free
    assert (await sign_in(http, "bob", "wrong password")).status_code == 401
    by_address = await sign_in(http, "carla", "wrong password")
    assert (by_address.status_code, error(by_address)) == (429, "player/login_limited")
    assert by_address.headers["retry-after"] == "1"
    assert await metric(http, 'rollhouse_limit_refusals_total{limit="signin_per_address"}') == 1


@pytest.mark.parametrize(
    "settings", [Settings(store_url="memory://", password_cost=CHEAP, bad_sessions_per_minute=5)]
)
async def test_guessing_session_tokens_is_bounded_per_address(
    http: httpx.AsyncClient, clock: Clock
) -> None:
    """Past the tokens that open nothing an address may send in a minute, its requests
    with a session get 429 (even a valid one) until the minute is over."""
    made = await guest(http)
    for i in range(6):
        guess = f"{made['player']['id']}.{str(i) * 43}"
        assert (await http.get("/api/me", headers=auth(guess))).status_code == 401
    reply = await http.get("/api/me", headers=auth(made["session"]))
    assert (reply.status_code, error(reply)) == (429, "player/login_limited")
    assert reply.headers["retry-after"] == "60"
    assert (
        await metric(http, 'rollhouse_limit_refusals_total{limit="session_guesses_per_address"}')
        == 1
    )
    assert (await http.get("/api/me")).status_code == 401  # no session: no guess
    clock.now += 60
    assert (await http.get("/api/me", headers=auth(made["session"]))).status_code == 200


@pytest.mark.parametrize(
    "settings", [Settings(store_url="memory://", password_cost=CHEAP, guests_per_minute=3)]
)
async def test_guests_per_address_are_limited(http: httpx.AsyncClient, clock: Clock) -> None:
    """An address makes at most ``guests_per_minute`` guests a minute (429 http/rate_limited)."""
    for _ in range(3):
        await guest(http)
    reply = await http.post("/api/players", json={})
    assert (reply.status_code, error(reply)) == (429, "http/rate_limited")
    assert reply.headers["retry-after"] == "60"
    assert await metric(http, 'rollhouse_limit_refusals_total{limit="guests_per_address"}') == 1
    clock.now += 120
    await guest(http)


# --- signing out, expiry ---


async def test_sign_out_ends_this_session_only(http: httpx.AsyncClient) -> None:
    """DELETE /api/sessions/current: 204, that token is refused, the other device's works."""
    made = await registered(http, "ana")
    other = (await sign_in(http, "ana", PASSWORD)).json()["session"]
    reply = await http.delete("/api/sessions/current", headers=auth(made["session"]))
    assert reply.status_code == 204
    assert (await http.get("/api/me", headers=auth(made["session"]))).status_code == 401
    assert (await http.get("/api/me", headers=auth(other))).status_code == 200
    reply = await http.delete("/api/sessions/current", headers=auth(made["session"]))
    assert (reply.status_code, error(reply)) == (401, "player/unauthorized")


async def test_sign_out_everywhere_ends_every_session(http: httpx.AsyncClient) -> None:
    """DELETE /api/sessions from one device ends every session of the player; another
    player's session lives on; signing in again works."""
    made = await registered(http, "ana")
    tokens = [made["session"]]
    tokens += [(await sign_in(http, "ana", PASSWORD)).json()["session"] for _ in range(2)]
    stranger = (await guest(http))["session"]
    assert (await http.delete("/api/sessions", headers=auth(tokens[1]))).status_code == 204
    for token in tokens:
        reply = await http.get("/api/me", headers=auth(token))
        assert (reply.status_code, error(reply)) == (401, "player/unauthorized")
    assert (await http.get("/api/me", headers=auth(stranger))).status_code == 200
    assert (await sign_in(http, "ana", PASSWORD)).status_code == 201


async def test_a_session_expires_after_30_days_unused(
    http: httpx.AsyncClient, clock: Clock
) -> None:
    """Each use moves the 30 days on; a session unused for longer is refused for good."""
    made = await guest(http)
    clock.now += 29 * DAY
    assert (await http.get("/api/me", headers=auth(made["session"]))).status_code == 200
    clock.now += 29 * DAY  # 58 days old, 29 days unused
    assert (await http.get("/api/me", headers=auth(made["session"]))).status_code == 200
    clock.now += 30 * DAY + 1
    reply = await http.get("/api/me", headers=auth(made["session"]))
    assert (reply.status_code, error(reply)) == (401, "player/unauthorized")
    clock.now -= 2 * DAY  # and it stays ended, whatever the clock does next
    assert (await http.get("/api/me", headers=auth(made["session"]))).status_code == 401


# --- a player's rooms ---


async def test_my_rooms_newest_first_with_summaries(
    http: httpx.AsyncClient, server: LiveServer, clock: Clock
) -> None:
    """GET /api/me/rooms lists the rooms the player joined, newest first, by pages,
    each with the summary GET /api/rooms/{id} gives (null for a room that is gone)."""
    made = await guest(http)
    player_id = made["player"]["id"]
    rooms = [(await server.create_room("rollie", 2))["room"] for _ in range(3)]
    people = server.services.people
    for i, room in enumerate([*rooms, "gone-room"]):
        await people.add_room(player_id, room, clock.now + i)
    first = await http.get("/api/me/rooms?limit=2", headers=auth(made["session"]))
    assert first.status_code == 200
    page = first.json()
    assert [r["room"] for r in page["rooms"]] == ["gone-room", rooms[2]]
    assert page["rooms"][0]["summary"] is None
    assert page["rooms"][1]["joined_at"] == clock.now + 2
    assert page["rooms"][1]["summary"] == (await http.get(f"/api/rooms/{rooms[2]}")).json()
    second = await http.get(
        f"/api/me/rooms?limit=2&cursor={page['next']}", headers=auth(made["session"])
    )
    assert [r["room"] for r in second.json()["rooms"]] == [rooms[1], rooms[0]]
    assert second.json()["next"] is None
    other = await guest(http)
    assert (await http.get("/api/me/rooms", headers=auth(other["session"]))).json() == {
        "rooms": [],
        "next": None,
    }
    assert (await http.get("/api/me/rooms")).status_code == 401


async def test_my_rooms_refuses_a_bad_page(http: httpx.AsyncClient) -> None:
    """A limit outside 1-50 or a cursor that is not a whole number: 400 http/bad_query."""
    made = await guest(http)
    for query in ["limit=0", "limit=51", "limit=x", "cursor=-1", "cursor=1e3"]:
        reply = await http.get(f"/api/me/rooms?{query}", headers=auth(made["session"]))
        assert (reply.status_code, error(reply)) == (400, "http/bad_query"), query
        assert reply.json()["error"]["field"] == query.split("=")[0]


# --- what lasts ---


async def test_sessions_and_credentials_survive_a_restart(tmp_path: Path) -> None:
    """On SQLite, a session and a username outlive the server process's state."""
    settings = Settings(store_url=f"sqlite:///{tmp_path / 'people.db'}", password_cost=CHEAP)
    async with serve(settings) as first, httpx.AsyncClient(base_url=first.url) as http:
        made = await registered(http, "ana")
    async with serve(settings) as again, httpx.AsyncClient(base_url=again.url) as http:
        me = await http.get("/api/me", headers=auth(made["session"]))
        assert me.json()["player"] == {**made["player"], "username": "ana"}
        assert (await sign_in(http, "ana", PASSWORD)).status_code == 201
