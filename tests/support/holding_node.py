"""A deliberately broken build for a negative control: ``rollhouse serve`` whose node
never lets its clients go when it is cut off from its Redis Cluster (run as ``python -m
tests.support.holding_node serve ...``, as ServerProcess(module=...) does).

The real node, once no renewal has reached Redis for a lease, closes every connection
it holds with ``room/moved`` (``Node._let_go``): its players resume on a node that
reaches Redis. Here it keeps them (as a node on one Redis does): their connections are
fine, pings are answered, and their commands wait on a store the node cannot reach, so
their games stand still for as long as the cut lasts. Everything else is as built.
"""

from __future__ import annotations

import runpy
from typing import Any

from server.cluster import node

_init = node.Node.__init__


def _holding(self: node.Node, *args: Any, **kwargs: Any) -> None:
    _init(self, *args, **kwargs)
    self.lets_go = False


node.Node.__init__ = _holding  # type: ignore[method-assign]

if __name__ == "__main__":
    runpy.run_module("clients.cli", run_name="__main__", alter_sys=True)
