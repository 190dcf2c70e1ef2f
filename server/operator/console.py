"""The operator console's service: what the routes of :mod:`server.api.operator` ask.

Reading: the nodes (each node reports itself to the store every :data:`REPORT_EVERY`
seconds: rooms held, connections, lease age, version...), the rooms (from the room
index, filtered), one room (its owner inspects it: seats, connections, spectators,
log length; its last records are read from the log), the connections by address, the
bans and the audit log.

Acting (each written to the audit log: who, what, when, from where, how it went):

| action | where it runs | what it does |
|---|---|---|
| close a room | the room's owner (``Rooms.operate``) | an ``act`` record ``close`` with the reason; every connection closed with ``room/closed``; nobody may join again |
| remove a player or spectator | the room's owner | their connections closed with ``room/removed`` and the reason |
| hide a chat line | the room's owner | as the host's hide: the line leaves every view and history |
| ban an address or a player | the store, then every node | refused at the websocket handshake, at hello and on the HTTP API with ``server/banned`` until the ban ends; open connections of it closed |
| lift a ban | the store, then every node | |
| broadcast a notice | every node | an ``error`` ``server/notice`` (not fatal) to every connection |
| drain a node | that node | it hands its rooms over and stops taking rooms (not ready) |

In a cluster, an action on a room reaches its owner through the room operations other
nodes already call (:meth:`server.cluster.node.Node.run`), and an action on every node
through :meth:`server.cluster.node.Node.call` with a node-wide operation
(``Node.handlers``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import Counter
from collections.abc import Awaitable, Collection
from importlib.metadata import PackageNotFoundError, version
from typing import Any, Protocol

import attrs

from engine.errors import CodedError
from protocol import errors as codes
from protocol.errors import ProtocolError
from protocol.text import clean_chat
from server.cluster.node import Node
from server.config import Settings
from server.errors import RoomRefusal
from server.limits import WindowCounter
from server.metrics import Metrics
from server.operator.bans import Bans
from server.operator.key import OperatorKey
from server.room.rooms import Rooms
from server.store import EventStore, StoreError
from server.tasks import cancel_and_wait

log = logging.getLogger("rollhouse.operator")

REPORT_EVERY = 2.0
"""Seconds between two reports of a node (and two refreshes of its bans)."""
REPORT_TTL = 10.0
"""A node whose last report is older than this is not listed."""
LAST_EVENTS = 20
"""Records of a room's log the console shows."""
ROOMS_SCANNED = 1000
"""The newest rooms the room list filters."""
ADDRESSES_REPORTED = 100
"""The addresses with the most connections each node reports."""
MAX_BAN_MINUTES = 366 * 24 * 60
KINDS = ("address", "player")
NODE_OPS = ("operator_notice", "operator_bans", "operator_drain")


def _version() -> str:
    try:
        return version("rollhouse")
    except PackageNotFoundError:
        return "unknown"


VERSION = _version()


class Listener(Protocol):
    """An open websocket of this node, as the console sees it
    (:class:`server.edge.connection.Connection`)."""

    address: str
    role: str | None
    player: str | None
    closing: bool

    def notify(self, text: str) -> None:
        """Send an operator's notice (``server/notice``)."""

    def close_with(self, code: str, message: str) -> None:
        """Send a fatal error and close."""


@attrs.frozen
class Actor:
    """Who acts: the name the operator gave (``X-Operator``) and their address."""

    who: str
    address: str


def bad(message: str, field: str | None = None) -> ProtocolError:
    """A console request with bad input (400 ``http/bad_json``)."""
    return ProtocolError(codes.BAD_JSON, message, field)


