"""The network edge: where sockets become connections to rooms.

- :mod:`server.edge.protocol`   our asyncio protocol on websockets' sans-I/O
  ``ServerProtocol`` (the one way frames come in and go out), and the keepalive sweep
- :mod:`server.edge.handshake`  what an upgrade request is answered (path, Origin,
  connections per address, subprotocol)
- :mod:`server.edge.connection` one socket's connection: decode, limits, the room

May import: the base modules, :mod:`server.room` and :mod:`server.services`.
"""
