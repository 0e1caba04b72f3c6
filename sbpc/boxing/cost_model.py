"""Alpha-beta cost of a layout change: bytes each device sends, and modeled time.

One boxing step changes the entry of some hierarchy dimensions of an nd_sbp;
the devices that differ only along those dimensions form a *group* of ``n``
devices that runs one collective (ring algorithms).  ``T`` below is the size
in bytes of the tensor the group holds before the step: the piece of the
logical tensor that the *other* hierarchy dimensions leave to that group, i.e.
the logical size divided by every split of the other dimensions
(``group_bytes``).  Each device sends

| change | collective | bytes each device sends | rounds |
| --- | --- | --- | --- |
| S(i) -> B | all_gather | (n-1)/n * T | n-1 |
| S(i) -> S(j) | all_to_all | (n-1)/n^2 * T | n-1 |
| P -> B | all_reduce | 2(n-1)/n * T | 2(n-1) |
| P -> S(i) | reduce_scatter | (n-1)/n * T | n-1 |
| B -> S(i) | local_slice | 0 | 0 |
| B or S(i) -> P | local_to_partial | 0 | 0 |

(for S(i) -> B the group holds ``T`` as ``n`` shards of ``T/n``; for P -> B
each device holds a full ``T``-byte partial piece).  A step takes
``overhead + rounds * latency + bytes / bandwidth`` on the link of its
hierarchy dimension: ``overhead`` is paid once per collective launch (a
rendezvous, a kernel launch) whatever its ring length, so one all_reduce
costs one overhead where a reduce_scatter then an all_gather, with the same
rounds and bytes, cost two.  A group spanning several dimensions runs one
ring over all of them, so it pays the slowest link's bandwidth, latency and
overhead.  A ``transfer`` between placements pays ``overhead + fan_out *
latency + bytes / bandwidth`` on the ``transfer`` link.  The planner adds
what a step computes locally (``local_to_partial``, and a ``P(sum)``
reduce-scatter that needs a transposing copy) through ``compute_time``:
``sbpc.boxing.local_work``.

Bytes and times are exact ``Fraction``s, so that alternatives of equal cost
(one all_reduce, or a reduce_scatter then an all_gather) compare equal and
the planner can prefer the one with fewer steps.  ``float()`` them to print.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction

from sbpc.algebra.layout import local_shape
from sbpc.algebra.sbp import Broadcast, NdSbp, Sbp, Split
from sbpc.algebra.tensor_type import TensorType
from sbpc.boxing.collective_kind import LOCAL_KINDS, CollectiveKind


class CostModelError(ValueError):
    """A cost model that cannot be built (bad option text, non-positive bandwidth)."""


@dataclass(frozen=True)
class Link:
    """One kind of interconnect: bytes/s each device can send, seconds per
    round, and fixed seconds per collective launch (default none)."""

    bandwidth: float
    latency: float
    overhead: float = 0.0

    def __post_init__(self) -> None:
        if not self.bandwidth > 0 or not math.isfinite(self.bandwidth):
            raise CostModelError(
                f"link bandwidth must be positive, got {self.bandwidth}"
            )
        if not self.latency >= 0 or not math.isfinite(self.latency):
            raise CostModelError(
                f"link latency must be non-negative, got {self.latency}"
            )
        if not self.overhead >= 0 or not math.isfinite(self.overhead):
            raise CostModelError(
                f"link overhead must be non-negative, got {self.overhead}"
            )


# Inside a node: NVLink-like, 100 GB/s per device, 1 us per round and 5 us
# per launch (a kernel launch and NCCL's setup: a small all-reduce on 8 GPUs
# of one node takes tens of microseconds, whatever its size).
NVLINK_LIKE = Link(bandwidth=100e9, latency=1e-6, overhead=5e-6)
# Between nodes: network-like (200 Gb/s InfiniBand), 25 GB/s, 5 us per round
# and 10 us per launch.
NETWORK_LIKE = Link(bandwidth=25e9, latency=5e-6, overhead=10e-6)
# Between placements (pipeline stages): the network, its launch cost not
# modeled (a ``transfer``'s overhead is 0 unless set through the Python API).
TRANSFER_LIKE = Link(bandwidth=25e9, latency=5e-6)


@dataclass(frozen=True)
class Device:
    """What one device computes with: flop/s and memory bytes/s (a roofline).

    ``half_extent`` is Hockney's n-half for products: a contraction whose
    smallest extent (rows, columns or contracted length, per device) is
    ``e`` runs at ``flops * e / (e + half_extent)``.  A split that leaves a
    device few rows keeps the flops a device does but not the rate it does
    them at (tiles run part empty, operands are re-read per row); 0, the
    default, prices every product at the full rate.
    """

    flops: float
    memory_bandwidth: float
    half_extent: float = 0.0

    def __post_init__(self) -> None:
        for what, v in (
            ("flops", self.flops),
            ("memory bandwidth", self.memory_bandwidth),
        ):
            if not v > 0 or not math.isfinite(v):
                raise CostModelError(f"device {what} must be positive, got {v}")
        if not self.half_extent >= 0 or not math.isfinite(self.half_extent):
            raise CostModelError(
                f"device half extent must be non-negative, got {self.half_extent}"
            )

    def product_rate(self, extent: float) -> float:
        """Flop/s of a product whose smallest extent is ``extent``."""
        if self.half_extent == 0 or math.isinf(extent):
            return self.flops
        return self.flops * extent / (extent + self.half_extent)


# An H100-class GPU in f32: about 50 Tflop/s and 2 TB/s of memory bandwidth.
GPU_LIKE = Device(flops=50e12, memory_bandwidth=2e12)


@dataclass(frozen=True)
class CostModel:
    """Per-hierarchy-dimension links, listed outermost (dim 0) first.

    The list is aligned on the innermost dimension: a hierarchy with fewer
    dimensions uses the last entries (a 1-D mesh is one node, on the innermost
    link), one with more dimensions repeats the first entry for its extra
    outer dimensions.  The default is network-like between nodes and
    NVLink-like for the innermost dimension.  ``transfer`` is the link used to
    move data between two placements (pipeline stages).
    """

    links: tuple[Link, ...] = (NETWORK_LIKE, NVLINK_LIKE)
    transfer: Link = field(default=TRANSFER_LIKE)
    device: Device = field(default=GPU_LIKE)
    # Independent collectives of one kind run as one (the JAX emitter
    # combines them): the search then prices latency once per combinable
    # group (``sbpc.propagation.combined_cost``), not once per collective.
    # On by default: the search prices what the emitter runs.
    combine: bool = True
    # The same machine with other links (``|`` in the option text): the
    # search keeps the plan whose worst regret across all of them is least
    # (``sbpc.propagation.scenarios``).  Empty: this model alone.
    scenarios: tuple[CostModel, ...] = ()

    def __post_init__(self) -> None:
        if not self.links:
            raise CostModelError("a cost model needs at least one link")

    def with_latency_scale(self, scale: float) -> CostModel:
        """The same machine with every in-placement link's latency and
        overhead times ``scale``: what a collective's fixed cost is worth
        once it is shared by a combined group."""
        links = tuple(
            Link(x.bandwidth, x.latency * scale, x.overhead * scale) for x in self.links
        )
        return replace(self, links=links)

    def link(self, dim: int, ndim: int) -> Link:
        """The link of hierarchy dimension ``dim`` of an ``ndim``-D hierarchy."""
        if not 0 <= dim < ndim:
            raise CostModelError(f"hierarchy dim {dim} out of range for {ndim} dims")
        index = len(self.links) - ndim + dim
        return self.links[max(index, 0)]

    def group_link(self, dims: Sequence[int], ndim: int) -> Link:
        """The bottleneck of one ring over ``dims``: slowest bandwidth,
        latency and overhead."""
        links = [self.link(d, ndim) for d in dims]
        return Link(
            bandwidth=min(x.bandwidth for x in links),
            latency=max(x.latency for x in links),
            overhead=max(x.overhead for x in links),
        )

    def step_latency(
        self, kind: CollectiveKind, dims: Sequence[int], hierarchy: Sequence[int]
    ) -> Fraction:
        """The fixed seconds of one step, whatever its bytes: one launch
        overhead and its rounds' latency (0 for a local step)."""
        n = math.prod(hierarchy[d] for d in dims)
        r = rounds(kind, n)
        if r == 0:
            return Fraction(0)
        link = self.group_link(dims, len(hierarchy))
        return Fraction(link.overhead) + r * Fraction(link.latency)

    def step_time(
        self,
        kind: CollectiveKind,
        dims: Sequence[int],
        hierarchy: Sequence[int],
        nbytes: Fraction,
    ) -> Fraction:
        """Modeled seconds of one in-placement step moving ``nbytes`` per device."""
        fixed = self.step_latency(kind, dims, hierarchy)
        if fixed == 0 and nbytes == 0:
            return Fraction(0)
        link = self.group_link(dims, len(hierarchy))
        return fixed + Fraction(nbytes) / Fraction(link.bandwidth)

    def transfer_time(self, nbytes: Fraction, fan_out: int = 1) -> Fraction:
        """Modeled seconds of a transfer: ``fan_out`` sends of ``nbytes`` in all."""
        if nbytes == 0:
            return Fraction(0)
        link = self.transfer
        fixed = Fraction(link.overhead) + fan_out * Fraction(link.latency)
        return fixed + Fraction(nbytes) / Fraction(link.bandwidth)

    def compute_time(
        self, flops: float, nbytes: float, extent: float = math.inf
    ) -> float:
        """Modeled seconds of local work: the slower of math and memory
        traffic; ``extent`` is a product's smallest extent (``Device``),
        ``inf`` for work that is not a product."""
        memory = nbytes / self.device.memory_bandwidth
        if flops == 0:
            return memory
        return max(flops / self.device.product_rate(extent), memory)

    @staticmethod
    def parse(text: str) -> CostModel:
        """Build from a pass option such as ``bw=25e9:100e9,lat=5e-6:1e-6``.

        Keys: ``bw``, ``lat`` and ``overhead`` (seconds per collective
        launch; by default 10 us between nodes and 5 us inside one) (one
        value per hierarchy dimension, dim 0 first, ``:``-separated; a
        single value applies to every dimension; a key not given takes the
        default links' values, aligned on the innermost dimension),
        ``transfer_bw`` and ``transfer_lat`` (the inter-placement link),
        ``flops`` and ``hbm`` (one device's flop/s and memory bytes/s),
        ``flops_half`` (the extent at which a product runs at half the flop
        rate, ``Device.half_extent``; default 0: every product at the full
        rate), ``combine`` (1, the default: price latency once per combinable
        group, as the emitter combines; 0: once per collective).
        Omitted keys keep the default.  ``default`` or an empty text gives
        the default model.  Further ``|``-separated parts are *scenarios*:
        the same machine with the link keys they list changed (e.g.
        ``...,overhead=3e-5|overhead=7e-5``, a launch cost known only within
        a range); the device and ``combine`` are the first part's.
        """
        first, *others = text.split("|")
        values = _values(first, "cost model option")
        nominal = _build(values)
        scenarios = []
        for i, part in enumerate(others, start=2):
            where = f"cost model scenario {i}"
            changed = _values(part, where)
            if not changed:
                raise CostModelError(f"{where} is empty: list the link keys it changes")
            fixed = sorted(set(changed) - set(_LINK_KEYS))
            if fixed:
                raise CostModelError(
                    f"{where} sets {', '.join(repr(k) for k in fixed)}: a scenario "
                    "changes only links (" + ", ".join(_LINK_KEYS) + ")"
                )
            scenarios.append(_build({**values, **changed}))
        return replace(nominal, scenarios=tuple(scenarios))


