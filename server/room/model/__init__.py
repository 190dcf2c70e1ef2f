"""A room's model: the records of its log and their pure fold (:mod:`~.records`), the
answers a command id keeps for good (:mod:`~.answers`) and snapshots of the folded
model (:mod:`~.snapshots`). Pure; imports nothing of the room above it."""
