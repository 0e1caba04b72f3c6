"""Shared pytest setup: simulated CPU devices for JAX, set before jax is imported."""

import atexit
import os
import shutil
import tempfile

import pytest
from hypothesis import HealthCheck, settings

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
os.environ.setdefault("JAX_PLATFORMS", "cpu")

# The suite's time is mostly XLA compiling the programs it checks (the
# emitted ones and jax.jit's references, compiled alike).  What they mean
# does not depend on how hard LLVM optimises the CPU code, so the tests
# compile at its lowest level (``test_emit.py``'s every-op program: 33
# against 25 s) ...
if "--xla_backend_optimization_level" not in os.environ["XLA_FLAGS"]:
    os.environ["XLA_FLAGS"] += " --xla_backend_optimization_level=0"
# ... and keep a compilation cache for the session (a reference or a plan
# several tests compile is compiled once), removed by the process that made
# it.  Each xdist worker has its own folder in it (the workers inherit this
# process's environment): JAX writes entries without a lock, and a worker
# reading one the other is still writing would warn and compile anyway.
_SESSION_CACHE = "SBPC_TEST_JAX_CACHE"
if _SESSION_CACHE not in os.environ and "JAX_COMPILATION_CACHE_DIR" not in os.environ:
    os.environ[_SESSION_CACHE] = tempfile.mkdtemp(prefix="sbpc-test-jax-cache-")
    atexit.register(shutil.rmtree, os.environ[_SESSION_CACHE], True)
if _SESSION_CACHE in os.environ:
    _worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    os.environ["JAX_COMPILATION_CACHE_DIR"] = os.path.join(
        os.environ[_SESSION_CACHE], _worker
    )
    os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "0")
    os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES", "0")

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
