"""The Python SDK: an asyncio client for Rollhouse rooms (see :mod:`clients.sdk.client`),
and a player's account at a server: sessions, private tables and invite links, quick
match, "my games" (:mod:`clients.sdk.people`, its session kept by :mod:`clients.sdk.saved`
in a file of mode 0600). It speaks protocol version 2 by default (``version=1``: as before).

:mod:`clients.sdk.session` (the session: hello, re-sent commands, error outcomes) and
:mod:`clients.sdk.mirror` (the view mirror) are its sans-I/O core, :mod:`clients.sdk.errors`
its error tree, :mod:`clients.sdk.http` its HTTP requests. The JS SDK (clients/js) has the same parts.
"""

from clients.sdk.client import (
    FINAL_CODES,
    Client,
    ClientError,
    CommandRejected,
    ConnectionLost,
    Runner,
)
from clients.sdk.errors import RequestRefused
from clients.sdk.http import create_room, http_url, list_rooms, ws_url
from clients.sdk.mirror import Mirror
from clients.sdk.people import Account, Link, invite_link, parse_link
from clients.sdk.saved import SavedSessions
from clients.sdk.session import Session, outcome

__all__ = [
    "FINAL_CODES",
    "Account",
    "Client",
    "ClientError",
    "CommandRejected",
    "ConnectionLost",
    "Link",
    "Mirror",
    "RequestRefused",
    "Runner",
    "SavedSessions",
    "Session",
    "create_room",
    "http_url",
    "invite_link",
    "list_rooms",
    "outcome",
    "parse_link",
    "ws_url",
]
