"""protocol.patch: small ops for common changes, strict apply, and the diff/apply laws."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings

from protocol.codec import JSON, MSGPACK
from protocol.errors import BAD_PATCH, PatchError, ProtocolError
from protocol.messages import Patch
from protocol.patch import apply, diff, same
from tests.protocol.strategies import plain, views

VIEW = {"game": {"turn": 0, "piles": [[1, 2], [3]], "log": ["a"]}, "room": {"status": "playing"}}


def test_counter_change_is_one_replace() -> None:
    """Changing one number deep in the view gives exactly one replace op at its path."""
    new = copy.deepcopy(VIEW)
    new["game"]["turn"] = 1  # type: ignore[index]
    assert diff(VIEW, new) == [{"op": "replace", "path": ["game", "turn"], "value": 1}]


def test_append_is_one_add() -> None:
    """Appending to a list gives one add op at the new index."""
    new = copy.deepcopy(VIEW)
    new["game"]["log"].append("b")  # type: ignore[index]
    assert diff(VIEW, new) == [{"op": "add", "path": ["game", "log", 1], "value": "b"}]


def test_truncation_removes_from_the_end() -> None:
    """Shortening a list keeps its prefix and removes the tail, last index first."""
    assert diff([1, 2, 3, 4], [1, 2]) == [
        {"op": "remove", "path": [3]},
        {"op": "remove", "path": [2]},
    ]


def test_big_length_changes_replace_the_list() -> None:
    """Emptying a list, or growing it by more than it kept, is one replace op."""
    assert diff({"l": [1, 2, 3]}, {"l": []}) == [{"op": "replace", "path": ["l"], "value": []}]
    assert diff([1], [1, 2, 3]) == [{"op": "replace", "path": [], "value": [1, 2, 3]}]
    assert diff([], [1]) == [{"op": "add", "path": [0], "value": 1}]


def test_other_list_changes_replace_the_list() -> None:
    """Removing from the front (length and prefix both change) replaces the whole list."""
    assert diff({"l": [1, 2, 3]}, {"l": [2, 3]}) == [
        {"op": "replace", "path": ["l"], "value": [2, 3]}
    ]


def test_map_keys_added_and_removed() -> None:
    """A new key is an add, a vanished key a remove."""
    assert diff({"a": 1}, {"b": 2}) == [
        {"op": "remove", "path": ["a"]},
        {"op": "add", "path": ["b"], "value": 2},
    ]


def test_type_change_replaces_and_root_replace_works() -> None:
    """A scalar that becomes a map is replaced; a new root is a [] replace."""
    ops = diff([1], {"a": 1})
    assert ops == [{"op": "replace", "path": [], "value": {"a": 1}}]
    assert apply([1], ops) == {"a": 1}


def test_strict_equality_sees_bool_int_float() -> None:
    """1, 1.0 and True are different values to diff."""
    assert diff(1, True) != []
    assert diff(1, 1.0) != []
    assert diff(0.0, -0.0) != []
    assert diff([1, (2,)], ((1,), [2])) != []
    assert diff([1, (2,)], (1, [2])) == []


BAD_OPS: list[tuple[str, Any, dict[str, Any]]] = [
    ("add existing key", {"a": 1}, {"op": "add", "path": ["a"], "value": 2}),
    ("remove missing key", {"a": 1}, {"op": "remove", "path": ["b"]}),
    ("replace missing key", {"a": 1}, {"op": "replace", "path": ["b"], "value": 2}),
    ("replace out of range", {"l": [1]}, {"op": "replace", "path": ["l", 1], "value": 2}),
    ("add past the end", {"l": [1]}, {"op": "add", "path": ["l", 2], "value": 2}),
    ("remove negative index", {"l": [1]}, {"op": "remove", "path": ["l", -1]}),
    ("through a scalar", {"a": 1}, {"op": "replace", "path": ["a", "b"], "value": 2}),
    ("str index on list", {"l": [1]}, {"op": "replace", "path": ["l", "0"], "value": 2}),
    ("int key on map", {"a": 1}, {"op": "add", "path": [0], "value": 2}),
    ("missing parent", {"a": 1}, {"op": "add", "path": ["x", "y"], "value": 2}),
    ("add at root", {"a": 1}, {"op": "add", "path": [], "value": 2}),
    ("remove root", {"a": 1}, {"op": "remove", "path": []}),
    ("unknown op", {"a": 1}, {"op": "move", "path": ["a"]}),
    ("missing value", {"a": 1}, {"op": "replace", "path": ["a"]}),
    ("value on remove", {"a": 1}, {"op": "remove", "path": ["a"], "value": 1}),
    ("extra field", {"a": 1}, {"op": "replace", "path": ["a"], "value": 1, "from": []}),
    ("path not a list", {"a": 1}, {"op": "replace", "path": "a", "value": 1}),
    ("bool in path", {"l": [1]}, {"op": "replace", "path": ["l", True], "value": 1}),
]


@pytest.mark.parametrize(("view", "op"), [c[1:] for c in BAD_OPS], ids=[c[0] for c in BAD_OPS])
def test_ops_that_do_not_fit_raise_patch_error(view: Any, op: dict[str, Any]) -> None:
    """apply raises PatchError (a ProtocolError, code protocol/bad_patch) and leaves view alone."""
    before = copy.deepcopy(view)
    with pytest.raises(PatchError) as info:
        apply(view, [op])
    assert isinstance(info.value, ProtocolError)
    assert info.value.code == BAD_PATCH
    assert view == before


def test_a_non_map_op_is_refused() -> None:
    """An op that is not a map is a PatchError, not a TypeError."""
    with pytest.raises(PatchError):
        apply({}, [["replace", [], 1]])  # type: ignore[list-item]


def test_list_add_inserts_and_remove_shifts() -> None:
    """add at an index inserts before it; remove shifts the tail down."""
    ops = [{"op": "add", "path": [0], "value": "z"}, {"op": "remove", "path": [2]}]
    assert apply(["a", "b", "c"], ops) == ["z", "a", "c"]


def test_apply_mutates_neither_view_nor_op_values() -> None:
    """Later ops that reach into a value added by an earlier op copy it first."""
    value: dict[str, Any] = {"inner": [1]}
    ops: list[dict[str, Any]] = [
        {"op": "add", "path": ["x"], "value": value},
        {"op": "add", "path": ["x", "inner", 1], "value": 2},
        {"op": "replace", "path": ["game", "turn"], "value": 9},
    ]
    view = copy.deepcopy(VIEW)
    out = apply(view, ops)
    assert value == {"inner": [1]}
    assert view == VIEW
    assert out["x"] == {"inner": [1, 2]}
    assert out["game"]["turn"] == 9
    assert out["room"] is view["room"]


def test_view_tuples_are_read_as_lists() -> None:
    """A view holding tuples is patched into lists without error."""
    assert apply({"l": (1, 2)}, [{"op": "add", "path": ["l", 2], "value": 3}]) == {"l": [1, 2, 3]}


@settings(max_examples=300, deadline=None)
@given(a=plain, b=plain)
def test_apply_of_diff_gives_the_new_value(a: Any, b: Any) -> None:
    """apply(a, diff(a, b)) is strictly b, diff(a, a) is [], and a is not mutated."""
    before = copy.deepcopy(a)
    ops = diff(a, b)
    assert same(apply(a, ops), b)
    assert same(a, before)
    assert diff(a, a) == []
    assert diff(a, copy.deepcopy(a)) == []


@settings(max_examples=300, deadline=None)
@given(a=views, b=views)
def test_similar_views_diff_to_small_ops(a: Any, b: Any) -> None:
    """For views of one shape, apply(a, diff(a, b)) is b and no op replaces the root."""
    ops = diff(a, b)
    assert same(apply(a, ops), b)
    assert all(op["path"] for op in ops)


@settings(max_examples=150, deadline=None)
@given(a=plain | views, b=plain | views)
def test_ops_survive_both_codecs(a: Any, b: Any) -> None:
    """Ops sent in a patch message through either codec still turn a into b."""
    msg = Patch(1, 2, tuple(diff(a, b)), ("roll",))
    for codec in (MSGPACK, JSON):
        back = codec.decode_server(codec.encode(msg))
        assert isinstance(back, Patch)
        assert same(apply(a, back.ops), b)


@settings(max_examples=100, deadline=None)
@given(a=plain, b=plain, c=plain)
def test_patches_compose(a: Any, b: Any, c: Any) -> None:
    """Applying the patches a->b then b->c in sequence gives c (what a client does)."""
    assert same(apply(apply(a, diff(a, b)), diff(b, c)), c)
