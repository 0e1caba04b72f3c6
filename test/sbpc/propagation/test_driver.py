"""The strategy dispatcher the pass uses."""

from __future__ import annotations

import numpy as np
import pytest

from sbpc.propagation.driver import STRATEGIES, propagate
from sbpc.testing.synthetic_graphs import RingCost, random_graph


def test_every_strategy_plans_the_same_graph() -> None:
    g = random_graph(np.random.default_rng(0), (2, 2), 6)
    cost = RingCost((2, 2))
    plans = {s: propagate(g, cost.time, s, edge_bytes=cost.bytes) for s in STRATEGIES}
    assert {p.strategy for p in plans.values()} == set(STRATEGIES)
    assert plans["optimal"].total_time <= min(p.total_time for p in plans.values())
    assert all(p.total_bytes is not None for p in plans.values())


def test_unknown_strategy() -> None:
    g = random_graph(np.random.default_rng(0), (4,), 2)
    with pytest.raises(ValueError, match="unknown strategy 'dp'"):
        propagate(g, RingCost((4,)).time, "dp")  # type: ignore[arg-type]
