"""Grouped factors: merging, compacting, separability, building from a graph."""

from __future__ import annotations

import itertools
import math
import random

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sbpc.algebra.sbp import B, S
from sbpc.algebra.signature import Signature
from sbpc.algebra.tensor_type import TensorType
from sbpc.propagation.edge_costs import EdgeCosts
from sbpc.propagation.graph import SbpGraph
from sbpc.propagation.solver.pairwise import (
    Factor,
    PairwiseProblem,
    compact,
    components,
    edge_uses,
    merge,
    split_off,
    subproblem,
)


def test_merge_is_the_sum_of_full_tables() -> None:
    rng = np.random.default_rng(0)
    f = Factor(0, 1, np.array([0, 1, 0]), np.array([1, 0]), rng.random((2, 2)))
    g = Factor(0, 1, np.array([0, 0, 1]), np.array([0, 1]), rng.random((2, 2)))
    m = merge(f, g)
    assert np.allclose(m.full(), f.full() + g.full())
    assert m.table.shape == (3, 2)


def test_compact_drops_unused_and_duplicate_groups() -> None:
    table = np.array(
        [[1.0, 2.0, 1.0], [1.0, 2.0, 1.0], [5.0, 6.0, 5.0], [9.0, 9.0, 9.0]]
    )
    f = Factor(0, 1, np.array([0, 1, 2]), np.array([0, 1, 2]), table)
    c = compact(f)
    assert c.table.shape == (2, 2)
    assert np.array_equal(c.full(), f.full())


@given(
    st.integers(1, 7),
    st.integers(1, 7),
    st.integers(0, 6),
    st.integers(0, 6),
    st.randoms(use_true_random=False),
)
def test_compact_keeps_the_first_of_each_distinct_used_line(
    rows: int, cols: int, labels_a: int, labels_b: int, rnd: random.Random
) -> None:
    """Every used line once, in first-use order (by index), none unused;
    lines equal but for -0.0 and 0.0 are told apart, as their bytes are."""
    values = [0.0, -0.0, 1.5, math.inf]
    table = np.array([[rnd.choice(values) for _ in range(cols)] for _ in range(rows)])
    ga = np.array([rnd.randrange(rows) for _ in range(labels_a)], dtype=np.int64)
    gb = np.array([rnd.randrange(cols) for _ in range(labels_b)], dtype=np.int64)
    c = compact(Factor(0, 1, ga, gb, table))
    assert np.array_equal(c.full(), table[np.ix_(ga, gb)])

    def firsts(groups: np.ndarray, lines: np.ndarray) -> list[int]:
        out: list[int] = []
        for i in sorted(set(groups.tolist())):
            if all(lines[i].tobytes() != lines[j].tobytes() for j in out):
                out.append(i)
        return out

    rows_kept = firsts(ga, table)  # rows first, then the columns of those rows
    cols_kept = firsts(gb, table[rows_kept].T)
    assert np.array_equal(c.table, table[np.ix_(rows_kept, cols_kept)])


def test_split_off_separable_tables() -> None:
    u, w = np.array([1.0, 3.0]), np.array([0.0, 10.0, 20.0])
    f = Factor(0, 1, np.array([1, 0]), np.array([2, 1, 0]), u[:, None] + w[None, :])
    ua, ub, rest = split_off(f)
    assert rest is None
    assert np.allclose(ua[:, None] + ub[None, :], f.full())
    g = Factor(0, 1, np.array([0, 1]), np.array([0, 1]), np.eye(2))
    assert split_off(g)[2] is g


