"""Several nodes on one Redis as one service (docs/cluster.md). May import the base
modules, :mod:`server.store` and :mod:`server.room`.

- :mod:`server.cluster.leases`  who runs a room: a lease per room carrying the fence
  epoch that the room's appends must present (the claim is the one INCR of it)
- :mod:`server.cluster.relay`   connections to a room run elsewhere: their hellos,
  commands and leaves travel to the owner's inbox stream, its frames come back
  through this node's inbox stream
- :mod:`server.cluster.index`   the room list every node serves, kept in Redis
- :mod:`server.cluster.node`    the node: renewals, takeovers, drain, health
"""
