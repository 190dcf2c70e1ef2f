"""A player at a server: sessions, tables people share, quick match and "my games"
(docs/protocol.md 12.1, 12.2 and 15), over HTTP, and the clients that sit down as them.

    me = Account("http://127.0.0.1:8000")         # the session saved for this server, if any
    await me.guest("Ann")                          # or: await me.login("ann", "a long password")
    table = await me.create_room("rollie", 2, visibility="private")
    link = invite_link(me.url, table["room"], table["invite"])    # send it to a friend
    async with await me.join(table["room"]) as ann:                # a Client, with the session
        await ann.chat("hi")
        ...
    friend = Account(url, keep=False); await friend.guest("Bea")
    bea = await friend.join_link(link)             # the invite code rides in the hello
    quick = await friend.quick("rollie", 4)        # seat me at any four-seat Rollie table
    (await me.my_games())["rooms"]                 # [{"room", "joined_at", "summary"}, ...]
    await me.join(room)                            # resume any of them at your seat
    await me.history(room); await me.view_at(room, at=12); await me.export(room)  # replay

The session is a secret: an :class:`Account` keeps it in
:class:`~clients.sdk.saved.SavedSessions` (``~/.rollhouse/sessions.json``, mode 0600;
``keep=False`` keeps it in memory only), and sends it as ``Authorization: Bearer`` on
HTTP and as ``session`` in the websocket hello, so a seat taken with it is yours again
from any device without its seat token. Refusals raise
:class:`~clients.sdk.errors.RequestRefused` with the catalogue's code
(``player/unauthorized``, ``player/bad_credentials``, ``room/not_found``...).
"""

from __future__ import annotations

import urllib.parse
from pathlib import Path
from typing import Any

import attrs

from clients.sdk.client import Client
from clients.sdk.errors import ClientError, RequestRefused
from clients.sdk.http import http_url, request, ws_url
from clients.sdk.saved import SavedSessions, server_key
from protocol import errors as codes

MATCH_TIMEOUT = 40.0
"""Seconds a quick match request may take (the server holds it up to 30 s)."""
TABLE_PAGE = "table.html"
"""The web client's table page: invite links point at it."""


@attrs.frozen
class Link:
    """What an invite (or table) link names: the server, the room and its invite code."""

    url: str
    """The server's HTTP base, ``http://host:port``."""
    room: str
    invite: str | None = None


def invite_link(url: str, room: str, invite: str | None = None) -> str:
    """The web client's link to a room: ``http://h:p/table.html?room=R&invite=CODE``."""
    query = {"room": room} | ({} if invite is None else {"invite": invite})
    return f"{http_url(url)}/{TABLE_PAGE}?{urllib.parse.urlencode(query)}"


def parse_link(link: str) -> Link:
    """The server, room and invite code of a table link (ClientError ``client/bad_link``
    when it names no room)."""
    parts = urllib.parse.urlsplit(link.strip())
    query = urllib.parse.parse_qs(parts.query)
    room = (query.get("room") or [""])[0]
    if parts.scheme not in ("http", "https", "ws", "wss") or not parts.netloc or not room:
        raise ClientError("client/bad_link", f"not a table link: {link!r}")
    scheme = {"ws": "http", "wss": "https"}.get(parts.scheme, parts.scheme)
    invite = (query.get("invite") or [""])[0] or None
    return Link(f"{scheme}://{parts.netloc}", room, invite)


