"""The two faces of a live room: how a connection reaches it, and how it reaches them.

A connection holds a :class:`RoomHandle`: the room itself when this node runs it
(:class:`server.room.shell.Room`), or a relay to the node that does
(:class:`server.cluster.relay.RemoteRoom`); both take the same four calls, none of
which waits. The room holds each connection as a :class:`Peer`: a socket of this node
(:class:`server.edge.connection.Connection`) or one relayed from another node
(:class:`server.cluster.relay.RemotePeer`).
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from protocol.messages import Hello
from server.room.io import PeerId

Frame = bytes | str


@runtime_checkable
class Peer(Protocol):
    """One connection, as the room sees it."""

    codec_name: str
    gone: bool
    """The socket is closed (the room may still be answering its hello)."""
    seat: int | None
    role: str | None

    def send_frames(self, frames: list[Frame]) -> None:
        """Queue encoded frames, in order; never blocks (drops a peer that cannot keep up)."""

    def close_with(self, code: str, message: str) -> None:
        """Send a fatal error and close."""


@runtime_checkable
class RoomHandle(Protocol):
    """A live room as a connection reaches it (run here, or relayed to its owner)."""

    @property
    def room_id(self) -> str:
        """The room's id."""

    def join(self, peer: Peer, hello: Hello, player: str | None = None) -> PeerId:
        """Admit ``peer``; its welcome (or a fatal error) follows as frames. ``player``
        is the player whose session the hello carried (checked before this call)."""

    def command(self, pid: PeerId, cmd_id: str, body: dict[str, Any]) -> None:
        """A command of ``pid``'s, answered by an ack or a reject frame."""

    def act(self, pid: PeerId, act_id: str, act: dict[str, Any]) -> None:
        """An act of ``pid``'s (chat, a host's action), answered by an ack or a reject."""

    def resync(self, pid: PeerId) -> None:
        """Send ``pid`` a snapshot of its view."""

    def leave(self, pid: PeerId) -> None:
        """``pid``'s socket is gone."""
