"""A lower bound on a whole pairwise problem from messages on some factors.

Any messages ``ya`` (per row group) and ``yb`` (per column group) on a
factor reparametrise the problem without changing any labelling's energy:
the factor becomes ``table - ya[:, None] - yb[None, :]`` and its two nodes'
unaries gain ``ya[ga]`` and ``yb[gb]``.  So for every labelling ``x``

    E(x) = sum over covered factors of T'(x) + R(x)
        >= sum over covered factors of min T' + min R,

where ``R`` is the *residual* problem: every node with its reparametrised
unary and every factor that has no messages.  ``residual`` builds ``R``;
the caller solves it exactly (it is small: the factors left are the few
between repeated layers and outside them), and the bound is then valid
whatever the messages.  Messages taken from the LP duals of one repeated
layer, copied to every copy of it, make it tight: each covered factor's
minimum is then met by the labelling that also solves ``R``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np

from sbpc.propagation.solver.layers import Copies
from sbpc.propagation.solver.pairwise import PairwiseProblem

# Per factor key (a, b): messages on a's row groups and b's column groups.
Messages = dict[tuple[int, int], tuple[np.ndarray, np.ndarray]]


def restrict(problem: PairwiseProblem, nodes: Sequence[int]) -> PairwiseProblem:
    """The subproblem on ``nodes`` (same node ids; the rest not alive), with
    the factors among them unchanged, so that its LP rows match theirs."""
    inside = set(nodes)
    sub = PairwiseProblem(problem.unary)
    sub.alive = [v in inside for v in range(len(problem))]
    _keep(sub, problem, lambda key: key[0] in inside and key[1] in inside)
    return sub


def _keep(
    into: PairwiseProblem,
    problem: PairwiseProblem,
    wanted: Callable[[tuple[int, int]], bool],
) -> None:
    """Give ``into`` the ``wanted`` factors of ``problem`` as they are (they
    are compact and not separable already: no need to merge or split)."""
    for key, f in problem.factors.items():
        if wanted(key):
            into.factors[key] = f
            into.neighbours[f.a].add(f.b)
            into.neighbours[f.b].add(f.a)


def window(problem: PairwiseProblem, nodes: Sequence[int], hops: int) -> list[int]:
    """``nodes`` and every node within ``hops`` factors of them, in order."""
    inside = set(nodes)
    frontier = set(nodes)
    for _ in range(hops):
        frontier = {w for v in frontier for w in problem.neighbours[v]} - inside
        inside |= frontier
    return sorted(inside)


def covered_factors(problem: PairwiseProblem, copies: Copies) -> set[tuple[int, int]]:
    """The factors inside the copies that get messages: those of every
    copy's internal part pairs, less any touching a node that also has a
    factor outside them (a copy's edge, where its neighbours differ from
    the middle copy's and its duals would not fit)."""
    inner = {
        (min(v, w), max(v, w))
        for s, t in copies.internal
        for v, w in zip(copies.tuples[s], copies.tuples[t], strict=True)
    }
    edge = {v for key in problem.factors.keys() - inner for v in key}
    return {key for key in inner if key[0] not in edge and key[1] not in edge}


def copy_messages(
    problem: PairwiseProblem, copies: Copies, source: int, duals: Messages
) -> Messages:
    """The duals of copy ``source``'s internal factors, given to the same
    factor of every copy (the factors are identical seen from the same part)."""
    messages: Messages = {}
    for s, t in copies.internal:
        a, b = copies.tuples[s][source], copies.tuples[t][source]
        key = (min(a, b), max(a, b))
        if key not in duals:
            continue
        ys, yt = duals[key] if a < b else duals[key][::-1]
        for j in range(copies.count):
            v, w = copies.tuples[s][j], copies.tuples[t][j]
            messages[(min(v, w), max(v, w))] = (ys, yt) if v < w else (yt, ys)
    return messages


def residual(
    problem: PairwiseProblem, messages: Mapping
) -> tuple[PairwiseProblem, float]:
    """(``R``, the sum of the covered factors' reparametrised minima)."""
    unary = [u.copy() for u in problem.unary]
    covered = 0.0
    rest = PairwiseProblem(unary)
    rest.alive = list(problem.alive)
    for key, f in problem.factors.items():
        ya_yb = messages.get(key)
        if ya_yb is None:
            continue
        ya, yb = ya_yb
        table = f.table - ya[:, None] - yb[None, :]
        finite = np.isfinite(table)
        covered += float(table[finite].min()) if finite.any() else np.inf
        unary[f.a] += ya[f.ga]
        unary[f.b] += yb[f.gb]
    rest.unary = unary
    _keep(rest, problem, lambda key: key not in messages)
    return rest, covered
