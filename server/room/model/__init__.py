"""A room's model: the records of its log and their plain form in the store
(:mod:`~.records`), the digests the log keeps of seat tokens and command bodies
(:mod:`~.digests`), the room model the log describes (:mod:`~.room`) and the pure fold
of records into it (:mod:`~.fold`), the answers a command id keeps for good
(:mod:`~.answers`) and snapshots of the folded model (:mod:`~.snapshots`). Pure;
imports nothing of the room above it."""
