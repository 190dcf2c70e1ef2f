"""A small Prometheus text-format registry: counters, gauges and histograms.

The service needs a handful of series (rooms, connections, commands, rejections
by code, append and fan-out latency); this keeps them without a dependency.
``render()`` returns the exposition text served at ``/metrics``.
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from collections.abc import Callable

LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)

Labels = tuple[tuple[str, str], ...]


def _fmt_labels(labels: Labels, extra: str = "") -> str:
    parts = [f'{k}="{v}"' for k, v in labels]
    if extra:
        parts.append(extra)
    return "{" + ",".join(parts) + "}" if parts else ""


class Counter:
    def __init__(self, name: str, help_: str) -> None:
        self.name, self.help = name, help_
        self.values: dict[Labels, float] = defaultdict(float)

    def inc(self, amount: float = 1.0, **labels: str) -> None:
        self.values[tuple(sorted(labels.items()))] += amount

    def lines(self) -> list[str]:
        out = [f"# HELP {self.name} {self.help}", f"# TYPE {self.name} counter"]
        out += [f"{self.name}{_fmt_labels(k)} {v:g}" for k, v in sorted(self.values.items())]
        return out


class Gauge:
    """A value read when scraped (``fn``) or set directly."""

    def __init__(self, name: str, help_: str, fn: Callable[[], float] | None = None) -> None:
        self.name, self.help, self.fn = name, help_, fn
        self.value = 0.0

    def set(self, value: float) -> None:
        self.value = value

    def lines(self) -> list[str]:
        value = self.fn() if self.fn else self.value
        return [
            f"# HELP {self.name} {self.help}",
            f"# TYPE {self.name} gauge",
            f"{self.name} {value:g}",
        ]


class Histogram:
    def __init__(self, name: str, help_: str, buckets: tuple[float, ...] = LATENCY_BUCKETS) -> None:
        self.name, self.help, self.buckets = name, help_, buckets
        self.counts = [0] * (len(buckets) + 1)
        self.sum = 0.0
        self.count = 0

    def observe(self, value: float) -> None:
        self.counts[bisect.bisect_left(self.buckets, value)] += 1
        self.sum += value
        self.count += 1

    def lines(self) -> list[str]:
        out = [f"# HELP {self.name} {self.help}", f"# TYPE {self.name} histogram"]
        running = 0
        for bound, n in zip(self.buckets, self.counts, strict=False):
            running += n
            out.append(f'{self.name}_bucket{{le="{bound:g}"}} {running}')
        out.append(f'{self.name}_bucket{{le="+Inf"}} {self.count}')
        out += [f"{self.name}_sum {self.sum:g}", f"{self.name}_count {self.count}"]
        return out


class Metrics:
    """The service's series. One instance per app."""

    def __init__(self) -> None:
        self.commands = Counter("rollhouse_commands_total", "Commands accepted, by game.")
        self.rejections = Counter("rollhouse_rejections_total", "Commands rejected, by code.")
        self.protocol_errors = Counter("rollhouse_protocol_errors_total", "Bad frames, by code.")
        self.dropped = Counter(
            "rollhouse_connections_dropped_total", "Connections dropped, by reason."
        )
        self.refused = Counter(
            "rollhouse_limit_refusals_total",
            "Requests, handshakes and messages refused by a limit, by limit.",
        )
        self.retries = Counter(
            "rollhouse_retries_total",
            "Room writes (clock timeouts, bot moves, takeovers, bookkeeping) or settles "
            "retried after a store failure, by reason.",
        )
        self.append_failures = Counter(
            "rollhouse_append_failures_total",
            "Appends that failed, by outcome (certain: nothing written; unknown: settled "
            "from the log).",
        )
        self.operator_actions = Counter(
            "rollhouse_operator_actions_total",
            "Operator console actions asked of this node, by action and result (ok or the "
            "refusal's code).",
        )
        self.rooms_loaded_at_start = Counter(
            "rollhouse_rooms_loaded_at_start_total",
            "Rooms loaded at start-up because time alone moves them.",
        )
        self.append_latency = Histogram("rollhouse_append_seconds", "Store append latency.")
        self.load_seconds = Histogram(
            "rollhouse_room_load_seconds", "Time to load a room from its snapshot and log."
        )
        self.snapshots = Counter(
            "rollhouse_snapshots_total", "Room snapshots written beside the log, by outcome."
        )
        self.fanout_latency = Histogram(
            "rollhouse_fanout_seconds",
            "Time to fold a durable write into the room and build and queue its patches.",
        )
        self.fencing_refusals = Counter(
            "rollhouse_fencing_refusals_total",
            "Appends or settles refused because another owner moved the room's fence epoch.",
        )
        self.store_regressions = Counter(
            "rollhouse_store_regressions_total",
            "A room's log or fence found below what this node acknowledged or wrote, by "
            "what (log, fence): the store lost acknowledged writes (a failover or restart "
            "its settings did not cover, deploy/README.md).",
        )
        self.ticks_restarted = Counter(
            "rollhouse_ticks_restarted_total",
            "Cluster ticks (lease renewal and what follows it) found in one step for two "
            "leases (each is bounded by one), cancelled and started again; the node's log "
            "says where each waited.",
        )
        self.leases = Counter(
            "rollhouse_leases_total",
            "Room leases by event: taken, renewed, lost (expired or taken by another node), "
            "released (handed over on drain).",
        )
        self.failovers = Counter(
            "rollhouse_failovers_total",
            "Rooms this node took over from a node whose lease lapsed (it did not hand them over).",
        )
        self.summaries_mended = Counter(
            "rollhouse_summaries_mended_total",
            "Room summaries this node found behind their room's log with no live owner to "
            "publish them (a node killed between an append and its summary), folded again "
            "from the log and written back to the index.",
        )
        self.forwarded = Counter(
            "rollhouse_forwarded_total",
            "Messages between a room's owner and the node holding the client's socket: "
            "direction in (received as the owner) or out (sent as the relay), by kind "
            "(hello, cmd, resync, leave, call); direction back: received as the relay from "
            "an owner, by kind (frames: one message carries a frame for every connection "
            "of this node it is for, so a patch for 50 spectators here counts once; close, "
            "result).",
        )
        self.forward_latency = Histogram(
            "rollhouse_forward_seconds",
            "Cross-node delay of a forwarded command: from the relay node's XADD to the owner "
            "reading it (wall clocks of two nodes).",
        )
        self.relay_latency = Histogram(
            "rollhouse_relay_seconds",
            "Round trip of a command this node forwarded to the room's owner, from the "
            "forward to the answer's frame coming back (one clock: this node's).",
        )
        self.ack_latency = Histogram(
            "rollhouse_ack_seconds",
            "Time from a command reaching its room's mailbox to its answer (ack or rejection) "
            "handed to the connection: the wait in the mailbox, the append and the fan-out.",
        )
        self.append_stalled = Gauge(
            "rollhouse_append_stalled_seconds",
            "The longest time a live room of this node has gone since a store write of its "
            "failed with none succeeding since (0: every room's last write succeeded).",
        )
        self.store_up = Gauge(
            "rollhouse_store_up",
            "1 if the event store answered this node's last check (each scrape and each "
            "readiness probe asks it, within 2 s), else 0.",
        )
        self.lease_seconds = Gauge(
            "rollhouse_lease_seconds", "The room lease this node holds rooms by (cluster mode)."
        )
        self.lease_renewal_age = Gauge(
            "rollhouse_lease_renewal_age_seconds",
            "Seconds since this node last renewed its leases (cluster mode; past the lease, "
            "other nodes may take its rooms and it is not ready).",
        )
        self.signins = Counter(
            "rollhouse_signins_total",
            "Sign-ins with a username and password, by outcome (ok, bad_credentials, limited).",
        )
        self.rooms = Gauge("rollhouse_rooms_live", "Rooms loaded in memory.")
        self.rooms_owned = Gauge(
            "rollhouse_rooms_owned", "Rooms whose lease this node holds (cluster mode)."
        )
        self.connections = Gauge("rollhouse_connections", "Open websocket connections.")
        self.spectators = Gauge("rollhouse_spectators", "Open spectator connections.")

    def render(self) -> str:
        series: list[Counter | Gauge | Histogram] = [
            self.rooms, self.connections, self.spectators, self.commands, self.rejections,
            self.protocol_errors, self.dropped, self.refused, self.retries, self.append_failures,
            self.rooms_loaded_at_start, self.append_latency, self.fanout_latency,
            self.rooms_owned, self.leases, self.failovers, self.fencing_refusals, self.forwarded,
            self.summaries_mended, self.store_regressions, self.ticks_restarted,
            self.forward_latency, self.relay_latency, self.load_seconds, self.snapshots,
            self.ack_latency, self.append_stalled, self.store_up, self.lease_seconds,
            self.lease_renewal_age, self.signins,
        ]  # fmt: skip
        return "\n".join(line for s in series for line in s.lines()) + "\n"
