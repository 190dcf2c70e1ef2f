"""engine.data: lossless round trips and strict, field-naming rejections."""

from __future__ import annotations

from typing import ClassVar, Literal

import attrs
import pytest

from engine.data import Registry, from_data, to_data
from engine.errors import InvalidCommand


@attrs.frozen
class Inner:
    a: int
    b: tuple[str, ...] = ()


@attrs.frozen
class Sample:
    TYPE: ClassVar[str] = "sample"
    seat: int
    value: int | None
    inner: Inner
    bag: frozenset[int] = frozenset()
    counts: dict[int, int] = attrs.field(factory=dict)
    kind: Literal["x", "y"] = "x"


def test_round_trip_is_lossless() -> None:
    """to_data then from_data gives back an equal value."""
    value = Sample(1, None, Inner(2, ("p", "q")), frozenset({3, 1}), {5: 2, -5: 1}, "y")
    data = to_data(value)
    assert data["type"] == "sample"
    assert data["bag"] == [1, 3]
    assert data["counts"] == {"5": 2, "-5": 1}
    assert from_data(Sample, data) == value


@pytest.mark.parametrize(
    ("patch", "code", "field"),
    [
        ({"seat": "1"}, "command/bad_field", "sample.seat"),
        ({"seat": True}, "command/bad_field", "sample.seat"),
        ({"extra": 1}, "command/unknown_field", "extra"),
        ({"kind": "z"}, "command/bad_field", "sample.kind"),
        ({"inner": {"a": 1, "b": [1]}}, "command/bad_field", "sample.inner.b[0]"),
    ],
)
def test_bad_fields_are_named(patch: dict[str, object], code: str, field: str) -> None:
    """Each wrong type or unknown field raises InvalidCommand naming it."""
    data = {"type": "sample", "seat": 0, "value": 1, "inner": {"a": 1}, **patch}
    with pytest.raises(InvalidCommand) as info:
        from_data(Sample, data, where="sample")
    assert info.value.code == code
    assert info.value.details["field"] == field


def test_missing_field_is_named() -> None:
    """A required field that is absent is command/missing_field."""
    with pytest.raises(InvalidCommand) as info:
        from_data(Sample, {"type": "sample", "value": 1, "inner": {"a": 1}})
    assert info.value.code == "command/missing_field"
    assert info.value.details["field"] == "seat"


def test_registry_rejects_unknown_type_and_server_fields() -> None:
    """Registry.load: unknown tags are command/unknown_type; server-set fields can't be sent."""
    reg = Registry("command", [Sample])
    with pytest.raises(InvalidCommand) as info:
        reg.load({"type": "nope"})
    assert info.value.code == "command/unknown_type"
    with pytest.raises(InvalidCommand) as info:
        reg.load({"type": "sample", "seat": 3, "value": 1, "inner": {"a": 1}}, seat=0)
    assert info.value.code == "command/unknown_field"
    ok = reg.load({"type": "sample", "value": 1, "inner": {"a": 1}}, seat=2)
    assert ok.seat == 2