class Console:
    """The console of one node (one per app, in :class:`server.services.Services`)."""

    def __init__(
        self,
        settings: Settings,
        store: EventStore,
        metrics: Metrics,
        rooms: Rooms,
        cluster: Node | None,
        connections: Collection[Any],
    ) -> None:
        self.key = OperatorKey.of(settings)
        self.settings, self.store, self.metrics = settings, store, metrics
        self.rooms, self.cluster, self.connections = rooms, cluster, connections
        self.node = cluster.id if cluster is not None else settings.node
        self.bans = Bans()
        self.requests = WindowCounter(settings.operator_requests_per_minute)
        self.wrong_tokens = WindowCounter(settings.operator_wrong_tokens_per_minute)
        self._task: asyncio.Task[None] | None = None
        self._background: set[asyncio.Task[Any]] = set()

    # -- life ------------------------------------------------------------------------------

    async def start(self) -> None:
        """Load the bans (every node enforces them, console on or off) and report."""
        if self.cluster is not None:
            handlers = self.cluster.handlers
            handlers["operator_notice"] = self._notice_here
            handlers["operator_bans"] = self._bans_here
            handlers["operator_drain"] = self._drain_here
        with contextlib.suppress(StoreError):
            await self.refresh()
            await self.report()
        self._task = asyncio.create_task(self._reports(), name="operator-reports")

    async def close(self) -> None:
        for task in [self._task, *self._background]:
            if task is not None:
                await cancel_and_wait(task)

    async def _reports(self) -> None:
        while True:
            await asyncio.sleep(REPORT_EVERY)
            try:
                await self.report()
                await self.refresh()
            except StoreError as exc:
                log.warning("operator report not written: %s", exc)
            except Exception:
                log.exception("operator report failed")

    async def refresh(self) -> None:
        """Hold the store's bans, and close the open connections they bar."""
        self.bans.load(await self.store.operator.bans(time.time()))
        self._enforce()

    def _enforce(self) -> None:
        if not self.bans.held:
            return
        for conn in list(self.connections):
            why = self.barred(conn.address, conn.player)
            if why is not None and not conn.closing:
                conn.close_with(codes.BANNED, why)

    def barred(self, address: str | None, player: str | None = None) -> str | None:
        """Why this address or player is refused now (None: it is not)."""
        return self.bans.barred("address", address) or self.bans.barred("player", player)

    def report_now(self) -> dict[str, Any]:
        """What this node says of itself."""
        conns = list(self.connections)
        by_address = Counter(str(c.address) for c in conns)
        cluster = self.cluster
        lease_age = None if cluster is None else round(time.monotonic() - cluster.last_renewed, 3)
        return {
            "address": self.settings.advertised,
            "rooms": len(self.rooms.live),
            "connections": len(conns),
            "spectators": sum(1 for c in conns if c.role == "spectator"),
            "addresses": dict(by_address.most_common(ADDRESSES_REPORTED)),
            "lease_age": lease_age,
            "draining": bool(cluster is not None and cluster.draining),
            "version": VERSION,
        }

    async def report(self) -> None:
        await self.store.operator.report(self.node, self.report_now(), time.time())

    # -- reading ---------------------------------------------------------------------------

    async def nodes(self) -> list[dict[str, Any]]:
        """Every node that reported lately (this one as of now)."""
        await self.report()
        return await self.store.operator.reports(time.time(), REPORT_TTL)

    async def addresses(self) -> list[dict[str, Any]]:
        """Open connections by client address, over every node, most first."""
        total: Counter[str] = Counter()
        where: dict[str, dict[str, int]] = {}
        for node in await self.nodes():
            for address, n in dict(node.get("addresses") or {}).items():
                total[address] += int(n)
                where.setdefault(address, {})[str(node["node"])] = int(n)
        return [{"address": a, "connections": n, "nodes": where[a]} for a, n in total.most_common()]

    async def room_list(
        self, game: str | None, status: str | None, node: str | None
    ) -> list[dict[str, Any]]:
        """The newest rooms (up to :data:`ROOMS_SCANNED`) that match the filters, private
        ones too, each with the node that runs it (None: nobody now)."""
        out: list[dict[str, Any]] = []
        cursor: int | None = 0
        while cursor is not None and cursor < ROOMS_SCANNED:
            if self.cluster is not None:
                page, cursor = await self.cluster.index.page(cursor, 200)
                found = {r: s for r, s in page if s is not None}
                summaries = list((await self.cluster.current(found)).values())
            else:
                summaries, cursor = await self.rooms.list(cursor, 200)
                summaries = [{**s, "node": self.node} for s in summaries]
            out.extend(summaries)
        return [
            s
            for s in out
            if (game is None or s.get("game") == game)
            and (status is None or s.get("status") == status)
            and (node is None or s.get("node") == node)
        ]

    async def room(self, room_id: str) -> dict[str, Any]:
        """One room as its owner sees it, with its last records."""
        info: dict[str, Any] = dict(await self.run("inspect", room_id, {}))
        info["node"] = self.node if self.cluster is None else await self.cluster.owner_of(room_id)
        seq = int(info["log_length"])
        records = await self.store.read(room_id, max(0, seq - LAST_EVENTS))
        info["events"] = [_brief(r.seq, r.data) for r in records][::-1]
        return info

    async def audit(self, limit: int) -> list[dict[str, Any]]:
        return await self.store.operator.audit_tail(max(1, min(500, limit)))

    # -- acting ----------------------------------------------------------------------------

    async def close_room(self, actor: Actor, room_id: str, reason: Any) -> Any:
        reason = _text(reason, "reason")
        work = self.run("close", room_id, {"reason": reason})
        return await self._audited(actor, "close", room_id, {"reason": reason}, work)

    async def remove(self, actor: Actor, room_id: str, target: dict[str, Any], reason: Any) -> Any:
        reason = _text(reason, "reason")
        named = {k: target[k] for k in ("peer", "seat", "player") if target.get(k) is not None}
        if len(named) != 1:
            raise bad("remove names one of peer, seat or player", "peer")
        args = {**named, "reason": reason}
        work = self.run("remove", room_id, args)
        return await self._audited(actor, "remove", room_id, args, work)

    async def hide(self, actor: Actor, room_id: str, seq: Any) -> Any:
        if not isinstance(seq, int) or isinstance(seq, bool) or seq < 1:
            raise bad("seq: the chat line's seq", "seq")
        work = self.run("hide", room_id, {"seq": seq})
        return await self._audited(actor, "hide", room_id, {"seq": seq}, work)

    async def ban(self, actor: Actor, kind: Any, value: Any, minutes: Any, reason: Any) -> Any:
        if kind not in KINDS:
            raise bad("kind: address or player", "kind")
        if not isinstance(value, str) or not 1 <= len(value) <= 200 or not value.isprintable():
            raise bad("value: the address or player id", "value")
        if (
            not isinstance(minutes, int | float)
            or isinstance(minutes, bool)
            or not 0 < minutes <= MAX_BAN_MINUTES
        ):
            raise bad(f"minutes: 0 to {MAX_BAN_MINUTES}", "minutes")
        reason = _text(reason, "reason")
        now = time.time()
        ban = {"kind": kind, "value": value, "until": now + 60.0 * float(minutes),
               "reason": reason, "by": actor.who, "at": now}  # fmt: skip
        details = {"kind": kind, "minutes": minutes, "reason": reason, "until": ban["until"]}
        result = await self._audited(actor, "ban", value, details, self._ban(ban))
        return {"ban": ban, **result}

    async def _ban(self, ban: dict[str, Any]) -> dict[str, Any]:
        entry = {k: v for k, v in ban.items() if k not in ("kind", "value", "until")}
        await self.store.operator.ban(ban["kind"], ban["value"], ban["until"], entry)
        return {"nodes": await self._everywhere("operator_bans", {})}

    async def unban(self, actor: Actor, kind: Any, value: Any) -> Any:
        if kind not in KINDS or not isinstance(value, str):
            raise bad("kind (address or player) and value", "kind")
        return await self._audited(actor, "unban", value, {"kind": kind}, self._unban(kind, value))

    async def _unban(self, kind: str, value: str) -> dict[str, Any]:
        await self.store.operator.unban(kind, value)
        self.bans.remove(kind, value)
        return {"nodes": await self._everywhere("operator_bans", {})}

    async def notice(self, actor: Actor, text: Any) -> Any:
        text = _text(text, "text")
        work = self._everywhere("operator_notice", {"text": text})
        result = await self._audited(actor, "notice", "*", {"text": text}, work)
        told = result["value"]
        return {**result, "told": sum(v for v in told.values() if isinstance(v, int))}

    async def drain(self, actor: Actor, node: str) -> Any:
        return await self._audited(actor, "drain", node, {}, self._drain(node))

    async def _drain(self, node: str) -> Any:
        cluster = self.cluster
        if cluster is None:
            raise RoomRefusal(
                codes.BAD_ACTION, "only a node of a cluster (a redis:// store) drains"
            )
        if node not in {str(r["node"]) for r in await self.nodes()}:
            raise RoomRefusal(codes.BAD_ACTION, f"no node {node!r} reported in the last 10 s")
        if node == self.node:
            return await self._drain_here({})
        return await cluster.call(node, "operator_drain", "")

    async def _audited(
        self, actor: Actor, action: str, target: str, details: dict[str, Any], work: Awaitable[Any]
    ) -> Any:
        """Do ``work`` and write what came of it to the audit log."""
        entry = {"at": time.time(), "who": actor.who, "from": actor.address, "action": action,
                 "target": target, "node": self.node, **details}  # fmt: skip
        try:
            value = await work
        except CodedError as exc:
            entry.update(result=exc.code, message=exc.message)
            self.metrics.operator_actions.inc(action=action, result=exc.code)
            await self.store.operator.audit(entry)
            raise
        entry["result"] = "ok"
        self.metrics.operator_actions.inc(action=action, result="ok")
        await self.store.operator.audit(entry)
        log.info("operator %s (%s) did %s on %s", actor.who, actor.address, action, target)
        return {"ok": True, "value": value}

    async def run(self, op: str, room_id: str, args: dict[str, Any]) -> Any:
        """A room operation where the room runs (this node, or its owner)."""
        if self.cluster is not None:
            return await self.cluster.run(op, room_id, args)
        return await self.rooms.run_op(op, room_id, args)

    async def _everywhere(self, op: str, args: dict[str, Any]) -> dict[str, Any]:
        """Run a node-wide operation on every node that reported lately; each one's answer
        (an error's code for a node that failed)."""
        here = {
            "operator_notice": self._notice_here,
            "operator_bans": self._bans_here,
            "operator_drain": self._drain_here,
        }[op]
        out: dict[str, Any] = {self.node: await here(args)}
        if self.cluster is None:
            return out
        others = [str(r["node"]) for r in await self.nodes() if r["node"] != self.node]
        answers = await asyncio.gather(
            *(self.cluster.call(n, op, "", args) for n in others), return_exceptions=True
        )
        for node, answer in zip(others, answers, strict=True):
            out[node] = answer.code if isinstance(answer, CodedError) else answer
            if isinstance(answer, BaseException) and not isinstance(answer, CodedError):
                out[node] = "failed"
        return out

    # -- what every node does when told ------------------------------------------------------

    async def _notice_here(self, args: dict[str, Any]) -> int:
        text = str(args.get("text", ""))
        told = 0
        for conn in list(self.connections):
            if not conn.closing:
                conn.notify(text)
                told += 1
        return told

    async def _bans_here(self, args: dict[str, Any]) -> int:
        await self.refresh()
        return len(self.bans.held)

    async def _drain_here(self, args: dict[str, Any]) -> bool:
        """Start draining this node (in the background: its rooms go to other nodes)."""
        cluster = self.cluster
        if cluster is None:
            return False
        task = asyncio.get_running_loop().create_task(cluster.drain())
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        return True


def _text(value: Any, field: str) -> str:
    """A reason or notice: a chat line's rules (1-500 characters, nothing invisible)."""
    try:
        return clean_chat(value)
    except ProtocolError as exc:
        raise bad(f"{field}: {exc.message}", field) from None


_HIDDEN = ("token", "seed", "salt", "setup", "hash", "h", "c")
"""Parts of a record the console leaves out (secrets, and bulky command bodies)."""


def _brief(seq: int, data: dict[str, Any]) -> dict[str, Any]:
    """One record of the log as the console shows it."""
    out: dict[str, Any] = {"seq": seq}
    for key, value in data.items():
        if key in _HIDDEN:
            continue
        if key == "e" and isinstance(value, dict):
            out["event"] = value.get("type") or value.get("t")
        elif key == "a" and isinstance(value, dict):
            out["act"] = {k: v for k, v in value.items() if k not in _HIDDEN}
        elif key == "room" and isinstance(value, dict):
            continue
        else:
            out[key] = value
    return out
