"""The Python SDK: an asyncio client for Rollhouse rooms (see :mod:`clients.sdk.client`)."""

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

__all__ = [
    "FINAL_CODES",
    "Client",
    "ClientError",
    "CommandRejected",
    "ConnectionLost",
    "Runner",
    "create_room",
    "http_url",
    "list_rooms",
    "ws_url",
]
