"""Shared pytest setup: simulated CPU devices for JAX, set before jax is imported."""

import os

import pytest
from hypothesis import HealthCheck, settings

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
os.environ.setdefault("JAX_PLATFORMS", "cpu")

# Property tests judge results, never the machine's speed: no deadline per
# example, and no failing on slow draws (a loaded CI machine once stalled
# one of test_edge_costs.py's draws for 1.5 s).  A test may still set its own.
settings.register_profile(
    "sbpc", deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("sbpc")


def _row_gather(index_vector_dim: int, slice_sizes: tuple[int, ...]) -> dict:
    """Gather dimension numbers taking whole rows of a 2-D operand by index."""
    return {
        "offset_dims": (1,),
        "collapsed_slice_dims": (0,),
        "operand_batching_dims": (),
        "start_indices_batching_dims": (),
        "start_index_map": (0,),
        "index_vector_dim": index_vector_dim,
        "slice_sizes": slice_sizes,
    }


@pytest.fixture
def row_gather():
    """``row_gather(index_vector_dim, slice_sizes)``: a row lookup's gather attrs."""
    return _row_gather


@pytest.fixture
def registered():
    """``registered(strategy)``: register a propagation strategy for one test."""
    from sbpc.propagation.driver import STRATEGIES, register

    names: list[str] = []

    def _register(strategy):
        strategy = register(strategy)
        names.append(strategy.name)
        return strategy

    yield _register
    for name in names:
        del STRATEGIES[name]