def test_from_graph_groups_options_by_layout() -> None:
    g = SbpGraph((4,))
    t = TensorType((8, 8))
    x = g.add_argument("x", t, candidates=[(B,), (S(0),), (S(1),)])
    cands = [
        Signature(((S(0),), (B,)), ((S(0),),)),
        Signature(((S(0),), (S(1),)), ((S(1),),)),  # same layout of x as above
        Signature(((B,), (B,)), ((B,),)),
    ]
    (y,) = g.add_op("op", [x, x], [t], cands)
    g.add_result("y", y, (B,))

    def cost(src, dst, tensor):
        return 1.0 if src != dst else 0.0

    problem = PairwiseProblem.from_graph(g, EdgeCosts(cost))
    assert set(problem.factors) == {(0, 1)}  # two parallel edges merged
    f = problem.factors[(0, 1)]
    expected = np.array(
        [
            [(a != c.inputs[0]) + (a != c.inputs[1]) for c in cands]
            for a in [(B,), (S(0),), (S(1),)]
        ],
        dtype=float,
    )
    # The result wants B: the sink has one option, so its edge folds into a
    # unary cost of the op (1 unless the op's result is B).
    to_result = np.array([1.0, 1.0, 0.0])
    u0, u1 = problem.unary[0], problem.unary[1]
    assert np.allclose(f.full() + u0[:, None] + u1[None, :], expected + to_result)
    assert problem.sizes[2] == 1 and not problem.neighbours[2]


def test_a_repeated_table_is_prepared_once_with_the_same_result() -> None:
    """``add_factor`` reuses the compaction of an equal table (repeated
    layers); equal bytes of another dtype are not the same table."""
    table = np.array([[0.0, 1.0, 1.0], [1.0, 0.0, 2.0], [0.0, 1.0, 1.0]])
    groups = np.arange(3)
    shared = PairwiseProblem([np.zeros(3)] * 4)
    shared.add_factor(Factor(0, 1, groups, groups, table))
    shared.add_factor(Factor(2, 3, groups, groups, table))
    alone = PairwiseProblem([np.zeros(3)] * 4)
    alone.add_factor(Factor(2, 3, groups, groups, table))
    for field in ("ga", "gb", "table"):
        np.testing.assert_array_equal(
            getattr(shared.factor(2, 3), field), getattr(alone.factor(2, 3), field)
        )
    assert len(shared._prepared) == 1
    # int64 [0] and int32 [0, 0] have the same bytes: a one-label node and
    # a two-label node, not the same grouping
    mixed = PairwiseProblem([np.zeros(1), np.zeros(1), np.zeros(2), np.zeros(1)])
    one = np.array([[3.0]])
    mixed.add_factor(Factor(0, 1, np.zeros(1, dtype=np.int64), groups[:1], one))
    mixed.add_factor(Factor(2, 3, np.zeros(2, dtype=np.int32), groups[:1], one))
    assert len(mixed._prepared) == 2
    np.testing.assert_array_equal(mixed.unary[2], [0.0, 0.0])
    np.testing.assert_array_equal(mixed.unary[3], [3.0])


def test_one_table_added_to_one_factor_in_every_layer_is_merged_once() -> None:
    """Repeated layers merge the same arrays into the same factor: the
    merge is made once, and every layer's factor is what merging it alone
    gives; other arrays of equal values are merged again."""
    rng = np.random.default_rng(3)
    base = Factor(0, 1, np.array([0, 1, 1, 2]), np.array([0, 0, 1]), rng.random((3, 2)))
    price = rng.random((4, 3))
    labels = np.arange(4), np.arange(3)
    layers = 5
    problem = PairwiseProblem([np.zeros(4), np.zeros(3)] * layers)
    for k in range(layers):
        a, b = 2 * k, 2 * k + 1
        problem.add_factor(Factor(a, b, base.ga, base.gb, base.table))
        problem.add_factor(Factor(a, b, *labels, price))
    assert len(problem._merged) == 1
    alone = PairwiseProblem([np.zeros(4), np.zeros(3)])
    alone.add_factor(base)
    alone.add_factor(Factor(0, 1, *labels, price.copy()))
    expected = alone.factor(0, 1).full()
    for k in range(layers):
        got = problem.factor(2 * k, 2 * k + 1).full()
        got = got + problem.unary[2 * k][:, None] + problem.unary[2 * k + 1]
        want = expected + alone.unary[0][:, None] + alone.unary[1]
        np.testing.assert_array_equal(got, want)
        np.testing.assert_allclose(got, base.full() + price)
    problem.add_factor(Factor(0, 1, *labels, price.copy()))  # equal, not same
    assert len(problem._merged) == 2


