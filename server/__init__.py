"""The Rollhouse server: rooms live over websockets, every change an event in a log.

Its packages, lowest first; each imports only those above it in this list (checked by
tests/test_layout.py, which also finds no import circles):

| package | owns |
|---|---|
| base modules: ``config``, ``errors``, ``logs``, ``metrics``, ``limits`` | settings, the server's refusals, logs, the Prometheus registry, the pure limits |
| :mod:`server.store` | the event log of every room (memory, SQLite, Redis) |
| :mod:`server.room` | a live room: its pure core, its model, its fan-out, its asyncio shell; the rooms of a node |
| :mod:`server.people` | players and their sessions: sign-in, tokens, passwords, the limits on guessing (beside the room, on the store) |
| :mod:`server.cluster` | several nodes as one service: leases, relays, the shared index |
| :mod:`server.operator` | the operator console: its token, the bans every node holds, its actions and audit log |
| :mod:`server.services` | what every request handler of a node reaches |
| :mod:`server.edge` | the network edge: our websocket protocol, one connection per socket, its handshake |
| :mod:`server.api` | the HTTP API (Starlette), history routes, the web client's files |
| :mod:`server.serve_cmd` | ``rollhouse serve``: uvicorn with the app and our websocket protocol |

docs/architecture.md walks a command from its frame to its ack and patches.
"""
