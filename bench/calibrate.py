"""Measure the machine the benchmarks run on, as an sbpc cost model.

    python bench/calibrate.py          # prints e.g. bw=2.1e9,lat=4e-5,flops=6e9,hbm=8e9

sbpc's default cost model describes a GPU cluster (NVLink, 50 Tflop/s).  The
benchmarks run on 8 *simulated* CPU devices sharing the host's cores, where
collectives are memory copies with thread hand-offs and compute is slow; a
plan that is optimal for GPUs is not optimal there.  This measures, with all
8 devices busy at once as in a real step (medians of repeated runs):

* ``flops``: one device's matmul rate;
* ``hbm``: one device's elementwise memory traffic rate;
* ``lat``: seconds per ring round of a tiny all-gather;
* ``bw``: bytes each device sends per second in a large all-gather.
"""

from __future__ import annotations

import os

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import time
from functools import partial

import jax
import numpy as np
from jax.sharding import AxisType, Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

N = 8


def _median_seconds(fn, *args, repeats: int = 15) -> float:
    jax.block_until_ready(fn(*args))
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        jax.block_until_ready(fn(*args))
        times.append(time.perf_counter() - start)
    return float(np.median(times))


SPLIT = P("d")


def _per_device(mesh: Mesh, body, local_shape: tuple[int, ...], out_spec=SPLIT):
    fn = jax.jit(
        jax.shard_map(
            body, mesh=mesh, in_specs=P("d"), out_specs=out_spec, check_vma=False
        )
    )
    shape = (local_shape[0] * N, *local_shape[1:])
    x = jax.device_put(
        np.random.default_rng(0).standard_normal(shape).astype(np.float32),
        NamedSharding(mesh, P("d")),
    )
    return fn, x


def calibrate() -> dict[str, float]:
    mesh = Mesh(np.array(jax.devices()[:N]), ("d",), axis_types=(AxisType.Auto,))
    k = 384
    fn, x = _per_device(mesh, lambda a: a @ a, (k, k))
    flops = 2 * k**3 / _median_seconds(fn, x)
    m = 1 << 20
    fn, x = _per_device(mesh, lambda a: a * 1.5 + 1.0, (m,))
    hbm = 2 * 4 * m / _median_seconds(fn, x)
    gather = partial(jax.lax.all_gather, axis_name="d", tiled=True)
    fn, x = _per_device(mesh, gather, (8,), out_spec=P())
    small = _median_seconds(fn, x)
    fn, x = _per_device(mesh, gather, (m // 4,), out_spec=P())
    large = _median_seconds(fn, x)
    sent = (N - 1) / N * 4 * (m // 4) * N
    return {
        "bw": sent / max(large - small, 1e-9),
        "lat": small / (N - 1),
        "flops": flops,
        "hbm": hbm,
    }


def cost_model_text(values: dict[str, float]) -> str:
    """The ``sbp-propagate{cost_model=...}`` text of measured values."""
    return ",".join(f"{k}={v:.3g}" for k, v in values.items())


if __name__ == "__main__":
    print(cost_model_text(calibrate()))
