"""A live room's peers: the connections it serves, and the frames held for each.

The room (:class:`server.room.shell.Room`) never awaits a socket: the frames of one
input are held per peer (:meth:`Peers.send`, :meth:`Peers.send_kept`) and handed to
each peer's connection together (:meth:`Peers.flush`) before the room next waits, so
a peer's patch and its ack go out in one call. Messages become frames in
:class:`~server.room.fanout.Encoder`, once per codec. No asyncio: the shell calls
these between its awaits.
"""

from __future__ import annotations

from collections.abc import Iterable

from protocol.messages import Welcome
from server.room.fanout import Encoder, Frame
from server.room.handle import Peer
from server.room.io import PeerId, Send, SendFrames


class Peers:
    """The room's peers by id, and the frames held for them until the room next waits."""

    def __init__(self) -> None:
        self.by_id: dict[PeerId, Peer] = {}
        self._held: dict[PeerId, tuple[Peer, list[Frame]]] = {}
        """Frames for each peer, held until the room next waits (see :meth:`flush`)."""
        self._encoder = Encoder()

    def __len__(self) -> int:
        return len(self.by_id)

    def add(self, pid: PeerId, peer: Peer) -> None:
        self.by_id[pid] = peer

    def drop(self, pid: PeerId) -> Peer | None:
        """Let ``pid`` go (the core has: nothing more is sent to it)."""
        return self.by_id.pop(pid, None)

    def gone(self) -> frozenset[PeerId]:
        """The peers whose socket is closed."""
        return frozenset(pid for pid, peer in self.by_id.items() if peer.gone)

    @property
    def holding(self) -> bool:
        """Whether frames are held for some peer."""
        return bool(self._held)

    def send(self, out: Send) -> None:
        """Hold ``out``'s frame for each of its peers (one frame object per codec: a
        patch for 5,000 spectators is one loop of dictionary lookups, nothing encoded
        or allocated per peer but its held list)."""
        frames: dict[str, Frame] = {}
        welcome = out.message if isinstance(out.message, Welcome) else None
        peers, held, encoder = self.by_id, self._held, self._encoder
        for pid in out.peers:
            peer = peers.get(pid)
            if peer is None:
                continue
            if welcome is not None:
                peer.seat, peer.role = welcome.seat, welcome.role
            frame = frames.get(peer.codec_name)
            if frame is None:
                frame = encoder.frame(out, peer.codec_name, frames)
            kept = held.get(pid)
            if kept is None:
                held[pid] = (peer, [frame])
            else:
                kept[1].append(frame)

    def send_kept(self, out: SendFrames) -> None:
        """Hold kept msgpack frames (a resume's missed patches) in the peer's codec."""
        peer = self.by_id.get(out.peer)
        if peer is not None:
            self._hold(out.peer, peer, self._encoder.kept(out.frames, peer.codec_name))

    def _hold(self, pid: PeerId, peer: Peer, frames: list[Frame]) -> None:
        """Keep ``frames`` for ``peer`` until the room next waits (:meth:`flush`)."""
        held = self._held.get(pid)
        if held is None:
            self._held[pid] = (peer, frames)
        else:
            held[1].extend(frames)

    def flush(self) -> None:
        """Hand each peer the frames held for it (its patch and its ack go out together)."""
        self._encoder.clear()
        held, self._held = self._held, {}
        for peer, frames in held.values():
            peer.send_frames(frames)

    def close(self, pid: PeerId, code: str, message: str) -> None:
        """Let ``pid`` go with a fatal error ``code``."""
        peer = self.by_id.pop(pid, None)
        if peer is not None:
            peer.close_with(code, message)

    def close_some(self, pids: Iterable[PeerId] | None, code: str, message: str) -> None:
        """Close these peers' connections (None: every peer's) with ``code``; each leaves
        the room as its socket closes."""
        for pid in list(self.by_id) if pids is None else pids:
            peer = self.by_id.get(pid)
            if peer is not None:
                peer.close_with(code, message)

    def close_all(self, code: str, message: str) -> None:
        """Close every peer with ``code`` and let them all go at once."""
        for peer in list(self.by_id.values()):
            peer.close_with(code, message)
        self.by_id.clear()