def _values(text: str, where: str) -> dict[str, list[float]]:
    """The keys one part of the option text sets, each with its values."""
    body = text.strip()
    if body in ("", "default"):
        return {}
    values: dict[str, list[float]] = {}
    for item in body.split(","):
        key, eq, val = item.partition("=")
        key = key.strip()
        if not eq or key not in _KEYS:
            raise CostModelError(
                "expected one of "
                + ", ".join(f"'{k}='" for k in _KEYS)
                + f" in {where}, got '{item.strip()}'"
            )
        if key in values:
            raise CostModelError(f"{where} sets '{key}' twice")
        try:
            values[key] = [float(v) for v in val.strip().split(":")]
        except ValueError:
            raise CostModelError(
                f"expected numbers separated by ':' for '{key}', got '{val.strip()}'"
            ) from None
    return values


def _build(values: dict[str, list[float]]) -> CostModel:
    """The model ``values`` describe, the default for every key they omit."""
    default = CostModel()
    if not values:
        return default
    given = {len(v) for k, v in values.items() if k in _PER_DIM_KEYS and len(v) > 1}
    length = given.pop() if len(given) == 1 else 1  # else: they disagree

    def per_dim(key: str, defaults: list[float]) -> list[float]:
        """The key's values; a key not given takes the default links',
        aligned on the innermost dimension to the lists that are given."""
        if key in values:
            return values[key]
        if length <= 1:
            return defaults
        return [defaults[0]] * (length - len(defaults)) + defaults[-length:]

    bws, lats, overheads = _per_dim_lists(
        {
            "bw": per_dim("bw", [x.bandwidth for x in default.links]),
            "lat": per_dim("lat", [x.latency for x in default.links]),
            "overhead": per_dim("overhead", [x.overhead for x in default.links]),
        }
    )
    for key in ("transfer_bw", "transfer_lat", "flops", "hbm", "flops_half", "combine"):
        if key in values and len(values[key]) != 1:
            raise CostModelError(f"'{key}' takes one value")
    transfer = Link(
        bandwidth=values.get("transfer_bw", [default.transfer.bandwidth])[0],
        latency=values.get("transfer_lat", [default.transfer.latency])[0],
        overhead=default.transfer.overhead,
    )
    device = Device(
        flops=values.get("flops", [default.device.flops])[0],
        memory_bandwidth=values.get("hbm", [default.device.memory_bandwidth])[0],
        half_extent=values.get("flops_half", [default.device.half_extent])[0],
    )
    combine = values.get("combine", [1.0])[0]
    if combine not in (0.0, 1.0):
        raise CostModelError(f"'combine' takes 0 or 1, got {combine:g}")
    links = tuple(
        Link(b, lat, o) for b, lat, o in zip(bws, lats, overheads, strict=True)
    )
    return CostModel(
        links=links, transfer=transfer, device=device, combine=combine == 1.0
    )


