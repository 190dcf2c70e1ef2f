"""Hex geometry of a city sheet: axial coordinates, edges, corners and road reach.

Spaces are pointy-top hexes in axial coordinates ``(q, r)``. An *edge* is the side
two neighbouring hexes share, written as the sorted pair of the two hexes flattened
to ``(q1, r1, q2, r2)``; one of the two may lie off the map. A *corner* (vertex) is
the sorted triple of the three hexes that meet there.

Which edges exist: an edge is on the sheet when at least one of its two hexes is a
full (not partial) space; sides of partial spaces that face the map border or
another partial space are "cut off by the map edge" and never available.

The pure geometry functions are memoised: a map has a few hundred hexes and edges.

Authors write maps as rows of tokens (see ``content/README.md``); the row/column of a
token converts to axial with odd rows shifted right: ``q = col - (row - (row & 1)) // 2``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import cache

import attrs

Hex = tuple[int, int]
Edge = tuple[int, int, int, int]
Vertex = tuple[Hex, Hex, Hex]

DIRECTIONS: tuple[Hex, ...] = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))
"""Axial neighbour offsets in turning order: consecutive ones are neighbours too."""


def offset_to_axial(col: int, row: int) -> Hex:
    """Axial ``(q, r)`` of the token at ``col`` in ``row`` (odd rows shifted right)."""
    return (col - (row - (row & 1)) // 2, row)


def step(h: Hex, i: int) -> Hex:
    """The neighbour of ``h`` in direction ``i`` (mod 6)."""
    dq, dr = DIRECTIONS[i % 6]
    return (h[0] + dq, h[1] + dr)


@cache
def neighbours(h: Hex) -> tuple[Hex, ...]:
    """The six neighbours of ``h``."""
    return tuple(step(h, i) for i in range(6))


def edge(a: Hex, b: Hex) -> Edge:
    """The canonical edge between neighbouring hexes ``a`` and ``b``."""
    lo, hi = sorted((a, b))
    return (lo[0], lo[1], hi[0], hi[1])


def edge_hexes(e: Edge) -> tuple[Hex, Hex]:
    """The two hexes an edge separates."""
    return (e[0], e[1]), (e[2], e[3])


def are_neighbours(a: Hex, b: Hex) -> bool:
    """Whether ``a`` and ``b`` share a side."""
    return b in neighbours(a)


@cache
def edge_vertices(e: Edge) -> tuple[Vertex, Vertex]:
    """The two corners at the ends of an edge."""
    a, b = edge_hexes(e)
    i = neighbours(a).index(b)
    return _vertex(a, b, step(a, i + 1)), _vertex(a, b, step(a, i - 1))


@cache
def space_edges(h: Hex) -> tuple[Edge, ...]:
    """The six sides of a hex."""
    return tuple(edge(h, n) for n in neighbours(h))


@cache
def corners(h: Hex) -> frozenset[Vertex]:
    """The six corners of a hex."""
    return frozenset(_vertex(h, step(h, i), step(h, i + 1)) for i in range(6))


def _vertex(a: Hex, b: Hex, c: Hex) -> Vertex:
    x, y, z = sorted((a, b, c))
    return (x, y, z)


EDGE_KINDS = ("cliff", "water", "coast", "land")
"""What :meth:`Geometry.kind` can answer."""


@attrs.frozen
class Geometry:
    """The fixed geometry of one map: which hexes exist and which edges are drawable."""

    terrain: Mapping[Hex, str]
    """``"land"`` or ``"water"`` for every space on the sheet."""
    partial: frozenset[Hex]
    cliffs: frozenset[Edge]
    edges: frozenset[Edge]
    """Every available edge (not cut off by the map border)."""
    ordered: tuple[Edge, ...] = attrs.field(init=False, eq=False, repr=False)
    """``edges`` sorted (derived once)."""
    kinds: Mapping[Edge, str] = attrs.field(init=False, eq=False, repr=False)
    """Each available edge's :meth:`kind` (derived once)."""
    at: Mapping[Vertex, tuple[Edge, ...]] = attrs.field(init=False, eq=False, repr=False)
    """The available edges meeting at each corner (derived once)."""

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "ordered", tuple(sorted(self.edges)))
        object.__setattr__(self, "kinds", {e: self._kind(e) for e in self.edges})
        at: dict[Vertex, list[Edge]] = {}
        for e in self.ordered:
            for v in edge_vertices(e):
                at.setdefault(v, []).append(e)
        object.__setattr__(self, "at", {v: tuple(es) for v, es in at.items()})

    def reachable(self, network: frozenset[Vertex]) -> set[Edge]:
        """Every available edge that :meth:`touches` the road network."""
        at = self.at
        return {e for v in network for e in at.get(v, ())}

    @classmethod
    def build(
        cls, terrain: Mapping[Hex, str], partial: Iterable[Hex], cliffs: Iterable[Edge]
    ) -> Geometry:
        """Derive the available edges from the spaces."""
        part = frozenset(partial)
        full = [h for h in terrain if h not in part]
        edges = frozenset(e for h in full for e in space_edges(h))
        return cls(terrain=dict(terrain), partial=part, cliffs=frozenset(cliffs), edges=edges)

    def kind(self, e: Edge) -> str:
        """``cliff``, ``water`` (water on both sides, or water and the border),
        ``coast`` (land against water) or ``land``."""
        known = self.kinds.get(e)
        return known if known is not None else self._kind(e)

    def _kind(self, e: Edge) -> str:
        if e in self.cliffs:
            return "cliff"
        sides = {self.terrain.get(h) for h in edge_hexes(e)}
        if "land" in sides and "water" in sides:
            return "coast"
        if "land" in sides:
            return "land"
        return "water"

    def touches(self, e: Edge, network: frozenset[Vertex]) -> bool:
        """Whether edge ``e`` shares a corner with the road network."""
        return any(v in network for v in edge_vertices(e))

    def connected(self, h: Hex, network: frozenset[Vertex]) -> bool:
        """Whether a road touches space ``h``, even at one corner."""
        return not corners(h).isdisjoint(network)

    def ringed(self, h: Hex, roads: frozenset[Edge]) -> bool:
        """Whether all six sides of full space ``h`` carry a road."""
        return h not in self.partial and all(e in roads for e in space_edges(h))


def network(roads: Iterable[Edge]) -> frozenset[Vertex]:
    """Every corner touched by a road."""
    return frozenset(v for e in roads for v in edge_vertices(e))
