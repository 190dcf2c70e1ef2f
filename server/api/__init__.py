"""The HTTP API (Starlette): health, games, rooms, history, metrics, the web client.

- :mod:`server.api.app`      the application, its routes and its lifespan
- :mod:`server.api.history`  a room's public history, view at a seq, verify, export, import

May import every other part of :mod:`server`.
"""
