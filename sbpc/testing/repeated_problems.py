"""Pairwise problems made of repeated layers, for the clustering tests.

``repeated_chain`` draws one layer (nodes, unary costs, a cyclic set of
factors, so shrinking cannot fold it away) and repeats it ``layers`` times,
joined by factors from each layer to the next and to the one after, with a
head before the first and a tail after the last.  Node ids are shuffled, so
nothing can find the layers by their numbering.  Costs are layout-like:
zero on the diagonal, positive elsewhere, so the local-polytope relaxation
is integral in practice (as on real models).
"""

from __future__ import annotations

import itertools

import numpy as np

from sbpc.propagation.solver.pairwise import Factor, PairwiseProblem


def _table(rng: np.random.Generator, k: int) -> np.ndarray:
    table = rng.uniform(1.0, 3.0, size=(k, k))
    np.fill_diagonal(table, 0.0)
    return table


def repeated_chain(
    rng: np.random.Generator,
    layers: int,
    width: int = 12,
    labels: int = 4,
    chords: int = 6,
) -> tuple[PairwiseProblem, list[list[int]]]:
    """(problem, the node ids of each layer in the same part order)."""
    n = 2 + layers * width
    order = rng.permutation(n)  # order[i]: the id of the i-th node made
    unary_of = [rng.uniform(0.0, 2.0, size=labels) for _ in range(width)]
    ring = [(i, (i + 1) % width) for i in range(width)]
    extra = [
        (int(a), int(b))
        for a, b in rng.choice(width, size=(chords, 2))
        if a != b and (a, b) not in ring and (b, a) not in ring
    ]
    inner = [(a, b, _table(rng, labels)) for a, b in ring + extra]
    step = [(width - 1, 0, _table(rng, labels)), (width - 2, 1, _table(rng, labels))]
    skip = (width - 1, width // 2, _table(rng, labels))
    unary: list[np.ndarray] = [np.zeros(labels)] * n
    head, tail = int(order[0]), int(order[1])
    unary[head] = rng.uniform(0.0, 2.0, size=labels)
    unary[tail] = rng.uniform(0.0, 2.0, size=labels)
    parts = [
        [int(order[2 + layer * width + i]) for i in range(width)]
        for layer in range(layers)
    ]
    for nodes in parts:
        for i, v in enumerate(nodes):
            unary[v] = unary_of[i]
    problem = PairwiseProblem(unary)
    groups = np.arange(labels)

    def join(a: int, b: int, table: np.ndarray) -> None:
        problem.add_factor(Factor(a, b, groups, groups, table))

    for nodes in parts:
        for a, b, table in inner:
            join(nodes[a], nodes[b], table)
    for here, after in itertools.pairwise(parts):
        for a, b, table in step:
            join(here[a], after[b], table)
    for here, later in zip(parts, parts[2:], strict=False):
        join(here[skip[0]], later[skip[1]], skip[2])
    join(head, parts[0][0], _table(rng, labels))
    join(parts[-1][-1], tail, _table(rng, labels))
    return problem, parts


def repeated_cliques(
    rng: np.random.Generator, layers: int, width: int = 6, labels: int = 3
) -> tuple[PairwiseProblem, list[list[int]]]:
    """(problem, the node ids of each layer): ``layers`` copies of one
    layer whose nodes are all joined (nothing for the shrink to fold), each
    joined to the next through its first two nodes only, the others inside
    it.  Costs are whole numbers, so every sum the solvers make is exact and
    the copies stay equal through the shrink, as a real model's do (on
    ``repeated_chain`` the shrink folds each copy differently)."""
    order = rng.permutation(layers * width)
    parts = [
        [int(order[layer * width + i]) for i in range(width)] for layer in range(layers)
    ]
    unary_of = [np.round(rng.uniform(0.0, 4.0, size=labels)) for _ in range(width)]
    unary: list[np.ndarray] = [np.zeros(labels)] * (layers * width)
    for nodes in parts:
        for i, v in enumerate(nodes):
            unary[v] = unary_of[i]

    def table() -> np.ndarray:
        return np.round(_table(rng, labels) * 2)

    inner = {pair: table() for pair in itertools.combinations(range(width), 2)}
    step = [table() for _ in range(2)]
    problem = PairwiseProblem(unary)
    groups = np.arange(labels)
    for nodes in parts:
        for (a, b), t in inner.items():
            problem.add_factor(Factor(nodes[a], nodes[b], groups, groups, t))
    for here, after in itertools.pairwise(parts):
        for i, t in enumerate(step):
            problem.add_factor(Factor(here[i], after[i], groups, groups, t))
    return problem, parts


def layered_paths(
    layers: int, width: int = 12, odd_part: int | None = None
) -> PairwiseProblem:
    """``layers`` copies of a path of ``width`` nodes, numbered in program
    order, each joined to the next end to end; ``odd_part``: that node of
    the first layer costs otherwise (an end layer meeting what comes
    before the stack, as a memory price can make it)."""
    rng = np.random.default_rng(5)
    labels = 3
    unary_of = [np.round(rng.uniform(0, 4, labels)) for _ in range(width)]
    tables = [np.round(rng.uniform(1, 6, (labels, labels))) for _ in range(width)]
    unary = [unary_of[i].copy() for _ in range(layers) for i in range(width)]
    if odd_part is not None:
        unary[odd_part] = unary[odd_part] + np.array([0.0, 3.0, 0.0])
    problem = PairwiseProblem(unary)
    groups = np.arange(labels)
    for layer in range(layers):
        base = layer * width
        for i in range(width - 1):
            problem.add_factor(
                Factor(base + i, base + i + 1, groups, groups, tables[i])
            )
        if layer + 1 < layers:
            problem.add_factor(
                Factor(base + width - 1, base + width, groups, groups, tables[-1])
            )
    return problem
