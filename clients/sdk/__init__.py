"""The Python SDK: an asyncio client for Rollhouse rooms (see :mod:`clients.sdk.client`).

:mod:`clients.sdk.session` (the session: hello, re-sent commands, error outcomes) and
:mod:`clients.sdk.mirror` (the view mirror) are its sans-I/O core, :mod:`clients.sdk.errors`
its error tree. The JS SDK (clients/js) has the same parts.
"""

from clients.sdk.client import (
    FINAL_CODES,
    Client,
    ClientError,
    CommandRejected,
    ConnectionLost,
    Runner,
    create_room,
    http_url,
    list_rooms,
    ws_url,
)
from clients.sdk.mirror import Mirror
from clients.sdk.session import Session, outcome

__all__ = [
    "FINAL_CODES",
    "Client",
    "ClientError",
    "CommandRejected",
    "ConnectionLost",
    "Mirror",
    "Runner",
    "Session",
    "create_room",
    "http_url",
    "list_rooms",
    "outcome",
    "ws_url",
]
