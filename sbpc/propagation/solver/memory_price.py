"""A memory budget as a price: a few fast solves instead of one slow one.

The optimal strategy's budgeted integer program (``memory_rows``: a row per
half-step, a column per stretch of a boxed copy) is exact but slow at scale:
HiGHS's branch and bound took 6-8 minutes on the GPT example's Adam step,
where the same program without the rows is an LP solved in a second.  This
module relaxes the budget in the Lagrangian way: the rows the plan exceeds
(*hot* rows) join the objective, each node's bytes in them priced at
``lam`` seconds per byte, and the problem stays a pairwise one that shrinks
and solves as fast as the unbudgeted one:

- a node's option pays ``lam`` times its mean bytes over the hot rows
  (arguments, outputs written by then, stored values live then);
- a boxed copy (``memory_rows.Box``) pays, on the factor between the value's
  producer and each reader that wants the copy, ``lam`` times its bytes
  times its share of the hot rows it spans, split among its readers.

``search`` raises ``lam`` (times ``GROWTH``) from the unbudgeted plan's
scale until a plan's *exact* peak (``memory.plan_memory``) fits, then
bisects between the last plan over the budget and the first that fits
(``BISECTIONS`` times), and keeps the cheapest plan that fits.  Rows that a
later plan exceeds join the hot ones.  Deterministic; not proven optimal
(the optimal strategy says so in its stats), and when no price fits the
caller falls back to the exact program or names the least peak met.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from sbpc.propagation.edge_costs import EdgeCosts
from sbpc.propagation.graph import PropagationError, SbpGraph
from sbpc.propagation.memory import plan_memory
from sbpc.propagation.memory_rows import MemoryRows
from sbpc.propagation.solver.pairwise import Factor, PairwiseProblem
from sbpc.propagation.strategy import budget_error
from sbpc.timing import phase

# lam grows by this factor per try until a plan fits; at most this many tries
GROWTH = 4.0
MAX_RAISES = 12
# then this many bisections (in log lam) between over and fitting
BISECTIONS = 6


@dataclass
class Priced:
    """One solved price: its labels (every node), their unpriced cost, and
    their exact peak and bytes held per half-step."""

    lam: float
    labels: list[int]
    cost: float
    peak: float
    held: list[float]


@dataclass
class PriceSearch:
    """The tries of one ``search``, best first (for the stats and the error)."""

    budget: float
    tries: list[Priced] = field(default_factory=list)

    @property
    def best(self) -> Priced | None:
        """The cheapest plan that fits the budget (None when none did)."""
        fits = [t for t in self.tries if t.peak <= self.budget]
        return min(fits, key=lambda t: (t.cost, t.peak)) if fits else None

    @property
    def least_peak(self) -> float:
        return min((t.peak for t in self.tries), default=math.inf)

    def stats(self) -> dict:
        best = self.best
        return {
            "memory_price_solves": len(self.tries),
            "memory_price": best.lam if best is not None else None,
            "memory_price_least_peak": self.least_peak,
        }


def priced_problem(
    base: Callable[[], PairwiseProblem],
    memory: MemoryRows,
    hot: Sequence[int],
    lam: float,
) -> PairwiseProblem:
    """``base()`` with the hot rows' bytes priced at ``lam`` per byte (their
    mean: a plan's cost grows by ``lam`` times its mean hot row)."""
    problem = base()
    if lam <= 0 or not hot:
        return problem
    weight = lam / len(hot)
    for node, b in memory.hot_bytes(hot).items():
        problem.unary[node] = problem.unary[node] + weight * b
    spans = memory.box_spans(hot)  # box -> hot rows it spans
    tables: dict[tuple[int, int], np.ndarray] = {}  # (producer, reader) -> price
    for i, count in spans.items():
        box = memory.boxes[i]
        readers: dict[int, np.ndarray] = {}
        no_copy = np.zeros(len(problem.unary[box.producer]), dtype=bool)
        for a, wants_a, b, wants_b, made in box.pairs:
            readers[a] = readers.get(a, wants_a) | wants_a
            readers[b] = readers.get(b, wants_b) | wants_b
            no_copy |= made  # per producer option
        price = weight * count * box.nbytes / len(readers)
        copies = price * (~no_copy).astype(float)
        for reader, wants in readers.items():
            if reader == box.producer:
                continue
            table = np.outer(copies, wants.astype(float))
            key = (box.producer, reader)
            tables[key] = tables[key] + table if key in tables else table
    for (producer, reader), table in sorted(tables.items()):
        n_p, n_r = table.shape
        problem.add_factor(
            Factor(producer, reader, np.arange(n_p), np.arange(n_r), table)
        )
    return problem


