"""``rollhouse serve``: run the server on uvicorn (embedded SQLite store by default)."""

from __future__ import annotations

import argparse
import importlib.util
from typing import Any

from server.config import Settings, parse_origins


def add_parser(sub: Any) -> None:  # what ArgumentParser.add_subparsers() returned
    p = sub.add_parser("serve", help="run the game server")
    p.add_argument("--host", help="interface to bind (env ROLLHOUSE_HOST, default 127.0.0.1)")
    p.add_argument("--port", type=int, help="port (env ROLLHOUSE_PORT, default 8000)")
    p.add_argument(
        "--store",
        help="event store URL: sqlite:///path, redis://host:port/db, "
        "redis+cluster://host:port[,host:port...], memory://",
    )
    p.add_argument("--origins", help="comma-separated allowed browser origins, or *")
    p.add_argument("--idle-unload", type=float, help="seconds before an idle room leaves memory")
    p.add_argument(
        "--rate", type=float, help="messages a second per connection (bursts of twice that)"
    )
    p.add_argument("--node-id", help="this node's name in a cluster (env ROLLHOUSE_NODE_ID)")
    p.add_argument(
        "--advertise-url", help="how other nodes reach this one (env ROLLHOUSE_ADVERTISE_URL)"
    )
    p.add_argument(
        "--lease",
        type=float,
        help="seconds a room's lease lasts; a dead node's rooms move after it (default 2)",
    )
    p.add_argument("--log-level", default="info")
    p.add_argument("--log-format", choices=["json", "text"], default="json")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from server.api.app import create_app, drain, tune_gc
    from server.edge.protocol import WebSocketEdge
    from server.logs import setup_logging

    settings = Settings.from_env(
        host=args.host,
        port=args.port,
        store_url=args.store,
        allowed_origins=parse_origins(args.origins) if args.origins else None,
        idle_unload_seconds=args.idle_unload,
        rate_per_second=args.rate,
        node_id=args.node_id,
        advertise_url=args.advertise_url,
        lease_seconds=args.lease,
    )
    setup_logging(args.log_level, args.log_format)
    print(
        f"Rollhouse serving on http://{settings.host}:{settings.port}/"
        f"  (store: {settings.store_url})",
        flush=True,
    )
    app = create_app(settings)

    class Server(uvicorn.Server):
        """Drains the node (a cluster: hand rooms over, move clients) before closing sockets."""

        async def shutdown(self, sockets: list[Any] | None = None) -> None:
            await drain(app)
            await super().shutdown(sockets)

    config = uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        ws=WebSocketEdge,  # our own websocket protocol on websockets' sans-I/O layer
        ws_max_size=1 << 20,
        ws_per_message_deflate=False,
        loop="uvloop" if importlib.util.find_spec("uvloop") else "asyncio",
        log_level="warning",
        lifespan="on",
    )
    tune_gc(settings.gc_thresholds)
    Server(config).run()
    return 0
