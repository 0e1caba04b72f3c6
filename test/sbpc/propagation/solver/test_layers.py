"""Finding repeated layers: the copies found are disjoint, isomorphic (the
same unary costs and factor tables part by part), and cover the layers of a
problem built from one repeated layer, whatever the node numbering."""

from __future__ import annotations

import numpy as np
import pytest

from sbpc.propagation.solver.layers import factor_key, find_copies
from sbpc.propagation.solver.pairwise import Factor, PairwiseProblem
from sbpc.testing.repeated_problems import layered_paths, repeated_chain


@pytest.mark.parametrize("seed", range(4))
def test_copies_of_a_repeated_chain_are_disjoint_and_isomorphic(seed: int) -> None:
    problem, layers = repeated_chain(np.random.default_rng(seed), 8)
    copies = find_copies(problem, range(len(problem)))
    assert copies is not None and copies.count >= 6
    nodes = [v for part in copies.tuples for v in part]
    assert len(nodes) == len(set(nodes))
    for part in copies.tuples:
        for v in part:
            np.testing.assert_array_equal(problem.unary[v], problem.unary[part[0]])
    for s, t in copies.internal:
        keys = {
            factor_key(problem, v, w)
            for v, w in zip(copies.tuples[s], copies.tuples[t], strict=True)
        }
        assert len(keys) == 1
    # each copy lies in one layer or straddles two neighbours, never more
    layer_of = {v: i for i, layer in enumerate(layers) for v in layer}
    for j in range(copies.count):
        spread = {layer_of[v] for v in copies.nodes(j) if v in layer_of}
        assert max(spread) - min(spread) <= 1
    # and most of every layer is in some copy
    assert len(nodes) >= 0.5 * sum(len(layer) for layer in layers)


def test_no_repetition_no_copies() -> None:
    rng = np.random.default_rng(3)
    problem = PairwiseProblem([rng.uniform(size=3) for _ in range(6)])
    for a in range(5):
        problem.add_factor(
            Factor(a, a + 1, np.arange(3), np.arange(3), rng.uniform(size=(3, 3)))
        )
    assert find_copies(problem, range(6)) is None


def recomputed_layers(layers: int, width: int = 6) -> PairwiseProblem:
    """Each layer: a forward clique, the same clique again (its
    recomputation), and two nodes of their own joining them, so the
    cliques' inner nodes come twice per layer."""
    rng = np.random.default_rng(0)
    labels = 3
    clique_unary = [np.round(rng.uniform(0, 4, labels)) for _ in range(width)]
    join_unary = [np.round(rng.uniform(5, 9, labels)) for _ in range(2)]
    tables = {
        (a, b): np.round(rng.uniform(1, 6, (labels, labels)))
        for a in range(width)
        for b in range(a + 1, width)
    }
    link = np.round(rng.uniform(1, 6, (labels, labels)))
    unary = []
    for _ in range(layers):
        unary += clique_unary + clique_unary + join_unary
    problem = PairwiseProblem(unary)
    groups = np.arange(labels)
    size = 2 * width + 2
    for layer in range(layers):
        base = layer * size
        for start in (base, base + width):
            for (a, b), t in tables.items():
                problem.add_factor(Factor(start + a, start + b, groups, groups, t))
        joins = (base + 2 * width, base + 2 * width + 1)
        problem.add_factor(Factor(base, joins[0], groups, groups, link))
        problem.add_factor(Factor(joins[0], joins[1], groups, groups, link))
        problem.add_factor(Factor(joins[1], base + width, groups, groups, link))
    return problem


def test_more_copy_counts_find_the_recomputed_layer_whole() -> None:
    """Twice the layer count covers the most nodes by colour, but its
    copies are half layers; trying the next count finds whole layers."""
    layers, width = 8, 6
    problem = recomputed_layers(layers, width)
    halves = find_copies(problem, range(len(problem)))
    assert halves is not None and halves.count == 2 * layers
    whole = find_copies(problem, range(len(problem)), counts=2)
    assert whole is not None and whole.count == layers
    assert len(whole.tuples) == 2 * width + 2


def test_an_odd_end_layer_is_left_out_of_the_copies() -> None:
    """Growing every layer in lockstep stops where the first layer differs;
    left out with the last, the copies hold every part of the inner ones."""
    layers, width = 10, 12
    even = find_copies(layered_paths(layers, width), range(layers * width))
    assert even is not None and not even.trimmed and even.count == layers
    problem = layered_paths(layers, width, odd_part=width // 2)
    copies = find_copies(problem, range(layers * width))
    assert copies is not None and copies.trimmed
    assert copies.count == layers - 2 and len(copies.tuples) == width
    held = {v for part in copies.tuples for v in part}
    assert width // 2 not in held
    for j in range(copies.count):  # each a stretch of the stack a layer long
        nodes = sorted(copies.nodes(j))
        assert nodes == list(range(nodes[0], nodes[0] + width))