def over_budget_rows(
    memory: MemoryRows, held: Sequence[float], budget: float
) -> set[int]:
    """The rows covering the half-steps where ``held`` exceeds ``budget``."""
    return {
        memory.row_of(h)
        for h, bytes_ in enumerate(held)
        if bytes_ > budget * (1 + 1e-9)
    }


def search(
    solve: Callable[[float, Sequence[int]], Priced | None],
    first: Priced,
    hot: set[int],
    over: Callable[[Priced], set[int]],
    budget: float,
) -> PriceSearch:
    """The tries of pricing memory until a plan fits, then bisecting.

    ``solve(lam, hot)``: the plan of least cost plus ``lam`` times the mean
    hot row (None when none is found); ``first``: the unpriced plan (over
    the budget); ``over(plan)``: the rows it exceeds.  ``lam`` starts at
    ``first``'s cost per byte of its peak."""
    found = PriceSearch(budget, [first])
    lam = max(first.cost, 1e-30) / max(first.peak, 1.0)
    low, high = 0.0, math.inf
    raises = bisections = 0
    while True:
        tried = solve(lam, sorted(hot))
        if tried is None:
            break
        found.tries.append(tried)
        if tried.peak <= budget:
            high = lam
        else:
            low = lam
            if not math.isfinite(high):
                hot |= over(tried)
        if math.isfinite(high):  # bisect in log lam
            if bisections == BISECTIONS:
                break
            bisections += 1
            lam = math.sqrt(low * high) if low > 0 else high / GROWTH
        else:  # raise
            raises += 1
            if raises == MAX_RAISES:
                break
            lam *= GROWTH
    return found


# Solves a pairwise problem: labels of every node (None: no labelling found)
# and a lower bound of its optimum.
Solver = Callable[[PairwiseProblem], tuple[list[int], float] | None]


def within_budget(
    graph: SbpGraph,
    costs: EdgeCosts,
    memory: MemoryRows,
    budget: float,
    stats: dict,
    solve_exact: Solver,
    unbudgeted: Sequence[int] | None = None,
) -> list[int]:
    """Labels of every node within ``budget``: the unbudgeted optimum when
    it fits (then proven, as ``solve_exact`` proves it), else the cheapest
    plan a memory price found (``search``); raises naming the least peak
    met.  ``stats`` gets the search's.  ``unbudgeted``: the plan without
    the budget, when the caller has it (then not solved again: on a model
    at full depth that solve is as long as a price's)."""
    liveness = memory.liveness
    reference = PairwiseProblem.from_graph(graph, costs)

    def priced(lam: float, labels: list[int]) -> Priced:
        held = plan_memory(graph, labels, liveness).held
        return Priced(lam, labels, reference.energy(labels), max(held), held)

    def solve(lam: float, hot: Sequence[int]) -> Priced | None:
        problem = priced_problem(
            lambda: PairwiseProblem.from_graph(graph, costs), memory, hot, lam
        )
        with phase("memory price"):
            solved = solve_exact(problem)
        return None if solved is None else priced(lam, solved[0])

    def over(tried: Priced) -> set[int]:
        return over_budget_rows(memory, tried.held, budget)

    first = solve(0.0, ()) if unbudgeted is None else priced(0.0, list(unbudgeted))
    if first is None:
        raise PropagationError("no plan of finite cost exists")
    if first.peak <= budget:
        if unbudgeted is None:
            stats.update(status="Optimal (the unbudgeted plan fits)", proven=True)
        else:  # the caller's, as proven as it was
            stats.update(status="the unbudgeted plan fits", proven=False)
        stats["objective"] = first.cost
        return first.labels
    found = search(solve, first, over(first), over, budget)
    stats.update(found.stats())
    best = found.best
    if best is None:
        raise budget_error(budget, found.least_peak, proven=False)
    stats.update(status="a memory price (not proven optimal)", proven=False)
    stats["objective"] = best.cost
    return best.labels
