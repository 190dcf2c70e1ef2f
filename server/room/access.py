"""Who may see and do what in a room: one policy for the room list, every HTTP route
of a room, the websocket ``hello`` and the history.

A room's ``visibility``:

- ``public``: listed in the lobby; anyone may watch it, read its history and take a
  free seat;
- ``unlisted``: the same for anyone who has its id (its link), but never listed;
- ``private``: only its host, the players the host let in by id (``admit``), the
  players seated in it, and whoever brings the current invite code (``?invite=`` or
  the hello's ``invite``). To anyone else it does not exist: every answer is the one
  a room that does not exist gets (``room/not_found``, HTTP 404), never a 403.

``watch`` (a room setting, default true) says whether spectators may watch at all;
the host always may. Players the host removed may not come back (their player id and
the seat token of the seat they held are banned), and in a private room the invite
code they came with is revoked with them: the host issues a new one.

Pure functions of the room's model and the visitor; the invite code is compared by its
SHA-256 digest in constant time.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping
from typing import Any

import attrs

from server.room.model.digests import token_hash
from server.room.model.room import RoomModel

VISIBILITIES = ("public", "unlisted", "private")


@attrs.frozen
class Visitor:
    """Who asks: their player id (from a session), the invite code they bring, and the
    seat token they hold (any may be None)."""

    player: str | None = None
    invite: str | None = attrs.field(default=None, repr=False)
    token: str | None = attrs.field(default=None, repr=False)


ANYONE = Visitor()


def invite_digest(code: str) -> str:
    """What the log keeps of an invite code."""
    return hashlib.sha256(code.encode()).hexdigest()


def brings_invite(model: RoomModel, visitor: Visitor) -> bool:
    """The visitor's invite code is the room's current one."""
    if model.invite is None or visitor.invite is None:
        return False
    return hmac.compare_digest(invite_digest(visitor.invite), model.invite)


def is_banned(model: RoomModel, visitor: Visitor) -> bool:
    """The host removed this visitor (their player, or the seat their token opened)."""
    if visitor.player is not None and visitor.player in model.banned:
        return True
    return visitor.token is not None and token_hash(visitor.token) in model.banned_tokens


def is_member(model: RoomModel, player: str | None) -> bool:
    """The host, a player the host let in, or a player seated here."""
    if player is None:
        return False
    return player == model.host or player in model.members or player in model.players()


def may_see(model: RoomModel, visitor: Visitor) -> bool:
    """Whether the room exists for ``visitor``: its summary, history, view, export."""
    if model.visibility != "private":
        return True
    if is_banned(model, visitor):
        return False
    if is_member(model, visitor.player) or brings_invite(model, visitor):
        return True
    return visitor.token is not None and model.seat_for_token(visitor.token) is not None


def may_watch(model: RoomModel, visitor: Visitor) -> bool:
    """Whether ``visitor`` may join as a spectator (given :func:`may_see`)."""
    if is_banned(model, visitor):
        return False
    return model.watchable or (visitor.player is not None and visitor.player == model.host)


def listed(model: RoomModel) -> bool:
    """Whether the lobby lists the room."""
    return model.visibility == "public"


def summary_visible(summary: Mapping[str, Any], visitor: Visitor) -> bool:
    """:func:`may_see` from a room's summary (as the index keeps it: its ``access`` part
    says who may see a private room), for the routes that do not load the room."""
    if summary.get("visibility", "public") != "private":
        return True
    access = summary.get("access") or {}
    player = visitor.player
    if player is not None and player in access.get("banned", ()):
        return False
    if player is not None and (
        player == summary.get("host") or player in access.get("members", ())
        or player in summary.get("players", ())
    ):  # fmt: skip
        return True
    digest = access.get("invite")
    return (
        digest is not None
        and visitor.invite is not None
        and hmac.compare_digest(invite_digest(visitor.invite), str(digest))
    )
