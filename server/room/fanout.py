"""Fan-out: the one place where a room's messages become frames, per viewer and codec.

Two halves, one per side of the room:

- :class:`Fanout` (the core's, pure): after a durable change, every viewer's patch,
  grouped by identical ops (a public view whose ``you`` did not move is one patch for
  many viewers), each op encoded once and each patch once in msgpack; the msgpack
  frames are kept per viewer for resumes (:class:`PatchHistory`); whole views are
  spliced into welcomes and snapshots as encoded once per change
  (:meth:`Fanout.with_view`).
- :class:`Encoder` (the shell's): a :class:`~server.room.io.Send` as the frame each
  peer's codec wants, encoded once per codec (the core's msgpack frame used as it is),
  and the msgpack frames of a resume in a JSON peer's codec.
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Iterable, Sequence
from typing import Any

from protocol.codec import MSGPACK, OpPieces, codec_for
from protocol.messages import Patch, ServerMessage, Snapshot, Welcome
from protocol.patch import Op
from server.room.io import PeerId, Send
from server.room.model.room import RoomModel
from server.room.views import Viewer, Views

Frame = bytes | str


class PatchHistory:
    """A viewer's latest patches, for resumes, as the msgpack frames sent for them: at
    most ``count`` of them holding at most ``limit`` bytes; the oldest go first.
    Resuming from before them gets a snapshot, as does any resume whose patches would
    outweigh the snapshot. Frames are bytes: a finished room's history is nothing for
    the garbage collector to walk."""

    __slots__ = ("count", "frames", "limit", "size", "starts")

    def __init__(self, count: int, limit: int) -> None:
        self.count, self.limit = count, limit
        self.starts: deque[int] = deque()
        """Each kept patch's ``from``."""
        self.frames: deque[bytes] = deque()
        self.size = 0

    def append(self, start: int, frame: bytes) -> None:
        """Keep the frame of a patch from ``start``."""
        self.starts.append(start)
        self.frames.append(frame)
        self.size += len(frame)
        while self.frames and (len(self.frames) > self.count or self.size > self.limit):
            self.starts.popleft()
            self.size -= len(self.frames.popleft())

    def since(self, seq: int) -> list[bytes] | None:
        """The frames of the patches from ``seq`` on, if the first of them is still here."""
        for i, start in enumerate(self.starts):
            if start == seq:
                return list(itertools.islice(self.frames, i, None))
        return None


class Fanout:
    """The core's half: patches after a change, kept frames for resumes, whole views."""

    def __init__(self, views: Views, count: int, limit: int) -> None:
        self.views = views
        self.history = {viewer: PatchHistory(count, limit) for viewer in views.viewers}

    def patches(
        self,
        first: int,
        model: RoomModel,
        names: tuple[str, ...],
        peers_of: dict[Viewer, tuple[PeerId, ...]],
        events: Sequence[Any] | None = None,
    ) -> list[Send]:
        """Move every view to ``model`` (the records after seq ``first``), keep each
        viewer's patch frame, and say who gets which patch: viewers share op objects,
        and often a whole list of ops, so each op is encoded once, each list is one
        patch and one msgpack frame, and the viewers of one patch get one Send.
        ``events``: the game events among the records, when known (see
        :meth:`server.room.views.Views.advance`)."""
        pieces: OpPieces = {}
        patches: dict[int, tuple[list[Op], Patch, bytes, list[PeerId]]] = {}
        for viewer, ops in self.views.advance(model, events).items():
            known = patches.get(id(ops))
            if known is None:
                patch = Patch(first, model.seq, tuple(ops), names)
                frame = MSGPACK.encode_patch(patch, pieces)
                known = patches[id(ops)] = (ops, patch, frame, [])
            self.history[viewer].append(first, known[2])
            known[3].extend(peers_of.get(viewer, ()))
        return [
            Send(tuple(peers), patch, frame) for _, patch, frame, peers in patches.values() if peers
        ]

    def missed(self, viewer: Viewer, last_seq: int | None, seq: int) -> list[bytes] | None:
        """The patch frames after ``last_seq`` (the room is at ``seq``), if all are kept."""
        if last_seq is None or last_seq > seq:
            return None
        if last_seq == seq:
            return []
        return self.history[viewer].since(last_seq)

    def with_view(self, message: Welcome | Snapshot, viewer: Viewer) -> bytes:
        """``message`` (carrying ``viewer``'s view) in msgpack, its view encoded once per
        change of the room (:meth:`server.room.views.Views.encoded`)."""
        return MSGPACK.encode_with(message, "view", self.views.encoded(viewer))


class Encoder:
    """The shell's half: the frames of one input's outputs, each message encoded once
    per codec (call :meth:`clear` after the input)."""

    __slots__ = ("_pieces",)

    def __init__(self) -> None:
        self._pieces: dict[str, OpPieces] = {}
        """Ops encoded while one input's outputs are sent, per codec (by identity)."""

    def frame(self, send: Send, codec_name: str, cache: dict[str, Frame]) -> Frame:
        """``send``'s message in ``codec_name`` (``cache``: this Send's frames by codec)."""
        frame = cache.get(codec_name)
        if frame is None:
            if send.frame is not None and codec_name == MSGPACK.name:
                frame = send.frame  # the core encoded it already
            elif type(send.message) is Patch:  # every viewer's patch of a change shares ops
                pieces = self._pieces.setdefault(codec_name, {})
                frame = codec_for(codec_name).encode_patch(send.message, pieces)
            else:
                frame = self.encode(send.message, codec_name)
            cache[codec_name] = frame
        return frame

    @staticmethod
    def encode(message: ServerMessage, codec_name: str) -> Frame:
        return codec_for(codec_name).encode(message)

    @staticmethod
    def kept(frames: Iterable[bytes], codec_name: str) -> list[Frame]:
        """Kept msgpack frames (a resume's missed patches) in ``codec_name``."""
        if codec_name == MSGPACK.name:
            return list(frames)
        codec = codec_for(codec_name)
        return [codec.encode_data(MSGPACK.decode_data(f)) for f in frames]

    def clear(self) -> None:
        self._pieces.clear()
