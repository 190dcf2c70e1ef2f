"""A deliberately broken build for a negative control: ``rollhouse serve`` whose leases
trust the node's wall clock (run as ``python -m tests.support.wallclock_leases serve
...``, as ServerProcess(module=...) does).

The real leases are Redis's own ``PX`` timers: a duration, counted by Redis. Here a
claim and a renewal set the lease to expire at an absolute time computed from the
node's wall clock (``PXAT`` / ``PEXPIREAT``, as a lease ``expires_at`` written by its
holder would be): a holder whose clock runs five minutes ahead keeps its lease five
minutes past its death (nobody takes its rooms over), one five minutes behind loses
it at once. Only the lease scripts change; fences and everything else are as built.
"""

from __future__ import annotations

import runpy
import time
from typing import Any

from server.cluster import leases

leases.CLAIM = leases.CLAIM.replace("'PX', ARGV[2]", "'PXAT', ARGV[2]")
leases.RENEW = leases.RENEW.replace("'PEXPIRE'", "'PEXPIREAT'").replace(
    "'PX', ARGV[2]", "'PXAT', ARGV[2]"
)
assert "PXAT" in leases.CLAIM and "PEXPIREAT" in leases.RENEW

_take, _renew = leases.Leases.take, leases.Leases.renew


def _wall(self: leases.Leases) -> None:
    """The lease's end as this node's wall clock sees it (ms since the epoch)."""
    if not hasattr(self, "lease_ms"):
        self.lease_ms = self.px  # type: ignore[attr-defined]
    self.px = int(time.time() * 1000) + self.lease_ms  # type: ignore[attr-defined]


async def take(self: leases.Leases, room: str) -> Any:
    _wall(self)
    return await _take(self, room)


async def renew(self: leases.Leases, rooms: dict[str, int]) -> Any:
    _wall(self)
    return await _renew(self, rooms)


leases.Leases.take = take  # type: ignore[method-assign]
leases.Leases.renew = renew  # type: ignore[method-assign]

if __name__ == "__main__":
    runpy.run_module("clients.cli", run_name="__main__", alter_sys=True)
