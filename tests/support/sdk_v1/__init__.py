"""A pinned copy of the Python SDK as it was on main at 4a2478d (before issue 21 gave it
players): a version 1 client (``rollhouse.v1.*``), kept here unchanged so that a test can
prove a client written for version 1 still plays a public room on today's server
(tests/clients/test_sdk_v1.py). Only its imports were renamed (``clients.sdk`` ->
``tests.support.sdk_v1``); it still uses ``protocol/``'s version 1 codec, whose frames
docs/protocol.md keeps exact. Do not edit it to follow the real SDK.

The original docstring follows.

The Python SDK: an asyncio client for Rollhouse rooms (see :mod:`tests.support.sdk_v1.client`).

:mod:`tests.support.sdk_v1.session` (the session: hello, re-sent commands, error outcomes) and
:mod:`tests.support.sdk_v1.mirror` (the view mirror) are its sans-I/O core, :mod:`tests.support.sdk_v1.errors`
its error tree. The JS SDK (clients/js) has the same parts.
"""

from tests.support.sdk_v1.client import (
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
from tests.support.sdk_v1.mirror import Mirror
from tests.support.sdk_v1.session import Session, outcome

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
