"""Measure the machine the benchmarks run on, as an sbpc cost model.

    python bench/calibrate.py   # prints e.g. bw=3e8,lat=2e-5,overhead=3e-4,flops=5e9,hbm=5e8,flops_half=9
    python bench/calibrate.py --between-work   # collectives timed between blocks of work
    python bench/calibrate.py --scenarios   # both: the chain, then '|' and between work

sbpc's default cost model describes a GPU cluster (NVLink, 50 Tflop/s).  The
benchmarks run on 8 *simulated* CPU devices sharing the host's cores, where
collectives are memory copies with thread hand-offs and compute is slow; a
plan that is optimal for GPUs is not optimal there.  This measures, with all
8 devices busy at once as in a real step (medians of repeated runs, and
each value the median of ``WINDOWS`` such measurements):

* ``flops``: one device's matmul rate;
* ``flops_half``: the rows at which a product runs at half that rate
  (Hockney's n-half, ``sbpc.boxing.cost_model.Device``): ``PRODUCT_REPS``
  dependent products of ``m`` x ``PRODUCT`` by ``PRODUCT`` x ``PRODUCT``
  for each ``m`` in ``ROWS`` take ``c * (m + half)``, so a line through
  their times gives it as intercept over slope.  A plan that splits a
  batch further leaves each device the same flops in products of fewer
  rows, which run slower (here 8 rows ran at about half the rate of 256);
* ``hbm``: one device's elementwise memory traffic rate;
* ``overhead`` and ``lat``: what one collective costs.  By default a chain
  of ``CHAIN`` dependent tiny all-gathers against a single one gives each
  collective's own time without the call's dispatch, on rings of 2, 4 and 8
  devices (every device busy: 4, 2 or 1 rings at once); those cost
  ``overhead + (n - 1) * lat``, so a line fitted through them gives the
  fixed cost of one launch (the intercept) and the cost of one more ring
  round (the slope).  With ``--between-work`` each all-gather instead
  follows a block of work (a ``BLOCK`` x ``BLOCK`` matmul and ``tanh`` on
  every device), timed round by round against the same blocks without the
  all-gathers (``bench/paired_timing.py``): a collective inside a step
  also waits for the slowest device to arrive, which back-to-back
  all-gathers never do (here: 120 us on 8 devices back to back, 200-260 us
  between blocks of 128, 520 us between blocks of 384).  The benchmark
  keeps the chain: docs/performance.md has both calibrations' results;
* ``bw``: bytes each device sends per second in a large all-gather.
"""

from __future__ import annotations

import os

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import argparse
from collections.abc import Callable, Sequence
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import AxisType, Mesh, NamedSharding
from jax.sharding import PartitionSpec as P
from paired_timing import interleaved_times, median_seconds, paired_difference
from scipy.optimize import nnls

N = 8
RINGS = (2, 4, 8)  # ring lengths of the tiny all-gathers
CHAIN = 8  # dependent all-gathers in the longer program (and blocks of work)
BLOCK = 128  # each block: a BLOCK x BLOCK matmul per device
ROUNDS = 61  # paired rounds per between-work collective measurement
WINDOWS = 3  # measurements of every value; the calibration is their median
ROWS = (8, 16, 32, 64, 128, 256)  # rows of the products that give flops_half
PRODUCT = 256  # their contracted and column extents
PRODUCT_REPS = 8  # dependent products per call (the call's dispatch amortized)


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


