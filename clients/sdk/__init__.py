"""The Python SDK: an asyncio client for Rollhouse rooms (see :mod:`clients.sdk.client`).

:mod:`clients.sdk.mirror` is its sans-I/O core (the view mirror), :mod:`clients.sdk.errors`
its error tree.
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

__all__ = [
    "FINAL_CODES",
    "Client",
    "ClientError",
    "CommandRejected",
    "ConnectionLost",
    "Mirror",
    "Runner",
    "create_room",
    "http_url",
    "list_rooms",
    "ws_url",
]
