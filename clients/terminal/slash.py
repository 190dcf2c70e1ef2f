"""Slash commands at the table: chat and the host's actions, typed in either mode.

    /say good luck          a chat line (a spectator's goes to the spectators' channel)
    /chat                   the latest chat lines
    /kick 2                 (host) remove the player in seat 2 (or /kick p-0123456789abcdef)
    /lock  /unlock          (host) lock or open the free seats
    /fill [policy]          (host) hosted bots take the free seats: the game starts
    /host 1                 (host) hand the host role to the player in seat 1
    /hide 17                (host) hide the chat line at seq 17 everywhere
    /invite  /revoke        (host) a new invite link for this room, or none

:func:`slash_for_line` is pure: (line, view) -> one of :class:`DoAct` (an act for
:meth:`clients.sdk.Client.act`), :class:`InviteOp` (over HTTP, by the host's session),
:class:`ShowChat`, or a :class:`~clients.terminal.keys.Hint` saying what is wrong.
Who may do what is the server's to say: a refusal comes back with its code.
"""

from __future__ import annotations

from typing import Any

import attrs

from clients.terminal.keys import Hint

HELP: list[tuple[str, str]] = [
    ("/say TEXT", "say something at the table"),
    ("/chat", "show the latest chat lines"),
    ("/kick SEAT", "(host) remove the player in that seat, before the game starts"),
    ("/lock, /unlock", "(host) lock or open the free seats"),
    ("/fill [POLICY]", "(host) hosted bots take the free seats: the game starts"),
    ("/host SEAT", "(host) hand the host role to the player in that seat"),
    ("/hide SEQ", "(host) hide a chat line (its seq, shown by /chat)"),
    ("/invite, /revoke", "(host) a new invite link, or none"),
]
CHAT_SHOWN = 10
"""Lines /chat shows."""


@attrs.frozen
class DoAct:
    """Send ``act``; ``what`` says it in words (``lock the seats``)."""

    act: dict[str, Any]
    what: str


@attrs.frozen
class InviteOp:
    """A new invite code (``revoke`` False) or none (True), over HTTP."""

    revoke: bool = False


@attrs.frozen
class ShowChat:
    """Print the latest chat lines."""


Slash = DoAct | InviteOp | ShowChat | Hint


def is_slash(line: str) -> bool:
    """Whether a typed line is a slash command."""
    return line.lstrip().startswith("/")


def slash_for_line(line: str, view: dict[str, Any] | None) -> Slash:
    """What a slash command asks for."""
    word, _, rest = line.strip()[1:].partition(" ")
    word, rest = word.lower(), rest.strip()
    match word:
        case "say" | "s":
            if not rest:
                return Hint("/say needs something to say")
            return DoAct({"type": "chat", "text": rest}, "said")
        case "chat":
            return ShowChat()
        case "lock":
            return DoAct({"type": "lock", "on": True}, "seats locked")
        case "unlock":
            return DoAct({"type": "lock", "on": False}, "seats open")
        case "fill":
            act = {"type": "fill"} | ({"policy": rest} if rest else {})
            return DoAct(act, "bots fill the free seats")
        case "kick":
            return _kick(rest)
        case "host":
            return _host(rest, view)
        case "hide":
            if not rest.isdigit():
                return Hint("/hide needs the seq of a chat line (see /chat)")
            return DoAct({"type": "hide", "seq": int(rest)}, f"line {rest} hidden")
        case "invite" | "revoke":
            return InviteOp(revoke=word == "revoke")
    return Hint(f"unknown command /{word}; try /say, /chat, /kick, /lock, /unlock, /fill, /host")


def seat_player(view: dict[str, Any] | None, seat: int) -> str | None:
    """The player id seated in ``seat`` (None for an empty seat, a bot, or a seat token)."""
    seats = ((view or {}).get("room") or {}).get("seats") or []
    if not 0 <= seat < len(seats):
        return None
    player = seats[seat].get("player")
    return player if isinstance(player, str) else None


def _kick(rest: str) -> Slash:
    if rest.startswith("p-"):
        return DoAct({"type": "remove", "player": rest}, f"{rest} removed")
    if not rest.isdigit():
        return Hint("/kick needs a seat number (or a player id)")
    return DoAct({"type": "remove", "seat": int(rest)}, f"seat {rest} removed")


def _host(rest: str, view: dict[str, Any] | None) -> Slash:
    if rest.startswith("p-"):
        return DoAct({"type": "host", "player": rest}, f"{rest} is the host")
    if not rest.isdigit():
        return Hint("/host needs the seat of the next host")
    player = seat_player(view, int(rest))
    if player is None:
        return Hint(f"no signed-in player sits in seat {rest}")
    return DoAct({"type": "host", "player": player}, f"seat {rest} is the host")
