"""Players and their sessions: who someone is, across devices and nodes.

- :mod:`server.people.player`     ``Player``, player ids, session tokens, username and
  password checks (pure)
- :mod:`server.people.passwords`  argon2id hashes, off the event loop
- :mod:`server.people.policy`     how long sessions last, every limit on guessing
- :mod:`server.people.service`    ``People``, the service (``Services.people``)
- :mod:`server.people.errors`     ``PeopleRefusal``

A **player** is an id (``p-`` and 16 random hex digits; public: rooms and other
players see it), a display name (``protocol.text.clean_name``: NFKC, 1-32
characters, no control, bidi or zero-width characters; clients render it as text),
a created-at time, and, once the player adds them, a username (3-32 of
``a-z 0-9 . _ -``, case-folded) and an argon2id password hash (OWASP's parameters:
19 MiB, 2 passes, 1 lane). A guest is a player without a username.

A **session token** is ``<player id>.<secret>``, the secret 256 random bits
(43 characters of URL-safe base64). The store keeps only the secret's SHA-256
digest, under the player's id, keyed by the digest's first half; the token is
checked by comparing the whole digest in constant time. Because the token names its
player, all of a player's sessions live under one key of the store: "sign out
everywhere" is one atomic step on every backend (one DELETE on SQLite, one DEL on
Redis), and a session's use can never bring back a session ended meanwhile (a touch
only updates one that exists). A session ends when signed out, when its player signs
out everywhere, or after 30 days unused (each use moves that on; the last use is
written at most every 5 minutes, so it may end up to 5 minutes early).

**Guessing is bounded** (numbers in :mod:`server.people.policy`; every refusal is
counted in ``/metrics`` and carries ``Retry-After``): failed sign-ins back off
exponentially per account and per address, counted in the store before the password
is checked (so a burst of requests at once gets no more tries than one after
another); an unknown username gets the same answer as a wrong password, after a
verification of the same cost; tokens that open nothing are counted per address
in the store and, past the limit, every node that sees one more refuses that
address's sessions for a minute.

May import the base modules and :mod:`server.store`.
"""

from __future__ import annotations

from server.people.errors import PeopleRefusal
from server.people.player import Player
from server.people.policy import Policy
from server.people.service import People, address_key

__all__ = ["People", "PeopleRefusal", "Player", "Policy", "address_key"]
