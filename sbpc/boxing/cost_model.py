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
| S(i) -> S(j) | all_to_all | (n-1)/n^2 * T | n-1 (1 with ``a2a=1``) |
| P -> B | all_reduce | 2(n-1)/n * T | 2(n-1) |
| P -> S(i) | reduce_scatter | (n-1)/n * T | n-1 |
| B -> S(i) | local_slice | 0 | 0 |
| B or S(i) -> P | local_to_partial | 0 | 0 |

(for S(i) -> B the group holds ``T`` as ``n`` shards of ``T/n``; for P -> B
each device holds a full ``T``-byte partial piece).  A ring passes its
pieces on in ``n-1`` dependent rounds.  An all_to_all is priced as a
pairwise exchange of ``n-1`` rounds by default (on the simulated CPU devices
a small one takes as long as an all_gather); where the machine sends every
peer its piece at once (NCCL's grouped sends on GPUs, one ICI all-to-all:
``a2a=1``, the GPU and TPU presets) it waits one round, as a transfer does.  A step takes
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

A machine may instead say which hierarchy dimensions lie inside a node
(``Levels``: the innermost dimensions whose sizes multiply to at most the
node's device count use the node's link, the others the network's), price
products by their operand dtype (``Device.rates``) and hold a memory
capacity (``Device.capacity``, the default memory budget).  Named machines
(``h100-sxm``, ...) are presets of the option text (``sbpc.boxing.machines``,
docs/machines.md).

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
from sbpc.boxing.machines import PRESETS


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
class Levels:
    """Links by level: ``node`` devices share the ``inside`` link (NVLink,
    a TPU slice's ICI), groups reaching beyond a node use ``across`` (the
    network).  With ranks laid out row-major, the innermost hierarchy
    dimensions whose sizes multiply to at most ``node`` stay inside a node;
    every dimension outside them crosses nodes (on an 8-GPU node, ``(2, 8)``
    is network x NVLink, ``(4, 4)`` too, ``(64,)`` the network)."""

    node: int
    inside: Link
    across: Link

    def __post_init__(self) -> None:
        if self.node < 1:
            raise CostModelError(
                f"devices per node must be at least 1, got {self.node}"
            )

    def link(self, dim: int, hierarchy: Sequence[int]) -> Link:
        """The link of hierarchy dimension ``dim``."""
        inner = math.prod(hierarchy[dim:])
        return self.inside if inner <= self.node else self.across

    def scaled(self, scale: float) -> Levels:
        """Both links with their latency and overhead times ``scale``."""
        return replace(
            self, inside=_scaled(self.inside, scale), across=_scaled(self.across, scale)
        )

    def slowed(self, factor: float) -> Levels:
        """Both links with their bandwidth divided by ``factor``."""
        return replace(
            self,
            inside=_slowed(self.inside, factor),
            across=_slowed(self.across, factor),
        )


def _scaled(link: Link, scale: float) -> Link:
    return Link(link.bandwidth, link.latency * scale, link.overhead * scale)


def _slowed(link: Link, factor: float) -> Link:
    return Link(link.bandwidth / factor, link.latency, link.overhead)


# Flop-rate classes of element types: a product of operands of one class
# runs at that class's rate (``Device.rates``), e.g. ``flops_bf16=989e12``.
# ``f32_default`` and ``f32_high`` are f32 products at JAX's DEFAULT and
# HIGH precision, which accelerators run faster than exact f32 (an H100 as
# tf32, a TPU as one or three bf16 passes); without a rate of their own
# they run at ``flops_f32``.
RATE_CLASSES = (
    "f64",
    "f32",
    "f32_default",
    "f32_high",
    "tf32",
    "bf16",
    "f16",
    "f8",
    "i8",
)
# A class without a rate of its own runs at this one's (then at ``flops``).
_FALLBACK = {"f32_default": "f32", "f32_high": "f32"}


def rate_class(element: str) -> str:
    """The flop-rate class of an MLIR element type (``f8E4M3FN`` -> ``f8``,
    ``ui8`` -> ``i8``); other types are their own class (no rate of their
    own: the device's ``flops``)."""
    if element.startswith("f8"):
        return "f8"
    if element in ("i8", "ui8", "si8"):
        return "i8"
    return element


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
    # Flop/s of products by operand class (``RATE_CLASSES``), sorted by
    # class; a class without one runs at ``flops``, as does every op that
    # is not a product (elementwise work: the vector units).
    rates: tuple[tuple[str, float], ...] = ()
    # Bytes of memory per device (None: unknown): the default memory budget.
    capacity: float | None = None

    def __post_init__(self) -> None:
        named = [(f"flops_{c}", r) for c, r in self.rates]
        for what, v in (
            ("flops", self.flops),
            ("memory bandwidth", self.memory_bandwidth),
            *named,
            *([] if self.capacity is None else [("memory capacity", self.capacity)]),
        ):
            if not v > 0 or not math.isfinite(v):
                raise CostModelError(f"device {what} must be positive, got {v}")
        if not self.half_extent >= 0 or not math.isfinite(self.half_extent):
            raise CostModelError(
                f"device half extent must be non-negative, got {self.half_extent}"
            )

    def flop_rate(self, dtypes: Sequence[str] = ()) -> float:
        """Flop/s of a product of operands of element types ``dtypes``: the
        slowest of their classes' rates (``flops`` where none is given)."""
        if not self.rates or not dtypes:
            return self.flops
        rates = dict(self.rates)
        return min(self._class_rate(rates, rate_class(d)) for d in dtypes)

    def _class_rate(self, rates: dict[str, float], cls: str) -> float:
        while cls not in rates and cls in _FALLBACK:
            cls = _FALLBACK[cls]
        return rates.get(cls, self.flops)

    def product_rate(self, extent: float, dtypes: Sequence[str] = ()) -> float:
        """Flop/s of a product whose smallest extent is ``extent``."""
        rate = self.flop_rate(dtypes)
        if self.half_extent == 0 or math.isinf(extent):
            return rate
        return rate * extent / (extent + self.half_extent)


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
    move data between two placements (pipeline stages).  ``levels``, when
    set, decides each dimension's link from the hierarchy's sizes instead
    (``Levels``); ``links`` is then unused.
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
    levels: Levels | None = None
    # An all_to_all sends every peer its piece at once (one round's
    # latency: NCCL's grouped sends, a TPU's ICI), not n-1 pairwise rounds.
    grouped_a2a: bool = False

    def __post_init__(self) -> None:
        if not self.links:
            raise CostModelError("a cost model needs at least one link")

    @property
    def memory_capacity(self) -> float | None:
        """Bytes of memory per device (``mem=``), or None when unknown."""
        return self.device.capacity

    def with_latency_scale(self, scale: float) -> CostModel:
        """The same machine with every in-placement link's latency and
        overhead times ``scale``: what a collective's fixed cost is worth
        once it is shared by a combined group."""
        links = tuple(_scaled(x, scale) for x in self.links)
        levels = None if self.levels is None else self.levels.scaled(scale)
        return replace(self, links=links, levels=levels)

    def with_bytes_dearer(self, factor: float) -> CostModel:
        """The same machine with every link's bandwidth divided by
        ``factor``: a search under it moves the fewest bytes it can and
        only then weighs compute and latency (the fewest-bytes reference
        plan a chosen plan's extra bytes are reported against)."""
        links = tuple(_slowed(x, factor) for x in self.links)
        levels = None if self.levels is None else self.levels.slowed(factor)
        return replace(
            self, links=links, levels=levels, transfer=_slowed(self.transfer, factor)
        )

    def link(self, dim: int, hierarchy: Sequence[int] | int) -> Link:
        """The link of hierarchy dimension ``dim`` of ``hierarchy`` (its
        sizes; or only its number of dims, for a model without ``levels``)."""
        ndim = hierarchy if isinstance(hierarchy, int) else len(hierarchy)
        if not 0 <= dim < ndim:
            raise CostModelError(f"hierarchy dim {dim} out of range for {ndim} dims")
        if self.levels is not None:
            if isinstance(hierarchy, int):
                raise CostModelError(
                    "this machine's links depend on the hierarchy's sizes, not "
                    "only its number of dims"
                )
            return self.levels.link(dim, hierarchy)
        index = len(self.links) - ndim + dim
        return self.links[max(index, 0)]

    def group_link(self, dims: Sequence[int], hierarchy: Sequence[int] | int) -> Link:
        """The bottleneck of one ring over ``dims``: slowest bandwidth,
        latency and overhead."""
        links = [self.link(d, hierarchy) for d in dims]
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
        r = rounds(kind, n, self.grouped_a2a)
        if r == 0:
            return Fraction(0)
        link = self.group_link(dims, hierarchy)
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
        link = self.group_link(dims, hierarchy)
        return fixed + Fraction(nbytes) / Fraction(link.bandwidth)

    def transfer_time(self, nbytes: Fraction, fan_out: int = 1) -> Fraction:
        """Modeled seconds of a transfer: ``fan_out`` sends of ``nbytes`` in all."""
        if nbytes == 0:
            return Fraction(0)
        link = self.transfer
        fixed = Fraction(link.overhead) + fan_out * Fraction(link.latency)
        return fixed + Fraction(nbytes) / Fraction(link.bandwidth)

    def compute_time(
        self,
        flops: float,
        nbytes: float,
        extent: float = math.inf,
        dtypes: Sequence[str] = (),
    ) -> float:
        """Modeled seconds of local work: the slower of math and memory
        traffic; ``extent`` is a product's smallest extent (``Device``),
        ``inf`` for work that is not a product; ``dtypes``: a product's
        operand element types (its rate, ``Device.flop_rate``), empty for
        work that is not a product."""
        memory = nbytes / self.device.memory_bandwidth
        if flops == 0:
            return memory
        return max(flops / self.device.product_rate(extent, dtypes), memory)

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
        group, as the emitter combines; 0: once per collective), ``a2a``
        (1: an all_to_all waits one round, its sends grouped; 0, the
        default: ``n-1``, a pairwise exchange);
        ``flops_bf16``, ``flops_f32``, ... (a
        product's flop/s by operand class, ``RATE_CLASSES``; default
        ``flops``), ``mem`` (bytes of memory per device: the default memory
        budget), ``node`` (devices per node: links by level, ``Levels``,
        with ``node_bw``/``node_lat`` inside a node and ``net_bw``/``net_lat``
        across nodes; 0, the default, gives per-dimension ``bw``/``lat``).
        Omitted keys keep the default.  ``default`` or an empty text gives
        the default model.  The first item may name a machine
        (``h100-sxm``, ``a100-80gb``, ``tpu-v5p``, ``cpu-sim``:
        ``sbpc.boxing.machines``): its keys, the items after it replacing
        theirs (``h100-sxm,net_bw=25e9``).  Further ``|``-separated parts
        are *scenarios*: the same machine with the link keys they list
        changed (e.g. ``...,overhead=3e-5|overhead=7e-5``, a launch cost
        known only within a range); the device and ``combine`` are the
        first part's.
        """
        first, *others = text.split("|")
        values = _machine_values(first)
        nominal = _build(values)
        scenarios = []
        for i, part in enumerate(others, start=2):
            where = f"cost model scenario {i}"
            changed = _values(part, where)
            if not changed:
                raise CostModelError(f"{where} is empty: list the link keys it changes")
            fixed = sorted(set(changed) - set(_LINK_KEYS) - set(_LEVEL_KEYS))
            if fixed:
                raise CostModelError(
                    f"{where} sets {', '.join(repr(k) for k in fixed)}: a scenario "
                    "changes only links ("
                    + ", ".join(_LINK_KEYS)
                    + ") or levels ("
                    + ", ".join(_LEVEL_KEYS)
                    + ")"
                )
            scenarios.append(_build({**values, **changed}))
        return replace(nominal, scenarios=tuple(scenarios))


def _machine_values(text: str) -> dict[str, list[float]]:
    """The keys of the first part of the option text: a named machine's
    (its first item, when that is a name) with the items after it laid over."""
    name, comma, rest = text.partition(",")
    if "=" in name or name.strip() in ("", "default"):
        return _values(text, "cost model option")
    preset = PRESETS.get(name.strip())
    if preset is None:
        raise CostModelError(
            f"unknown machine '{name.strip()}': expected one of "
            + ", ".join(PRESETS)
            + ", or key=value items ("
            + ", ".join(f"'{k}='" for k in _KEYS)
            + ")"
        )
    given = _values(rest, "cost model option") if comma else {}
    return {**_values(preset, f"machine '{name.strip()}'"), **given}


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


def _check_range(key: str, value: float) -> None:
    """``value`` within ``RANGES[key]`` (a seconds key may also be 0)."""
    low, high, unit = RANGES[key]
    if (value == 0 and unit == "s") or low <= value <= high:
        return
    zero = "0 or " if unit == "s" else ""
    raise CostModelError(
        f"'{key}' must be {zero}between {low:g} and {high:g} {unit}, got {value:g}"
    )


def _build(values: dict[str, list[float]]) -> CostModel:
    """The model ``values`` describe, the default for every key they omit."""
    default = CostModel()
    if not values:
        return default
    for key in _ONE_VALUE_KEYS:
        if key in values and len(values[key]) != 1:
            raise CostModelError(f"'{key}' takes one value")
    levels = _levels(values)
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
    transfer = Link(
        bandwidth=values.get("transfer_bw", [default.transfer.bandwidth])[0],
        latency=values.get("transfer_lat", [default.transfer.latency])[0],
        overhead=default.transfer.overhead,
    )
    device = Device(
        flops=values.get("flops", [default.device.flops])[0],
        memory_bandwidth=values.get("hbm", [default.device.memory_bandwidth])[0],
        half_extent=values.get("flops_half", [default.device.half_extent])[0],
        rates=tuple(
            (c, values[f"flops_{c}"][0])
            for c in sorted(RATE_CLASSES)
            if f"flops_{c}" in values
        ),
        capacity=values["mem"][0] if "mem" in values else None,
    )
    flags = {k: values.get(k, [d])[0] for k, d in (("combine", 1.0), ("a2a", 0.0))}
    for key, flag in flags.items():
        if flag not in (0.0, 1.0):
            raise CostModelError(f"'{key}' takes 0 or 1, got {flag:g}")
    links = tuple(
        Link(b, lat, o) for b, lat, o in zip(bws, lats, overheads, strict=True)
    )
    for key, vals in values.items():  # signs are checked above, with the links
        for v in vals:
            if key in RANGES:
                _check_range(key, v)
    return CostModel(
        links=links,
        transfer=transfer,
        device=device,
        combine=flags["combine"] == 1.0,
        levels=levels,
        grouped_a2a=flags["a2a"] == 1.0,
    )


def _levels(values: dict[str, list[float]]) -> Levels | None:
    """The links by level that ``node=`` asks for (None: per-dimension links)."""
    given = [k for k in _LEVEL_KEYS[1:] if k in values]
    if "node" not in values:
        if given:
            raise CostModelError(f"'{given[0]}' needs 'node=' (devices per node)")
        return None
    node = values["node"][0]
    if node == 0:  # per-dimension links, whatever the level keys say
        return None
    if not (1 <= node <= 2**31 and node == int(node)):
        raise CostModelError(
            f"'node' takes a whole number of devices per node (at most 2^31), "
            f"got {node:g}"
        )
    per_dim = [k for k in ("bw", "lat") if k in values]
    if per_dim:
        raise CostModelError(
            f"'{per_dim[0]}' gives each hierarchy dim its link but 'node=' gives "
            "them by level: set node_bw, node_lat, net_bw, net_lat (or node=0)"
        )
    overhead = values.get("overhead")
    if overhead is not None and len(overhead) != 1:
        raise CostModelError("'overhead' takes one value with 'node='")
    # Not given: each level's default launch cost (the default links').
    inside, across = (
        (NVLINK_LIKE.overhead, NETWORK_LIKE.overhead)
        if overhead is None
        else (overhead[0], overhead[0])
    )
    return Levels(
        int(node),
        Link(
            values.get("node_bw", [NVLINK_LIKE.bandwidth])[0],
            values.get("node_lat", [NVLINK_LIKE.latency])[0],
            inside,
        ),
        Link(
            values.get("net_bw", [NETWORK_LIKE.bandwidth])[0],
            values.get("net_lat", [NETWORK_LIKE.latency])[0],
            across,
        ),
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
    "a2a",
    *(f"flops_{c}" for c in RATE_CLASSES),
    "mem",
    "node",
    "node_bw",
    "node_lat",
    "net_bw",
    "net_lat",
)
_PER_DIM_KEYS = ("bw", "lat", "overhead")
# What each number may be: a range where the modeled times stay finite and
# non-zero.  Bytes (at most 2^63 per tensor) over a bandwidth, flops over a
# rate, rounds (at most 2^21) times a latency, summed over a program's edges
# and added and subtracted in the search's numpy tables, stay far below
# float's 1e308; ``lat=1e308`` or ``bw=1e-308`` overflowed, deep inside the
# search.  Rates are per second; "s" keys (seconds) may also be 0.
RANGES: dict[str, tuple[float, float, str]] = {
    "bw": (1e-3, 1e21, "bytes/s"),
    "transfer_bw": (1e-3, 1e21, "bytes/s"),
    "hbm": (1e-3, 1e21, "bytes/s"),
    "flops": (1e-3, 1e21, "flop/s"),
    "lat": (1e-15, 1e6, "s"),
    "transfer_lat": (1e-15, 1e6, "s"),
    "overhead": (1e-15, 1e6, "s"),
    "flops_half": (0, 1e12, "elements"),
    **{f"flops_{c}": (1e-3, 1e21, "flop/s") for c in RATE_CLASSES},
    "mem": (1.0, 1e18, "bytes"),
    "node_bw": (1e-3, 1e21, "bytes/s"),
    "net_bw": (1e-3, 1e21, "bytes/s"),
    "node_lat": (1e-15, 1e6, "s"),
    "net_lat": (1e-15, 1e6, "s"),
}
# What a scenario may change: the links, not the device or the search.
_LINK_KEYS = ("bw", "lat", "overhead", "transfer_bw", "transfer_lat")
_LEVEL_KEYS = ("node", "node_bw", "node_lat", "net_bw", "net_lat")
# Every key but the per-dimension ones takes one value.
_ONE_VALUE_KEYS = tuple(k for k in _KEYS if k not in ("bw", "lat", "overhead"))


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


def rounds(kind: CollectiveKind, n: int, grouped_a2a: bool = False) -> int:
    """Latency rounds of a collective over ``n`` devices: ``n-1`` for a
    ring, twice for an all_reduce; one for a transfer, and for an all_to_all
    that sends every peer's piece at once (``grouped_a2a``)."""
    if kind in LOCAL_KINDS or n <= 1:
        return 0
    if kind == CollectiveKind.ALL_REDUCE:
        return 2 * (n - 1)
    if kind == CollectiveKind.TRANSFER:
        return 1
    if kind == CollectiveKind.ALL_TO_ALL and grouped_a2a:
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
    return piece_group_bytes(shape, nd_sbp, dims, tensor, hierarchy)


def piece_group_bytes(
    shape: Sequence[int],
    nd_sbp: NdSbp,
    dims: Sequence[int],
    tensor: TensorType,
    hierarchy: Sequence[int],
) -> int:
    """``group_bytes`` given ``nd_sbp``'s ``local_shape``: the boxing step
    graph keeps each layout's shape, not one per step."""
    cut = math.prod(
        n
        for d, (sbp, n) in enumerate(zip(nd_sbp, hierarchy, strict=True))
        if d in dims and isinstance(sbp, Split)
    )
    return math.prod(shape) * cut * tensor.nbytes // max(math.prod(tensor.shape), 1)
