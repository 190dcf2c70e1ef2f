"""A live room, from the input that reaches it to the frames it sends.

Pure (no clock, no I/O; tests/test_boundaries.py checks):

- :mod:`server.room.io`        the core's typed inputs and outputs
- :mod:`server.room.core`      :class:`~server.room.core.RoomCore`, one class holding its parts:
- :mod:`server.room.table`     joins, seats, welcomes, resumes, presence
- :mod:`server.room.commands`  a command decided into records or an answer
- :mod:`server.room.clock`     clocks, hosted bots, takeovers, timers
- :mod:`server.room.then`      what each write is for (continuations as tagged values)
- :mod:`server.room.state`     what the parts share, and the write in flight
- :mod:`server.room.fanout`    messages become frames, per viewer and codec
- :mod:`server.room.views`     every viewer's view and the patches that move them
- :mod:`server.room.model`     records, the model they fold into, durable answers, snapshots
- :mod:`server.room.rebuild`   a core rebuilt from its log
- :mod:`server.room.history`   the log made public (history, view at a seq, verify, export)
- :mod:`server.room.ownership` who may write a room's log (the fence a claim returns)
- :mod:`server.room.settings`  a room's own settings checked, with their defaults

The asyncio shell:

- :mod:`server.room.handle`    ``RoomHandle`` (how a connection reaches a room) and ``Peer``
- :mod:`server.room.mailbox`   the room's inputs in arrival order
- :mod:`server.room.shell`     :class:`~server.room.shell.Room`, the actor around the core,
                               holding its parts:
- :mod:`server.room.peers`     its connections and the frames held for them (awaits nothing)
- :mod:`server.room.writes`    its writes to the store, each outcome the core's next input
- :mod:`server.room.rooms`     the rooms of one node: create, load, list, unload

May import: the base modules of :mod:`server` and :mod:`server.store`.
"""
