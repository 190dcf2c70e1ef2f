"""Slash commands carried out (:mod:`clients.terminal.slash` says what each one asks for):
an act over the room's socket, an invite code over HTTP, or the chat shown. Each returns
the words for the status line (live mode) or the printed line (line mode)."""

from __future__ import annotations

from typing import Any

from clients.sdk import Account, Client, ClientError, CommandRejected, invite_link
from clients.terminal.keys import Hint
from clients.terminal.render import chat_lines, chat_text
from clients.terminal.slash import CHAT_SHOWN, DoAct, InviteOp, ShowChat, slash_for_line


async def run_slash(client: Client, account: Account | None, line: str) -> str:
    """Carry out one slash command; what happened, in words."""
    match slash_for_line(line, client.view):
        case Hint(text=text):
            return text
        case ShowChat():
            shown = [chat_text(c) for c in chat_lines(client.view)[-CHAT_SHOWN:]]
            return "\n".join(shown) or "no chat yet"
        case DoAct(act=act, what=what):
            return await _act(client, act, what)
        case InviteOp(revoke=revoke):
            return await _invite(client, account, revoke)
    return "?"  # pragma: no cover (the match is total)


async def _act(client: Client, act: dict[str, Any], what: str) -> str:
    try:
        seq = await client.act(act)
    except CommandRejected as exc:
        return f"refused: {exc.message} ({exc.code})"
    except ClientError as exc:
        return f"not sent: {exc.message} ({exc.code})"
    return f"{what} (seq {seq})"


async def _invite(client: Client, account: Account | None, revoke: bool) -> str:
    if account is None or account.session is None:
        return "invite links need a signed-in host (rollhouse login, or play --new)"
    try:
        if revoke:
            await account.revoke_invite(client.room)
            return "invite revoked: no link opens this room now"
        code = await account.new_invite(client.room)
    except ClientError as exc:
        return f"refused: {exc.message} ({exc.code})"
    return f"invite link (the old one stops working): {invite_link(account.url, client.room, code)}"
