"""The operator console (deploy/README.md, docs/protocol.md 12.3): what an operator sees
of the service and does to it, behind the operator token. May import the base modules,
:mod:`server.store`, :mod:`server.room` and :mod:`server.cluster`.

- :mod:`server.operator.key`      the token: kept as its SHA-256, compared in constant time
- :mod:`server.operator.bans`     the bans in force, as each node holds them (pure)
- :mod:`server.operator.console`  the console's service: nodes, rooms, connections, the
  actions (close, remove, hide, ban, notice, drain), each written to the audit log
"""
