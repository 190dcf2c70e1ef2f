"""What a client keeps across connections, sans-I/O: the mirror, the seat token, the
commands still unanswered, and what to do when a connection opens, drops or ends in error.

    session = Session("r7k2", name="ann")
    for msg in session.opened():            # a socket opened: hello, then unanswered commands
        send(msg)
    step = session.receive(decoded)         # the mirror's actions, messages to send, an outcome
    session.command("a-1", {"type": "roll"})  # [Command] while a socket is open, else [] (held)
    session.act("a-2", {"type": "chat", "text": "hi"})  # the same for an act (version 2)
    session.dropped(reason)                 # "reconnect", "reconnect_now" or "give_up"

The asyncio :class:`~clients.sdk.client.Client` is its shell (sockets, timers, futures);
the JS SDK's ``Session`` (clients/js/src/session.js) is the same, and both run the shared
vectors in ``tests/vectors/sessions`` (reconnect and resume, frame by frame) and
``tests/vectors/errors/outcomes.json``.

The rules (docs/protocol.md 4, 5, 7 and 10):

- a socket opens: send hello (the seat token, and ``last_seq`` while the view is good;
  on version 2 also the player's ``session``, a private room's ``invite``, and while a
  player has no seat token yet ``new_seat_token``: a random token of its own, the same
  in every hello until a welcome, so a hello whose welcome was lost with its
  connection finds again the seat it took; a player's ``client`` id and ``attempt``, the
  connection's number, so a late copy of an earlier hello cannot take the seat from
  this connection), then every
  unanswered command and act with its original id (the server holds the frames after a
  hello until it is answered, and answers a repeated id with its first answer);
- a command (or an act) is sent at once while a socket is open, else when the next one
  opens;
- an ack or a reject settles its command or act; a resync the mirror asks for is sent;
- a welcome to a seat drops the invite code: the seat (its token, or the session) is the
  way back in, and a code revoked since would only count as a wrong guess;
- after an error, :func:`outcome`: a non-fatal one changes nothing; a fatal one is followed
  by a reconnect with backoff, at once for ``room/moved``, never for a final code (then
  the unanswered commands are dropped: nothing will answer them).
"""

from __future__ import annotations

import secrets
from typing import Any, Literal

import attrs

from clients.sdk.mirror import (
    Acked,
    Action,
    Mirror,
    Rejected,
    RequestResync,
    ServerError,
    Welcomed,
)
from protocol.errors import MOVED, RATE_LIMITED, REPLACED
from protocol.messages import Act, ClientMessage, Command, Hello, Resync, Role, ServerMessage

Outcome = Literal["continue", "reconnect", "reconnect_now", "give_up"]
"""After an error: keep the connection, reconnect with backoff, reconnect at once, give up."""

FINAL_CODES = frozenset(
    {
        "room/not_found",
        "room/full",
        "room/bad_seat_token",
        "room/origin_forbidden",
        "room/removed",
        "room/locked",
        "room/no_spectators",
        "player/unauthorized",
        "room/closed",
        "server/banned",
    }
)
"""Fatal errors that reconnecting cannot cure (with ``room/replaced``: another tab or
device holds the seat, so the client must not take it back by itself). Version 2 adds
``room/no_spectators`` (the host keeps spectators out) and ``player/unauthorized`` (the
hello's session is unknown, expired or signed out: sign in again)."""


def outcome(code: str, fatal: bool) -> Outcome:
    """What a client does after an error message, a close with code 4000 (its reason is
    the code; always fatal) or a refused handshake (fatal)."""
    if not fatal:
        return "continue"
    if code == MOVED:
        return "reconnect_now"
    if code in FINAL_CODES or code == REPLACED:
        return "give_up"
    return "reconnect"


@attrs.define
class Step:
    """What one server message means for the shell."""

    actions: list[Action]
    """The mirror's actions (answers, view changes, errors), in order."""
    send: list[ClientMessage] = attrs.field(factory=list)
    """Messages to send now (a resync)."""
    outcome: Outcome | None = None
    """For an error message: what to do with the connection."""
    resync_later: bool = False
    """A resync was dropped for its rate: ask again in a second."""


@attrs.define
class Failure:
    """Why a session ended for good."""

    code: str
    message: str


