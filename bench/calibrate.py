"""Measure the machine the benchmarks run on, as an sbpc cost model.

    python bench/calibrate.py   # prints e.g. bw=3e8,lat=2e-5,overhead=3e-4,flops=5e9,hbm=5e8

sbpc's default cost model describes a GPU cluster (NVLink, 50 Tflop/s).  The
benchmarks run on 8 *simulated* CPU devices sharing the host's cores, where
collectives are memory copies with thread hand-offs and compute is slow; a
plan that is optimal for GPUs is not optimal there.  This measures, with all
8 devices busy at once as in a real step (medians of repeated runs):

* ``flops``: one device's matmul rate;
* ``hbm``: one device's elementwise memory traffic rate;
* ``overhead`` and ``lat``: a chain of ``CHAIN`` dependent tiny all-gathers
  against a single one, on rings of 2, 4 and 8 devices (every device busy:
  4, 2 or 1 rings at once), gives each collective's own cost without the
  call's dispatch; those cost ``overhead + (n - 1) * lat``, so a line fitted
  through them gives the fixed cost of one launch (the intercept) and the
  cost of one more ring round (the slope);
* ``bw``: bytes each device sends per second in a large all-gather.
"""

from __future__ import annotations

import os

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import time
from collections.abc import Sequence
from functools import partial

import jax
import numpy as np
from jax.sharding import AxisType, Mesh, NamedSharding
from jax.sharding import PartitionSpec as P
from scipy.optimize import nnls

N = 8
RINGS = (2, 4, 8)  # ring lengths of the tiny all-gathers
CHAIN = 8  # dependent all-gathers in the longer program


def _median_seconds(fn, *args, repeats: int = 15) -> float:
    jax.block_until_ready(fn(*args))
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        jax.block_until_ready(fn(*args))
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def _per_device(mesh: Mesh, body, local_shape: tuple[int, ...], out_spec=None):
    """``body`` on every device's ``local_shape`` piece of an array split
    over all of ``mesh``'s axes (dim 0), jitted."""
    split = P(mesh.axis_names)
    fn = jax.jit(
        jax.shard_map(
            body,
            mesh=mesh,
            in_specs=split,
            out_specs=split if out_spec is None else out_spec,
            check_vma=False,
        )
    )
    shape = (local_shape[0] * N, *local_shape[1:])
    x = jax.device_put(
        np.random.default_rng(0).standard_normal(shape).astype(np.float32),
        NamedSharding(mesh, split),
    )
    return fn, x


def _gathers(count: int):
    """``count`` dependent all-gathers over mesh axis ``d``: each one's pieces
    are summed into the next one's input (nothing XLA can fold away)."""

    def body(x):
        for _ in range(count):
            pieces = jax.lax.all_gather(x, axis_name="d")
            x = pieces.sum(axis=0)
        return x

    return body


def _gather_seconds(ring: int, elements: int, count: int = 1) -> float:
    """Median seconds of ``count`` dependent all-gathers of ``elements`` f32
    per device over rings of ``ring`` devices, ``N // ring`` rings at once."""
    devices = np.array(jax.devices()[:N]).reshape(N // ring, ring)
    mesh = Mesh(devices, ("g", "d"), axis_types=(AxisType.Auto,) * 2)
    fn, x = _per_device(mesh, _gathers(count), (elements,))
    return _median_seconds(fn, x, repeats=31)


def collective_seconds(ring: int, elements: int = 8) -> float:
    """One tiny all-gather's own seconds: the chain's extra time per extra
    collective, without the call's dispatch."""
    one = _gather_seconds(ring, elements)
    chain = _gather_seconds(ring, elements, CHAIN)
    return max(chain - one, 0.0) / (CHAIN - 1)


def _bandwidth(elements: int) -> float:
    """Bytes each device sends per second in an all-gather over all ``N``
    devices: a large one's time less a tiny one's."""
    mesh = Mesh(np.array(jax.devices()[:N]), ("d",), axis_types=(AxisType.Auto,))

    def gather_seconds(count: int) -> float:
        gather = partial(jax.lax.all_gather, axis_name="d", tiled=True)
        return _median_seconds(*_per_device(mesh, gather, (count,), out_spec=P()))

    sent = (N - 1) / N * 4 * elements * N
    return sent / max(gather_seconds(elements) - gather_seconds(8), 1e-9)


def fit_overhead(rings: Sequence[int], seconds: Sequence[float]) -> tuple[float, float]:
    """(overhead, latency): the non-negative line ``overhead + (n - 1) *
    latency`` nearest to the tiny collectives' times on rings of ``n``."""
    a = np.array([[1.0, n - 1.0] for n in rings])
    (overhead, latency), _ = nnls(a, np.asarray(seconds, dtype=float))
    return float(overhead), float(latency)


def calibrate() -> dict[str, float]:
    mesh = Mesh(np.array(jax.devices()[:N]), ("d",), axis_types=(AxisType.Auto,))
    k = 384
    fn, x = _per_device(mesh, lambda a: a @ a, (k, k))
    flops = 2 * k**3 / _median_seconds(fn, x)
    m = 1 << 20
    fn, x = _per_device(mesh, lambda a: a * 1.5 + 1.0, (m,))
    hbm = 2 * 4 * m / _median_seconds(fn, x)
    overhead, latency = fit_overhead(RINGS, [collective_seconds(n) for n in RINGS])
    return {
        "bw": _bandwidth(m // 4),
        "lat": latency,
        "overhead": overhead,
        "flops": flops,
        "hbm": hbm,
    }


def cost_model_text(values: dict[str, float]) -> str:
    """The ``sbp-propagate{cost_model=...}`` text of measured values."""
    return ",".join(f"{k}={v:.3g}" for k, v in values.items())


if __name__ == "__main__":
    print(cost_model_text(calibrate()))