def test_from_graph_prices_every_labelling_as_edge_by_edge_factors() -> None:
    """Repeated layers share their factors' compaction by content: the
    problem still prices every labelling as the edges one by one do."""
    rng = np.random.default_rng(3)
    g = SbpGraph((2,))
    t = TensorType((4, 6))
    layouts = [(B,), (S(0),), (S(1),)]
    sigs = [Signature((a,), (b,)) for a in layouts for b in layouts]
    x = g.add_argument("x", t, candidates=layouts)
    for _ in range(4):  # four equal layers: a unary op, then a binary one
        (y,) = g.add_op("u", [x], [t], sigs[:5])
        binary = [Signature((a, b), (a,)) for a in layouts for b in layouts]
        (x,) = g.add_op("b", [x, y], [t], binary)
    g.add_result("x", x, None)
    price = {(a, b): float(rng.random()) for a in layouts for b in layouts}

    def cost(src, dst, tensor):
        return 0.0 if dst is None or src == dst else price[(src, dst)]

    problem = PairwiseProblem.from_graph(g, EdgeCosts(cost))
    for _ in range(50):
        labels = [int(rng.integers(len(n.options))) for n in g.nodes]
        want = sum(n.option_costs[labels[n.id]] for n in g.nodes) + sum(
            cost(
                g.edge_src_layout(e, labels[e.src]),
                g.edge_dst_layout(e, labels[e.dst]),
                t,
            )
            for e in g.edges
        )
        assert abs(problem.energy(labels) - want) <= 1e-12 * max(1.0, abs(want))


def test_edge_uses_are_made_once_per_graph_and_again_when_it_grows() -> None:
    """The combining search builds one graph's problem at several scales:
    what does not depend on the prices is found once, and a graph that
    gains an edge gets it anew (its problem still prices every edge)."""
    g = SbpGraph((2,))
    t = TensorType((4, 6))
    layouts = [(B,), (S(0),), (S(1),)]
    sigs = [Signature((a,), (b,)) for a in layouts for b in layouts]
    x = g.add_argument("x", t, candidates=layouts)
    (y,) = g.add_op("u", [x], [t], sigs)
    uses = edge_uses(g)
    assert edge_uses(g) is uses
    assert len(uses.edges) == len(g.edges) == 1

    def cost(src, dst, tensor):
        return 0.0 if dst is None or src == dst else 1.0

    (z,) = g.add_op("u", [y], [t], sigs)
    g.add_result("z", z, None)
    grown = edge_uses(g)
    assert grown is not uses and len(grown.edges) == len(g.edges) == 3
    problem = PairwiseProblem.from_graph(g, EdgeCosts(cost))
    for labels in itertools.product(*(range(len(n.options)) for n in g.nodes)):
        want = sum(
            cost(
                g.edge_src_layout(e, labels[e.src]),
                g.edge_dst_layout(e, labels[e.dst]),
                t,
            )
            for e in g.edges
        )
        assert problem.energy(labels) == want


def test_components_and_a_subproblem_keep_the_factors_between_their_nodes() -> None:
    groups = np.arange(2)
    problem = PairwiseProblem([np.array([0.0, 1.0]) for _ in range(5)])
    table = np.array([[0.0, 2.0], [3.0, 0.5]])
    for a, b in ((0, 3), (3, 4), (1, 2)):
        problem.add_factor(Factor(a, b, groups, groups, table))
    assert components(problem, [0, 1, 2, 3, 4]) == [[0, 3, 4], [1, 2]]
    assert components(problem, [0, 4]) == [[0], [4]]  # only through 3
    sub = subproblem(problem, [0, 3, 4])
    assert len(sub) == 3 and sub.constant == 0.0
    assert sorted(sub.factors) == [(0, 1), (1, 2)]
    nodes = [0, 3, 4]
    for labels in itertools.product(range(2), repeat=3):
        at = dict(zip(nodes, labels, strict=True))
        expected = sum(float(problem.unary[v][at[v]]) for v in nodes) + sum(
            float(f.table[f.ga[at[f.a]], f.gb[at[f.b]]])
            for f in problem.factors.values()
            if f.a in at and f.b in at
        )
        assert sub.energy(list(labels)) == pytest.approx(expected)
