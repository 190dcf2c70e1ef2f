"""Hypothesis strategies for protocol tests: plain data, patch ops and every message."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from protocol.messages import (
    Ack,
    Command,
    Error,
    Hello,
    Patch,
    Ping,
    Pong,
    Presence,
    Reject,
    Resync,
    SeatPresence,
    Snapshot,
    Welcome,
)
from protocol.plain import INT_MAX, INT_MIN

keys = st.text(max_size=4)
scalars: st.SearchStrategy[Any] = (
    st.none()
    | st.booleans()
    | st.integers(INT_MIN, INT_MAX)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
)
plain: st.SearchStrategy[Any] = st.recursive(
    scalars,
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(keys, kids, max_size=4),
    max_leaves=16,
)
maps: st.SearchStrategy[dict[str, Any]] = st.dictionaries(keys, plain, max_size=4)
seqs = st.integers(0, INT_MAX)
small_text = st.text(max_size=12)
opt_text = st.none() | small_text
roles = st.sampled_from(["player", "spectator"])

paths = st.lists(st.text(max_size=3) | st.integers(0, 5), max_size=3)
ops = st.one_of(
    st.fixed_dictionaries(
        {"op": st.sampled_from(["replace", "add"]), "path": paths, "value": plain}
    ),
    st.fixed_dictionaries({"op": st.just("remove"), "path": paths.filter(bool)}),
).filter(lambda op: op["path"] or op["op"] == "replace")

client_messages: st.SearchStrategy[Any] = st.one_of(
    st.builds(
        Hello,
        room=small_text,
        role=roles,
        name=st.none() | st.text(min_size=1, max_size=32),
        seat_token=opt_text,
        last_seq=st.none() | seqs,
    ),
    st.builds(
        Command,
        id=st.text(min_size=1, max_size=64),
        command=st.fixed_dictionaries({"type": small_text}, optional={"value": plain}),
    ),
    st.builds(Resync),
    st.builds(Ping, nonce=st.none() | st.integers(INT_MIN, INT_MAX)),
)

seat_presence = st.builds(
    SeatPresence, seat=st.integers(0, 8), name=opt_text, connected=st.booleans(), bot=st.booleans()
)
finite = st.floats(allow_nan=False, allow_infinity=False)

server_messages: st.SearchStrategy[Any] = st.one_of(
    st.builds(
        Welcome,
        room=small_text,
        game=small_text,
        role=roles,
        seat=st.none() | st.integers(0, 8),
        seat_token=opt_text,
        seq=seqs,
        view=st.none() | maps,
        server_time=finite,
    ),
    st.builds(Snapshot, seq=seqs, view=maps),
    st.builds(Ack, id=small_text, seq=seqs),
    st.builds(Reject, id=small_text, code=small_text, message=small_text, details=maps),
    st.builds(
        Patch,
        from_=seqs,
        to=seqs,
        ops=st.lists(ops, max_size=4).map(tuple),
        events=st.lists(small_text, max_size=3).map(tuple),
    ),
    st.builds(
        Presence,
        seats=st.lists(seat_presence, max_size=4).map(tuple),
        spectators=st.integers(0, 1000),
    ),
    st.builds(Error, code=small_text, message=small_text, field=opt_text, fatal=st.booleans()),
    st.builds(Pong, nonce=st.none() | st.integers(INT_MIN, INT_MAX), server_time=finite),
)

# Views of one shape with small value domains, so two draws share most of their parts
# and diff recurses, appends, truncates and removes keys (not just replaces the root).
_small = st.integers(0, 2) | st.booleans() | st.none()
_small_list = st.lists(_small, max_size=5)
views: st.SearchStrategy[Any] = st.fixed_dictionaries(
    {
        "n": st.integers(0, 3),
        "l": _small_list,
        "m": st.dictionaries(st.sampled_from("abc"), _small | _small_list, max_size=3),
        "rows": st.lists(st.fixed_dictionaries({"k": _small, "v": _small_list}), max_size=3),
    }
)
