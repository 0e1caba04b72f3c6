"""Cheapest step sequences from one layout, searched only as far as asked.

The boxing planner's Dijkstra over a tensor's step graph
(``step_space.PricedSteps``): a path costs (time, bytes, steps), compared in
that order, as exact integers over the step prices' common denominators.
Every step adds a step, so the nodes settle in increasing (cost, node)
order, and a node's last step comes from the first of them that reaches it
at its least cost: among its cheapest predecessors, the one of least
(cost, node).  ``CheapestPaths`` keeps to that rule whatever order it
settles nodes in, so the plan it finds is that one:

* without a bound, ``cost`` stops once its target is settled and the next
  call resumes there (the plans of one source share one search);
* with a consistent lower bound on the time left to one target
  (``time_bound.TimeBound``), it is A*: nodes leave the heap by cost plus
  bound, every cheapest predecessor of a node on a cheapest path still
  leaves it before the target, and a settled node's cost is still exact.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Protocol

# (time, bytes, steps): time first, then fewer bytes, then fewer steps.
Cost = tuple[int, int, int]

# A step of the search: (next node, what the step is, its price's id).
SearchEdge = tuple[int, object, int]


class Prices(Protocol):
    """Integer prices by id over common denominators that only grow
    (``step_space.PricedSteps``)."""

    times: list[int]
    nbytes: list[int]
    time_den: int
    bytes_den: int


class Bound(Protocol):
    """A consistent lower bound on the seconds from a node to one target:
    ``seconds[state(node)]`` (``time_bound.TimeBound``: a few states)."""

    seconds: Sequence[Fraction]

    def state(self, node: int) -> int: ...


class CheapestPaths:
    """Dijkstra (A* with ``bound``) from ``start`` over ``neighbours``
    priced by ``prices``; with a bound, ``cost`` answers for its target only."""

    def __init__(
        self,
        start: int,
        neighbours: Callable[[int], Sequence[SearchEdge]],
        prices: Prices,
        bound: Bound | None = None,
    ) -> None:
        self._neighbours = neighbours
        self._prices = prices
        self._bound = bound
        self._bounds: dict[int, int] = {}  # state: bound over ``time_den``, floored
        self.time_den = prices.time_den
        self.bytes_den = prices.bytes_den
        zero = (0, 0, 0)
        self._best: dict[int, Cost] = {start: zero}
        self._prev: dict[int, tuple[int, object, int]] = {}
        self._done: dict[int, Cost] = {}
        # (cost, plus the bound; node; cost): ordered as Dijkstra's (cost, node).
        self._heap: list[tuple[Cost, int, Cost]] = [
            (self._key(zero, start), start, zero)
        ]

    @property
    def settled(self) -> int:
        """How many nodes the search has settled (and expanded) so far."""
        return len(self._done)

    def cost(self, target: int) -> Cost | None:
        """``target``'s least cost over ``time_den``/``bytes_den`` (None: no
        path reaches it), searching on until it is final."""
        done = self._done
        if target in done:
            return done[target]
        heap, best, prev, prices = self._heap, self._best, self._prev, self._prices
        ties_after = self._bound is not None  # a settled node may tie again
        while heap:
            _, node, cost = heapq.heappop(heap)
            if node in done:
                continue
            done[node] = cost
            edges = self._neighbours(node)  # may add prices: rescale first
            if prices.time_den != self.time_den or prices.bytes_den != self.bytes_den:
                self._rescale()
                cost = done[node]
            t0, b0, n0 = cost
            times, nbytes = prices.times, prices.nbytes
            for nxt, label, price in edges:
                if nxt in done and not ties_after:
                    continue
                new = (t0 + times[price], b0 + nbytes[price], n0 + 1)
                old = best.get(nxt)
                if old is None or new < old:
                    best[nxt] = new
                    prev[nxt] = (node, label, price)
                    heapq.heappush(heap, (self._key(new, nxt), nxt, new))
                elif new == old and (cost, node) < self._via(nxt):
                    prev[nxt] = (node, label, price)  # A*: a tie settled later
            if node == target:
                return cost
        return None

    def path(self, target: int) -> list[tuple[int, int, object, int]]:
        """The steps of the cheapest path to a settled ``target``:
        (from, to, label, price id) each."""
        steps = []
        node = target
        while node in self._prev:
            before, label, price = self._prev[node]
            steps.append((before, node, label, price))
            node = before
        return steps[::-1]

    def _via(self, node: int) -> tuple[Cost, int]:
        """(cost, node) of ``node``'s present predecessor."""
        before = self._prev[node][0]
        return self._done[before], before

    def _key(self, cost: Cost, node: int) -> Cost:
        if self._bound is None:
            return cost
        state = self._bound.state(node)
        bound = self._bounds.get(state)
        if bound is None:
            exact = self._bound.seconds[state]
            bound = self._bounds[state] = (
                exact.numerator * self.time_den // exact.denominator
            )
        return (cost[0] + bound, cost[1], cost[2])

    def _rescale(self) -> None:
        """Multiply every cost by the factors the prices' denominators grew by
        (the same order, so the heap stays a heap; bounds are floored anew)."""
        kt = self._prices.time_den // self.time_den
        kb = self._prices.bytes_den // self.bytes_den
        self.time_den, self.bytes_den = self._prices.time_den, self._prices.bytes_den
        self._bounds.clear()

        def scaled(c: Cost) -> Cost:
            return (c[0] * kt, c[1] * kb, c[2])

        for costs in (self._best, self._done):  # in place: ``cost`` holds them
            for n, c in costs.items():
                costs[n] = scaled(c)
        entries = [(scaled(c), n) for _, n, c in self._heap]
        self._heap[:] = [(self._key(c, n), n, c) for c, n in entries]
        if self._bound is not None:
            heapq.heapify(self._heap)  # floored bounds may reorder ties