def _ring_mesh(ring: int) -> Mesh:
    """All ``N`` devices as ``N // ring`` rings of ``ring`` (mesh axis ``d``)."""
    devices = np.array(jax.devices()[:N]).reshape(N // ring, ring)
    return Mesh(devices, ("g", "d"), axis_types=(AxisType.Auto,) * 2)


def chained_collective_seconds(ring: int) -> Callable[[], float]:
    """A measurement of one tiny all-gather's own seconds: a chain's extra
    time per extra collective, without the call's dispatch."""
    one, chain = (
        _per_device(_ring_mesh(ring), _gathers(count), (8,)) for count in (1, CHAIN)
    )

    def measure() -> float:
        extra = median_seconds(*chain, repeats=31) - median_seconds(*one, repeats=31)
        return max(extra, 0.0) / (CHAIN - 1)

    return measure


def _step(ring: int, gather: bool) -> tuple[Callable[..., jax.Array], tuple]:
    """``CHAIN`` blocks of work on every device, each followed by a tiny
    all-gather over rings of ``ring`` devices (``N // ring`` rings at once)
    whose sum feeds the next block; with ``gather=False`` the same sum of
    the device's own piece instead (the same work, no collective)."""
    mesh = _ring_mesh(ring)

    def body(x, w):
        for _ in range(CHAIN):
            x = jnp.tanh(x @ w)
            piece = x[:1, :8]
            if gather:
                total = jax.lax.all_gather(piece, axis_name="d").sum()
            else:
                total = ring * piece.sum()
            x = x + 1e-9 * total
        return x

    split = P(mesh.axis_names)
    fn = jax.jit(
        jax.shard_map(body, mesh=mesh, in_specs=split, out_specs=split, check_vma=False)
    )
    rng = np.random.default_rng(0)
    args = tuple(
        jax.device_put(
            (rng.standard_normal((BLOCK * N, BLOCK)) / np.sqrt(BLOCK)).astype(
                np.float32
            ),
            NamedSharding(mesh, split),
        )
        for _ in range(2)
    )
    return fn, args


def between_work_collective_seconds(ring: int) -> Callable[[], float]:
    """A measurement of one tiny all-gather's own seconds inside a step:
    what ``CHAIN`` of them add to the same work, round by round, per
    collective (compiled once, measured at each call)."""
    with_gathers, without = (_step(ring, gather) for gather in (True, False))

    def measure() -> float:
        times = interleaved_times(
            [with_gathers[0], without[0]], [with_gathers[1], without[1]], ROUNDS
        )
        return max(paired_difference(*times), 0.0) / CHAIN

    return measure


def _rows_product(rows: int) -> tuple[Callable[..., jax.Array], jax.Array]:
    """``PRODUCT_REPS`` dependent products of ``rows`` x ``PRODUCT`` by
    ``PRODUCT`` x ``PRODUCT`` on every device (each scales the next one's
    rows by a scalar of the last one's sum, so none can be folded away)."""
    mesh = Mesh(np.array(jax.devices()[:N]), ("d",), axis_types=(AxisType.Auto,))
    lhs = rows * PRODUCT

    def body(v):
        a, b = v[:lhs].reshape(rows, PRODUCT), v[lhs:].reshape(PRODUCT, PRODUCT)

        def step(_, s):
            return s + 1e-30 * jnp.sum((a * s) @ b)

        return jax.lax.fori_loop(0, PRODUCT_REPS, step, jnp.ones((), v.dtype))[None]

    return _per_device(mesh, body, (lhs + PRODUCT * PRODUCT,))


def half_extent_seconds(rounds: int = 31) -> Callable[[], list[float]]:
    """A measurement of one product's seconds at each of ``ROWS``.

    The products and a tiny dispatch-only call are timed round by round
    (``interleaved_times``: each round calls every one once) and each is
    the median over rounds, less the tiny call's: every row count then sees
    the same load.  Timed one after another, the load's drift between the
    row counts bent the fitted line: on the 2-core machine under load 4-8,
    ten windows gave ``flops_half`` from 0 to 92 timed in turn and 4 to 11
    interleaved (docs/performance.md)."""
    mesh = Mesh(np.array(jax.devices()[:N]), ("d",), axis_types=(AxisType.Auto,))
    calls = [_per_device(mesh, lambda v: v[:1] * 2.0, (8,))]
    calls += [_rows_product(rows) for rows in ROWS]

    def measure() -> list[float]:
        times = interleaved_times(
            [call[0] for call in calls], [call[1:] for call in calls], rounds
        )
        dispatch, *products = (float(np.median(t)) for t in times)
        return [max(p - dispatch, 0.0) / PRODUCT_REPS for p in products]

    return measure


def fit_half_extent(rows: Sequence[int], seconds: Sequence[float]) -> float:
    """Hockney's n-half: the intercept over the slope of the non-negative
    line ``c * (m + half)`` nearest to products' times at ``m`` rows."""
    a = np.array([[float(m), 1.0] for m in rows])
    (slope, intercept), _ = nnls(a, np.asarray(seconds, dtype=float))
    return float(intercept / slope) if slope > 0 else 0.0


def _bandwidth(elements: int) -> Callable[[], float]:
    """A measurement of the bytes each device sends per second in an
    all-gather over all ``N`` devices: a large one's time less a tiny one's."""
    mesh = Mesh(np.array(jax.devices()[:N]), ("d",), axis_types=(AxisType.Auto,))
    gather = partial(jax.lax.all_gather, axis_name="d", tiled=True)
    large, tiny = (
        _per_device(mesh, gather, (count,), out_spec=P()) for count in (elements, 8)
    )
    sent = (N - 1) / N * 4 * elements * N

    def measure() -> float:
        seconds = median_seconds(*large) - median_seconds(*tiny)
        return sent / max(seconds, 1e-9)

    return measure


def fit_overhead(rings: Sequence[int], seconds: Sequence[float]) -> tuple[float, float]:
    """(overhead, latency): the non-negative line ``overhead + (n - 1) *
    latency`` nearest to the tiny collectives' times on rings of ``n``."""
    a = np.array([[1.0, n - 1.0] for n in rings])
    (overhead, latency), _ = nnls(a, np.asarray(seconds, dtype=float))
    return float(overhead), float(latency)


COLLECTIVE_SECONDS = {
    "chain": chained_collective_seconds,
    "between-work": between_work_collective_seconds,
}
# What the two kinds of collective measurement differ in: a scenario's keys.
COLLECTIVE_KEYS = ("lat", "overhead")


def calibrate(windows: int = WINDOWS, between_work: bool = False) -> dict[str, float]:
    """The machine as cost-model values, each the median of ``windows``
    measurements taken one after another: the load drifts over seconds (one
    measurement's memory rate ranged 1.7-2.5e9 across runs a minute apart),
    and a plan the search decides on one value should not follow the drift.
    ``between_work``: collectives measured between blocks of work."""
    kind = "between-work" if between_work else "chain"
    return calibrate_kinds(windows, (kind,))[kind]


def calibrate_kinds(
    windows: int = WINDOWS, kinds: Sequence[str] = ("chain",)
) -> dict[str, dict[str, float]]:
    """The machine's cost-model values once per kind of collective
    measurement (``COLLECTIVE_SECONDS``): the kinds share the bandwidth and
    the device's rates, measured once per window."""
    mesh = Mesh(np.array(jax.devices()[:N]), ("d",), axis_types=(AxisType.Auto,))
    k = 384
    matmul = _per_device(mesh, lambda a: a @ a, (k, k))
    m = 1 << 20
    elementwise = _per_device(mesh, lambda a: a * 1.5 + 1.0, (m,))
    collectives = {kind: [COLLECTIVE_SECONDS[kind](n) for n in RINGS] for kind in kinds}
    bandwidth = _bandwidth(m // 4)
    products = half_extent_seconds()

    def window() -> dict[str, dict[str, float]]:
        bw = bandwidth()
        flops = 2 * k**3 / median_seconds(*matmul)
        hbm = 2 * 4 * m / median_seconds(*elementwise)
        half = fit_half_extent(ROWS, products())
        values = {}
        for kind, measures in collectives.items():
            overhead, latency = fit_overhead(RINGS, [measure() for measure in measures])
            values[kind] = {
                "bw": bw,
                "lat": latency,
                "overhead": overhead,
                "flops": flops,
                "hbm": hbm,
                "flops_half": half,
            }
        return values

    measured = [window() for _ in range(windows)]
    return {kind: median_values([w[kind] for w in measured]) for kind in kinds}


def scenarios_text(nominal: dict[str, float], other: dict[str, float]) -> str:
    """A cost model of ``nominal``'s values with ``other``'s collectives as a
    second scenario (``CostModel.parse``'s ``|``)."""
    return cost_model_text(nominal) + "|" + scenario_text(other)


def scenario_text(other: dict[str, float]) -> str:
    """The ``|`` part of a cost model: ``other``'s collectives."""
    return cost_model_text({key: other[key] for key in COLLECTIVE_KEYS})


def median_values(windows: Sequence[dict[str, float]]) -> dict[str, float]:
    """Each key's median over the windows' measurements."""
    if not windows:
        raise ValueError("a calibration needs at least one window")
    return {key: float(np.median([w[key] for w in windows])) for key in windows[0]}


def cost_model_text(values: dict[str, float]) -> str:
    """The ``sbp-propagate{cost_model=...}`` text of measured values."""
    return ",".join(f"{k}={v:.3g}" for k, v in values.items())


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    choice = parser.add_mutually_exclusive_group()
    choice.add_argument(
        "--between-work",
        action="store_true",
        help="measure each collective between blocks of work, not in a chain",
    )
    choice.add_argument(
        "--scenarios",
        action="store_true",
        help="the chain's values, then '|' and the between-work collectives",
    )
    args = parser.parse_args()
    if args.scenarios:
        both = calibrate_kinds(kinds=("chain", "between-work"))
        print(scenarios_text(both["chain"], both["between-work"]))
    else:
        print(cost_model_text(calibrate(between_work=args.between_work)))