_KEYS = (
    "bw",
    "lat",
    "overhead",
    "transfer_bw",
    "transfer_lat",
    "flops",
    "hbm",
    "flops_half",
    "combine",
)
_PER_DIM_KEYS = ("bw", "lat", "overhead")
# What a scenario may change: the links, not the device or the search.
_LINK_KEYS = ("bw", "lat", "overhead", "transfer_bw", "transfer_lat")


def _per_dim_lists(lists: dict[str, list[float]]) -> list[list[float]]:
    """The per-hierarchy-dimension keys' values at one length: a single
    value repeats; two longer lists of different lengths are an error."""
    ref: str | None = None
    for key, vals in lists.items():
        if len(vals) == 1:
            continue
        if ref is None:
            ref = key
        elif len(vals) != len(lists[ref]):
            raise CostModelError(
                f"'{ref}' lists {len(lists[ref])} values but '{key}' lists {len(vals)}"
            )
    length = 1 if ref is None else len(lists[ref])
    return [vals * length if len(vals) == 1 else vals for vals in lists.values()]


DEFAULT_COST_MODEL = CostModel()


def collective_kind(src: Sbp, dst: Sbp) -> CollectiveKind | None:
    """The step that changes one entry ``src -> dst`` (None: no single step).

    ``P(a) -> P(b)`` is no single step (it goes through B or S); the same
    entry on both sides needs no step either.
    """
    if src == dst:
        return None
    if isinstance(src, Split):
        if isinstance(dst, Broadcast):
            return CollectiveKind.ALL_GATHER
        if isinstance(dst, Split):
            return CollectiveKind.ALL_TO_ALL
        return CollectiveKind.LOCAL_TO_PARTIAL
    if isinstance(src, Broadcast):
        if isinstance(dst, Split):
            return CollectiveKind.LOCAL_SLICE
        return CollectiveKind.LOCAL_TO_PARTIAL
    if isinstance(dst, Broadcast):
        return CollectiveKind.ALL_REDUCE
    if isinstance(dst, Split):
        return CollectiveKind.REDUCE_SCATTER
    return None


