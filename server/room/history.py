"""A room's log made public: its history, its view at any seq, its fairness, its export.

Pure functions over a room's plain records (``(seq, data)`` pairs, as the store reads
them). What they show is public by construction:

- every history entry carries the *spectator view's* patch from the seq before it
  (``ops``), never the raw event, until the game is over; the view hides what no one
  may see yet (face-down tokens, deck order, the bag, the seed);
- seat tokens never appear (the log holds only their digests, and those are left out
  too), nor does the digest of a room's invite code; the seed and its salt appear only
  once the game is over, with the raw events and commands, so that anyone can verify
  the dice (:mod:`engine.fairness`);
- a chat line the host hid is gone from everything here: its record stays (the seqs
  stay whole) but without its text, and no view at any seq shows it (:func:`redacted`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from engine.core import get_game
from engine.fairness import Step, Verdict, verify
from protocol.patch import diff
from server.room.model.fold import evolve, start
from server.room.model.records import Created, Played, Record, RoomAct, Seated, from_plain, to_plain
from server.room.model.room import RoomModel
from server.room.views import reference_view

Plain = dict[str, Any]
Log = Sequence[tuple[int, Mapping[str, Any]]]
EXPORT_FORMAT = "rollhouse.export/1"


def public_view(model: RoomModel) -> Plain:
    """What a spectator sees of the room at ``model.seq``."""
    return reference_view(model, None)


def redacted(log: Log) -> list[tuple[int, Mapping[str, Any]]]:
    """The log as anyone may read it: the text of every hidden chat line and the invite
    code's digest taken out (a seat token's digest is left out by :func:`export`)."""
    hidden = {
        data["a"].get("seq")
        for _, data in log
        if data.get("k") == "act" and data["a"].get("type") == "hide"
    }
    out: list[tuple[int, Mapping[str, Any]]] = []
    for seq, data in log:
        if data.get("k") == "act":
            act = data["a"]
            if act.get("type") == "chat" and seq in hidden:
                data = {
                    **data,
                    "a": {"type": "chat", "channel": act.get("channel"), "hidden": True},
                }
            elif act.get("type") == "invite" and act.get("hash") is not None:
                data = {**data, "a": {"type": "invite", "hash": "redacted"}}
        out.append((seq, data))
    return out


def final_model(room_id: str, log: Log) -> RoomModel:
    """The room as its whole log leaves it (for who may see it: :mod:`server.room.access`)."""
    *_, (_, _, model) = _models(room_id, log)
    return model


def _models(room_id: str, log: Log) -> Iterator[tuple[int, Record, RoomModel]]:
    """Each record with the model just after it."""
    model: RoomModel | None = None
    for seq, data in log:
        record = from_plain(data)
        if model is None:
            if not isinstance(record, Created):
                raise ValueError(f"room {room_id}: the log does not start with created")
            model = start(room_id, record)
        else:
            model = evolve(model, seq, record)
        yield seq, record, model


def is_over(room_id: str, log: Log) -> bool:
    *_, (_, _, model) = _models(room_id, log)
    return model.is_over


def view_at(room_id: str, log: Log, seq: int) -> tuple[int, Plain]:
    """The public view at ``seq`` (the log's last seq when ``seq`` is past it)."""
    last: tuple[int, Plain] | None = None
    for at, _, model in _models(room_id, redacted(log)):
        if at > seq:
            break
        last = (at, public_view(model))
    assert last is not None
    return last


def events(room_id: str, log: Log, after: int, limit: int) -> tuple[list[Plain], int | None]:
    """Up to ``limit`` public entries with seq > ``after``, and the next ``after`` (or None)."""
    over = is_over(room_id, log)
    out: list[Plain] = []
    before: Plain | None = None
    for seq, record, model in _models(room_id, redacted(log)):
        view = public_view(model) if seq >= after else None
        if seq > after:
            if len(out) == limit:
                return out, out[-1]["seq"]
            out.append(_entry(seq, record, model, before, view, over))
        before = view
    return out, None


def _entry(
    seq: int, record: Record, model: RoomModel, before: Plain | None, view: Plain | None, over: bool
) -> Plain:
    entry: Plain = {"seq": seq, "at": getattr(record, "at", None), "kind": to_plain(record)["k"]}
    match record:
        case Created():
            entry.update(name="created", game=record.game, seats=record.seats,
                         options=dict(record.options), clock=record.clock, commit=record.commit)  # fmt: skip
            if over:
                entry.update(seed=record.seed, salt=record.salt, setup=record.setup)
        case Played():
            event = model.game.events.trusted(record.event)
            entry.update(name=model.game.public_name(event), seat=record.seat, by=record.by)
            if over:
                entry.update(event=record.event, command=record.command)
        case Seated():
            entry.update(
                name="seated", seat=record.seat, player=record.name, bot=record.bot is not None
            )
        case RoomAct():
            act = {k: v for k, v in record.act.items() if k != "hash"}
            entry.update(name=str(act.get("type")), seat=record.seat, by=record.by,
                         who=record.name, act=act)  # fmt: skip
        case _:
            entry.update(name=entry["kind"], seat=getattr(record, "seat", None))
    entry["ops"] = diff(before, view) if before is not None and view is not None else None
    if entry["ops"] is None:
        entry["view"] = view
    return entry


def fairness(room_id: str, log: Log) -> Verdict:
    """Verify the room's dice from its log (the game must be over: the seed is secret before)."""
    records = [(seq, from_plain(data)) for seq, data in log]
    created = records[0][1]
    assert isinstance(created, Created)
    if not is_over(room_id, log):
        return Verdict(False, 0, "the game is not over: its seed is still secret", None)
    steps: list[Step] = []
    group: list[Mapping[str, Any]] = []
    for seq, record in records[1:]:
        if not isinstance(record, Played):
            continue
        group.append(record.event)
        if record.seat is not None:
            if record.command is None:
                return Verdict(False, len(steps), "the log predates recorded commands", seq)
            steps.append(Step(seq, record.command, group))
            group = []
    return verify(created.game, created.seats, created.options, created.seed, created.salt,
                  created.commit, created.setup, steps)  # fmt: skip


def export(room_id: str, log: Log) -> list[Plain]:
    """A finished game's log for anyone: a header line, then every record without tokens."""
    header = {"format": EXPORT_FORMAT, "room": room_id}
    out: list[Plain] = [header]
    for seq, data in redacted(log):
        record = dict(data)
        if record.get("k") == "seated":
            record["token"] = None
        out.append({"seq": seq, **record})
    return out


def imported(lines: Sequence[Mapping[str, Any]]) -> tuple[str, list[Plain]]:
    """The original room id and the records of an export, checked: ValueError if it is not
    a complete finished game whose dice verify."""
    if not lines or lines[0].get("format") != EXPORT_FORMAT:
        raise ValueError(f"not a Rollhouse export (the first line must say {EXPORT_FORMAT!r})")
    source = str(lines[0].get("room", "?"))
    records: list[Plain] = []
    for expected, line in enumerate(lines[1:], start=1):
        data = dict(line)
        if data.pop("seq", None) != expected:
            raise ValueError(f"line {expected + 1}: records must be numbered 1, 2, 3, ...")
        if data.get("k") == "seated":
            data["token"], data["bot"] = None, data.get("bot")  # nobody can take a seat
        records.append(data)
    log = list(enumerate(records, start=1))
    try:
        game = get_game(str(records[0]["game"]))
        for record in records[1:]:  # client input: checked strictly (the log is folded trusted)
            if record.get("k") == "event":
                game.events.load(record["e"])
        verdict = fairness(source, log)
    except (ValueError, LookupError, TypeError, AttributeError) as exc:
        raise ValueError(f"the records do not rebuild a game: {exc!r}") from None
    if not verdict.ok:
        raise ValueError(f"the game does not verify: {verdict.problem} (seq {verdict.seq})")
    return source, records