class Account:
    """One player (or nobody yet) at one server."""

    def __init__(
        self,
        url: str,
        session: str | None = None,
        *,
        keep: bool = True,
        path: Path | None = None,
    ) -> None:
        self.url = http_url(server_key(url))
        """The server's HTTP base (from an HTTP or websocket URL, or a table link)."""
        self.saved: SavedSessions | None = SavedSessions(path) if keep else None
        entry = self.saved.load(self.url) if self.saved and session is None else None
        self.session: str | None = session or (entry or {}).get("session")
        """The player's session token (a secret), or None before a guest or a login."""
        self.player: dict[str, Any] | None = (entry or {}).get("player")
        """The player as last seen: ``{"id", "name", "created_at", "username"}``."""

    @property
    def signed_in(self) -> bool:
        """Whether a session is held (it may still have expired: :meth:`whoami` tells)."""
        return self.session is not None

    # -- players and sessions -----------------------------------------------------------------

    async def guest(self, name: str | None = None) -> dict[str, Any]:
        """A new guest player (``Guest xxxx`` without a name) and its session, kept."""
        made = await self._call("POST", "/api/players", {} if name is None else {"name": name})
        return self._signed_in(made)

    async def login(self, username: str, password: str) -> dict[str, Any]:
        """Sign in with a username and password: a new session, kept."""
        body = {"username": username, "password": password}
        return self._signed_in(await self._call("POST", "/api/sessions", body))

    async def register(self, username: str, password: str) -> dict[str, Any]:
        """Give this (guest) player a username and password, to sign in on other devices."""
        body = {"username": username, "password": password}
        return self._player(await self._call("POST", "/api/me/credentials", body, auth=True))

    async def whoami(self) -> dict[str, Any]:
        """The session's player (RequestRefused ``player/unauthorized`` when it has ended)."""
        return self._player(await self._call("GET", "/api/me", auth=True))

    async def rename(self, name: str) -> dict[str, Any]:
        """A new display name."""
        return self._player(await self._call("PATCH", "/api/me", {"name": name}, auth=True))

    async def ensure_player(self, name: str | None = None) -> dict[str, Any]:
        """The session's player; a new guest when there is no session or it has ended."""
        if self.session is not None:
            try:
                return await self.whoami()
            except RequestRefused as exc:
                if exc.code != codes.UNAUTHORIZED:
                    raise
                self.forget()
        return await self.guest(name)

    async def logout(self) -> None:
        """This session ends (here and on the server); the saved copy is forgotten."""
        try:
            if self.session is not None:
                await self._call("DELETE", "/api/sessions/current", auth=True)
        finally:
            self.forget()

    async def logout_everywhere(self) -> None:
        """Every session of this player ends, on every device, this one too."""
        try:
            await self._call("DELETE", "/api/sessions", auth=True)
        finally:
            self.forget()

    # -- tables ----------------------------------------------------------------------------------

    async def create_room(
        self,
        game: str,
        seats: int,
        options: dict[str, Any] | None = None,
        *,
        visibility: str = "public",
        watch: bool = True,
        spectator_chat: str | None = None,
        room: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """A room you host; its summary (a private room's has its ``invite`` code, given
        once). ``room`` takes the other room settings (``bots``, ``clock``,
        ``fill_bots_after``, ``host_grace``...)."""
        settings = dict(room or {}) | {"visibility": visibility, "watch": watch}
        if spectator_chat is not None:
            settings["spectator_chat"] = spectator_chat
        body = {"game": game, "seats": seats, "options": options or {}, "room": settings}
        return await self._call("POST", "/api/rooms", body, auth=self.session is not None)  # type: ignore[no-any-return]

    async def room(self, room_id: str, invite: str | None = None) -> dict[str, Any]:
        """One room's summary as you may see it (``room/not_found`` for a private room
        you may not open)."""
        path = f"/api/rooms/{_quote(room_id)}"
        return await self._call("GET", path, params={"invite": invite}, auth=None)  # type: ignore[no-any-return]

    async def new_invite(self, room_id: str) -> str:
        """(Host) A new invite code for the room; the old one stops opening it."""
        path = f"/api/rooms/{_quote(room_id)}/invite"
        return str((await self._call("POST", path, auth=True))["invite"])

    async def revoke_invite(self, room_id: str) -> None:
        """(Host) No invite code opens the room any more (members keep their way in)."""
        await self._call("DELETE", f"/api/rooms/{_quote(room_id)}/invite", auth=True)

    async def match(
        self, game: str, seats: int, room: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """Quick match: a seat held for you at an open public table of ``game`` with
        ``seats`` seats (or a new one): ``{"room", "seat", "hold_seconds", "summary"}``.
        Claim it with :meth:`join` within ``hold_seconds``."""
        body: dict[str, Any] = {"game": game, "seats": seats}
        if room:
            body["room"] = room
        return await self._call("POST", "/api/match", body, auth=True, timeout=MATCH_TIMEOUT)  # type: ignore[no-any-return]

    async def my_games(self, cursor: int = 0, limit: int = 20) -> dict[str, Any]:
        """The rooms you joined, newest first: ``{"rooms": [{"room", "joined_at",
        "summary"}], "next"}`` (``summary`` None where you may no longer read the room;
        ``next`` the cursor of the next page, None at the end)."""
        params = {"cursor": cursor, "limit": limit}
        return await self._call("GET", "/api/me/rooms", params=params, auth=True)  # type: ignore[no-any-return]

    async def history(
        self, room_id: str, after: int = 0, limit: int = 100, invite: str | None = None
    ) -> dict[str, Any]:
        """The room's records after seq ``after``: ``{"events": [entry, ...], "next"}``
        (docs/protocol.md 12; chat lines and host actions are ``act`` entries, a hidden
        line's text is gone)."""
        path = f"/api/rooms/{_quote(room_id)}/events"
        params = {"from": after, "limit": limit, "invite": invite}
        return await self._call("GET", path, params=params, auth=None)  # type: ignore[no-any-return]

    async def view_at(
        self, room_id: str, at: int | None = None, invite: str | None = None
    ) -> dict[str, Any]:
        """The spectator's view at seq ``at`` (the latest without it): ``{"seq", "view"}``,
        a replay's frame."""
        path = f"/api/rooms/{_quote(room_id)}/view"
        params = {"at": at, "invite": invite}
        return await self._call("GET", path, params=params, auth=None)  # type: ignore[no-any-return]

    async def export(self, room_id: str, invite: str | None = None) -> list[str]:
        """A finished game's export, as JSON lines (``room/not_finished`` before the end)."""
        path = f"/api/rooms/{_quote(room_id)}/export"
        text = await request(
            self.url, "GET", path, session=self.session, params={"invite": invite}, text=True
        )
        return [line for line in str(text).splitlines() if line.strip()]

    # -- sitting down -----------------------------------------------------------------------------

    def client(
        self,
        room_id: str,
        *,
        role: str = "player",
        name: str | None = None,
        invite: str | None = None,
        **options: Any,
    ) -> Client:
        """A (not yet connected) :class:`Client` for the room, carrying your session."""
        return Client(
            ws_url(self.url), room_id, role=role, name=name, session_token=self.session,
            invite=invite, **options,
        )  # fmt: skip

    async def join(
        self,
        room_id: str,
        *,
        role: str = "player",
        name: str | None = None,
        invite: str | None = None,
        **options: Any,
    ) -> Client:
        """Sit down (or watch) as yourself: a connected :class:`Client`. A seat you hold
        in that room (from any device) is yours again."""
        client = self.client(room_id, role=role, name=name, invite=invite, **options)
        try:
            await client.connect()
        except BaseException:
            await client.close()
            raise
        return client

    async def join_link(self, link: str, *, role: str = "player", **options: Any) -> Client:
        """Open the room a table or invite link names (its invite code in the hello)."""
        found = parse_link(link)
        if ws_url(found.url) != ws_url(self.url):
            raise ClientError("client/bad_link", f"{link!r} is not a link of {self.url}")
        return await self.join(found.room, role=role, invite=found.invite, **options)

    async def quick(
        self, game: str, seats: int, room: dict[str, Any] | None = None, **options: Any
    ) -> Client:
        """Quick match, then claim the held seat: a connected :class:`Client`."""
        matched = await self.match(game, seats, room)
        return await self.join(str(matched["room"]), **options)

    # -- the session -------------------------------------------------------------------------------

    async def _call(
        self,
        method: str,
        path: str,
        body: dict[str, Any] | None = None,
        *,
        auth: bool | None = False,
        params: dict[str, Any] | None = None,
        timeout: float = 10.0,
    ) -> Any:
        """One API request; ``auth``: True needs the session, None sends it when held."""
        if auth and self.session is None:
            raise RequestRefused(codes.UNAUTHORIZED, "no session: sign in or play as a guest", 401)
        session = self.session if auth or auth is None else None
        return await request(
            self.url, method, path, json=body, session=session, params=params, timeout=timeout
        )

    def _signed_in(self, made: dict[str, Any]) -> dict[str, Any]:
        self.session = str(made["session"])
        player = self._player(made)
        return player

    def _player(self, answer: dict[str, Any]) -> dict[str, Any]:
        self.player = dict(answer["player"])
        if self.saved is not None and self.session is not None:
            self.saved.save(self.url, self.session, self.player)
        return self.player

    def forget(self) -> None:
        """Forget the session here (the server still knows it: see :meth:`logout`)."""
        self.session, self.player = None, None
        if self.saved is not None:
            self.saved.forget(self.url)


def _quote(room_id: str) -> str:
    return urllib.parse.quote(room_id, safe="")