class Session:
    """One seat (or a spectator) of one room, across connections."""

    def __init__(
        self,
        room: str,
        role: Role = "player",
        name: str | None = None,
        seat_token: str | None = None,
        *,
        session_token: str | None = None,
        invite: str | None = None,
        version: int = 2,
        new_seat_token: str | None = None,
        client_id: str | None = None,
    ) -> None:
        self.room = room
        self.role: Role = role
        self.name = name or None
        self.session_token = session_token or None
        """(Version 2) the player's session: their seat is theirs again on any device."""
        self.invite = invite or None
        """(Version 2) a private room's invite code."""
        self.mirror = Mirror(seat_token=seat_token)
        self.new_seat_token = (
            (new_seat_token or secrets.token_urlsafe(24)) if version >= 2 and role == "player"
            else None
        )  # fmt: skip
        """(Version 2) the token this player's seat gets if its hello takes a free one;
        sent until a welcome gives the seat's token (drawn here unless given: tests)."""
        self.client_id = (
            (client_id or secrets.token_urlsafe(12)) if version >= 2 and role == "player"
            else None
        )  # fmt: skip
        """(Version 2) this client's id in every hello of a player, with ``attempts``: a
        hello delayed between nodes until a later connection holds the seat is refused
        (drawn here unless given: tests)."""
        self.attempts = 0
        """Connections opened so far (the next hello's ``attempt`` is one more)."""
        self.pending: dict[str, Command | Act] = {}
        """Commands and acts sent and not yet answered, by id, in send order."""
        self.open = False
        """A socket is open and its hello sent."""
        self.failure: Failure | None = None
        """Why the session ended for good (a final code), once it has."""
        self.hello()  # a bad name fails here, not on every reconnect

    def hello(self) -> Hello:
        """The hello for the next connection."""
        return Hello(
            room=self.room,
            role=self.role,
            name=self.name,
            seat_token=self.mirror.seat_token or None,
            last_seq=self.mirror.resume_seq,
            session=self.session_token,
            invite=self.invite,
            new_seat_token=None if self.mirror.seat_token else self.new_seat_token,
            client=self.client_id,
            attempt=None if self.client_id is None else self.attempts + 1,
        )

    def opened(self) -> list[ClientMessage]:
        """What to send on a socket that just opened."""
        self.open = True
        hello = self.hello()
        self.attempts += 1
        return [hello, *self.pending.values()]

    def dropped(self, reason: str | None = None) -> Outcome:
        """The socket closed or was lost (``reason``: the error code of a close with code
        4000, or of a refused handshake; None for a lost connection): what to do next."""
        self.open = False
        if self.failure is not None:
            return "give_up"
        return "reconnect" if reason is None else self.ended(reason, True)

    def command(self, cmd_id: str, command: dict[str, Any]) -> list[ClientMessage]:
        """Register a command; the messages to send now (none while no socket is open)."""
        return self._hold(Command(cmd_id, command))  # ProtocolError: no "type", a bad id

    def act(self, act_id: str, act: dict[str, Any]) -> list[ClientMessage]:
        """(Version 2) Register an act (chat, a host's action), as :meth:`command` does."""
        return self._hold(Act(act_id, act))  # ProtocolError: no "type", a bad id

    def _hold(self, message: Command | Act) -> list[ClientMessage]:
        self.pending[message.id] = message
        return [message] if self.open else []

    def receive(self, msg: ServerMessage) -> Step:
        """Apply one server message."""
        step = Step(self.mirror.receive(msg))
        for action in step.actions:
            match action:
                case RequestResync():
                    step.send.append(Resync())
                case Acked(id=cmd_id):
                    self.pending.pop(cmd_id, None)
                case Rejected(reject=reject):
                    self.pending.pop(reject.id, None)
                case Welcomed(welcome=welcome) if welcome.seat is not None:
                    self.invite = None  # seated: the seat is the way back in, not the code
                case ServerError(error=error):
                    step.outcome = self.ended(error.code, error.fatal, error.message)
                    step.resync_later = (
                        not error.fatal and error.code == RATE_LIMITED and self.mirror.resyncing
                    )
        return step

    def ended(self, code: str, fatal: bool, message: str | None = None) -> Outcome:
        """An error ended the connection (``fatal``), or not: what to do next. A final code
        ends the session (:attr:`failure`) and forgets the unanswered commands."""
        next_step = outcome(code, fatal)
        if next_step == "give_up":
            if self.failure is None:
                self.failure = Failure(code, message or code)
            self.pending.clear()
        return next_step