def rounds(kind: CollectiveKind, n: int) -> int:
    """Latency rounds of a ring collective over ``n`` devices."""
    if kind in LOCAL_KINDS or n <= 1:
        return 0
    if kind == CollectiveKind.ALL_REDUCE:
        return 2 * (n - 1)
    if kind == CollectiveKind.TRANSFER:
        return 1
    return n - 1


def collective_bytes(
    kind: CollectiveKind, n: int, group_bytes: int | Fraction
) -> Fraction:
    """Bytes each device sends in ``kind`` over ``n`` devices (see the table).

    ``group_bytes`` is ``T``: the size of the tensor the group holds before
    the step (``group_bytes()``), not the local piece of one device.
    """
    t = Fraction(group_bytes)
    if kind in (CollectiveKind.ALL_GATHER, CollectiveKind.REDUCE_SCATTER):
        return Fraction(n - 1, n) * t
    if kind == CollectiveKind.ALL_TO_ALL:
        return Fraction(n - 1, n * n) * t
    if kind == CollectiveKind.ALL_REDUCE:
        return Fraction(2 * (n - 1), n) * t
    if kind in LOCAL_KINDS:
        return Fraction(0)
    raise CostModelError(f"no byte formula for step kind '{kind}'")


def local_bytes(nd_sbp: NdSbp, tensor: TensorType, hierarchy: Sequence[int]) -> int:
    """Bytes each device holds of ``tensor`` laid out as ``nd_sbp`` (the largest piece)."""
    return group_bytes(nd_sbp, (), tensor, hierarchy)


def group_bytes(
    nd_sbp: NdSbp, dims: Sequence[int], tensor: TensorType, hierarchy: Sequence[int]
) -> int:
    """``T`` of a step on ``dims``: the tensor's bytes over the splits of other
    dims; with uneven splits, the padded bytes (largest piece times pieces)."""
    shape = local_shape(tensor.shape, nd_sbp, hierarchy)
    cut = math.prod(
        n
        for d, (sbp, n) in enumerate(zip(nd_sbp, hierarchy, strict=True))
        if d in dims and isinstance(sbp, Split)
    )
    return math.prod(shape) * cut * tensor.nbytes // max(math.prod(tensor.shape), 1)
