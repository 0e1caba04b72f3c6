"""The boxing planner, proven against the numpy collectives and a brute force.

For every hierarchy and tensor rank below, the test builds its *own* graph of
single steps: every change of one dim (or of several equal entries at once,
for collectives) that the DESIGN.md table names, kept when running it with
``sbpc.simulator.collectives`` on random pieces of the source layout gives pieces that
``assemble`` to the logical tensor in the target layout (the semantic
oracle), and priced with the table restated here.  Then:

* the planner's ``single_step`` says legal exactly for the oracle's edges;
* a depth-bounded min-plus search over step sequences (a brute force, run to
  its fixpoint, not the planner's Dijkstra) gives the cheapest cost of every
  pair, which must equal the plan's, for a latency/bandwidth model and a
  bytes-only one;
* pairs with an uneven layout raise ``BoxingError``, and they are exactly the
  pairs the brute force has no sequence for;
* every plan executed step by step on numpy pieces stays correct after each
  step (all pairs, except a seeded sample for the [2, 2, 2] mesh with rank-2
  and rank-3 tensors; its single steps are all proven above).
"""

from __future__ import annotations

import itertools
import math
import random
from dataclasses import dataclass
from functools import cache

import numpy as np
import pytest

from sbpc.algebra.layout import is_even
from sbpc.algebra.pieces import assemble, distribute
from sbpc.algebra.placement import Placement
from sbpc.algebra.sbp import B, NdSbp, P, Partial, S, Sbp, Split
from sbpc.algebra.tensor_type import TensorType
from sbpc.boxing.cost_model import DEFAULT_COST_MODEL, CostModel, Link
from sbpc.boxing.planner import (
    BoxingError,
    BoxingStep,
    candidate_layouts,
    plan,
    plan_between,
    single_step,
)
from sbpc.simulator.collectives import CollectiveError, apply_step, run_plan

HIERARCHIES = [(4,), (2, 2), (2, 4), (2, 2, 2)]
# Divisible enough for most layouts; the 4s make a few layouts uneven on the
# 8-device meshes (e.g. [S(1), S(1)] of 8x4 on 2x4), which must be refused.
SHAPES = {1: (8,), 2: (8, 4), 3: (8, 8, 4)}
# Single steps are judged on bigger tensors (odd multiples: the same layouts
# are even) and two random draws: a wrong max/min reduction may still be right
# on some elements, so a probe needs many elements to expose it.
PROBES = {1: (8 * 33,), 2: (8 * 9, 4 * 9), 3: (8 * 3, 8 * 3, 4 * 3)}
DRAWS = 2
CONFIGS = [(h, r) for h in HIERARCHIES for r in (1, 2, 3)]
CONFIG_IDS = [f"{'x'.join(map(str, h))}-rank{r}" for h, r in CONFIGS]
# Plans executed on pieces: all pairs, but a sample where there are too many.
SAMPLED = {((2, 2, 2), 2): 1500, ((2, 2, 2), 3): 1500}

TIME_MODEL = DEFAULT_COST_MODEL  # network between nodes, NVLink inside
BYTES_MODEL = CostModel(links=(Link(1.0, 0.0),), transfer=Link(1.0, 0.0))

LOCAL = ("local_slice", "local_to_partial")


def all_entries(rank: int) -> list[Sbp]:
    return [*(S(d) for d in range(rank)), B, P, Partial("max"), Partial("min")]


def pair_entries(hierarchy: tuple[int, ...], rank: int) -> list[Sbp]:
    """The entries whose every combination is planned to every other."""
    out = [*(S(d) for d in range(rank)), B, P, Partial("max")]
    if len(hierarchy) == 1 or hierarchy == (2, 2):
        out.append(Partial("min"))
    return out


def table_kind(s: Sbp, t: Sbp) -> str | None:
    """DESIGN.md's boxing table, restated: the collective changing ``s -> t``."""
    if s == t:
        return None
    if isinstance(s, Split):
        return {Split: "all_to_all", Partial: "local_to_partial"}.get(
            type(t), "all_gather"
        )
    if isinstance(s, Partial):
        if isinstance(t, Partial):
            return None
        return "reduce_scatter" if isinstance(t, Split) else "all_reduce"
    return "local_slice" if isinstance(t, Split) else "local_to_partial"


def table_cost(
    kind: str,
    src: NdSbp,
    dims: tuple[int, ...],
    tensor: TensorType,
    hierarchy: tuple[int, ...],
    model: CostModel,
    dst: NdSbp,
) -> tuple[float, float]:
    """(bytes per device, seconds) of one step, from the table and alpha-beta,
    plus its local work at one flop per element written."""
    work = table_local_elements(kind, src, dst, dims, tensor, hierarchy)
    local = work / model.device.flops
    if kind in LOCAL:
        return 0.0, local
    n = math.prod(hierarchy[d] for d in dims)
    others = [j for j in range(len(hierarchy)) if j not in dims]
    t = tensor.nbytes / math.prod(
        hierarchy[j] for j in others if isinstance(src[j], Split)
    )
    nbytes = {
        "all_gather": (n - 1) / n * t,
        "all_to_all": (n - 1) / n**2 * t,
        "all_reduce": 2 * (n - 1) / n * t,
        "reduce_scatter": (n - 1) / n * t,
    }[kind]
    rounds = 2 * (n - 1) if kind == "all_reduce" else n - 1
    links = [model.link(d, len(hierarchy)) for d in dims]
    bw = min(x.bandwidth for x in links)
    lat = max(x.latency for x in links)
    launch = max(x.overhead for x in links)  # one fixed cost per collective
    return nbytes, launch + rounds * lat + nbytes / bw + local


def piece(tensor: TensorType, nd: NdSbp, hierarchy: tuple[int, ...]) -> list[int]:
    """The largest local piece's shape: each split divides, rounding up."""
    shape = list(tensor.shape)
    for sbp, n in zip(nd, hierarchy, strict=True):
        if isinstance(sbp, Split):
            shape[sbp.axis] = -(-shape[sbp.axis] // n)
    return shape


def table_local_elements(
    kind: str,
    src: NdSbp,
    dst: NdSbp,
    dims: tuple[int, ...],
    tensor: TensorType,
    hierarchy: tuple[int, ...],
) -> int:
    """Elements a step writes locally: a partial piece made from a local one,
    or the whole partial piece of a scatter along a dim that is not the
    piece's outermost non-trivial one."""
    if kind == "local_to_partial":
        return math.prod(piece(tensor, dst, hierarchy))
    if kind != "reduce_scatter" or src[dims[0]] != P:
        return 0
    axis = dst[dims[0]].axis  # type: ignore[union-attr]
    shape = piece(tensor, src, hierarchy)
    return math.prod(shape) if any(n > 1 for n in shape[:axis]) else 0


def same(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and np.allclose(a, b, rtol=1e-9, atol=1e-9)


def semantically_ok(pieces, step: BoxingStep, value: np.ndarray) -> bool:
    try:
        out = apply_step(pieces, step)
        return same(assemble(out, step.dst, step.hierarchy), value)
    except (ValueError, CollectiveError):  # broadcast copies differ, bad shapes
        return False


@dataclass(repr=False)
class Oracle:
    tensor: TensorType
    value: np.ndarray
    nodes: list[NdSbp]
    # (src, dims, dst) -> whether running the table's collective is correct
    legal: dict[tuple[NdSbp, tuple[int, ...], NdSbp], bool]
    # (src, dims, dst) candidates the table has no single step for
    not_steps: list[tuple[NdSbp, tuple[int, ...], NdSbp]]
    pieces: dict[NdSbp, dict]
    depth: dict[str, int]
    cheapest: dict[str, np.ndarray]  # brute-force min cost, per cost model

    def index(self, nd: NdSbp) -> int:
        return self.nodes.index(nd)


def dim_sets(ndim: int) -> list[tuple[int, ...]]:
    return [
        c for k in range(1, ndim + 1) for c in itertools.combinations(range(ndim), k)
    ]


@cache
def oracle(hierarchy: tuple[int, ...], rank: int) -> Oracle:
    tensor = TensorType(SHAPES[rank], "f64")
    rng = np.random.default_rng(hash((hierarchy, rank)) % 2**32)
    value = rng.standard_normal(tensor.shape)
    probes = [rng.standard_normal(PROBES[rank]) for _ in range(DRAWS)]
    ndim = len(hierarchy)
    nodes = [
        nd
        for nd in itertools.product(all_entries(rank), repeat=ndim)
        if is_even(tensor.shape, nd, hierarchy)
    ]
    legal: dict = {}
    not_steps: list = []
    pieces = {}
    for x in nodes:
        assert is_even(PROBES[rank], x, hierarchy)
        pieces[x] = distribute(value, x, hierarchy, rng)
        probe_pieces = [distribute(p, x, hierarchy, rng) for p in probes]
        for dims in dim_sets(ndim):
            s = x[dims[0]]
            if any(x[d] != s for d in dims):
                continue
            for t in all_entries(rank):
                if t == s:
                    continue
                y = tuple(t if d in dims else e for d, e in enumerate(x))
                if not is_even(tensor.shape, y, hierarchy):
                    assert not is_even(PROBES[rank], y, hierarchy)
                    continue
                kind = table_kind(s, t)
                if kind is None or (len(dims) > 1 and kind in LOCAL):
                    not_steps.append((x, dims, y))
                    continue
                reduce = s.kind if isinstance(s, Partial) else None
                step = BoxingStep(kind, dims, x, y, hierarchy, reduce=reduce)  # type: ignore[arg-type]
                legal[(x, dims, y)] = all(
                    semantically_ok(pp, step, p)
                    for pp, p in zip(probe_pieces, probes, strict=True)
                )
    o = Oracle(tensor, value, nodes, legal, not_steps, pieces, {}, {})
    for name, model in (("time", TIME_MODEL), ("bytes", BYTES_MODEL)):
        o.cheapest[name], o.depth[name] = brute_force(o, hierarchy, model)
    return o


def brute_force(
    o: Oracle, hierarchy: tuple[int, ...], model: CostModel
) -> tuple[np.ndarray, int]:
    """Min cost over all step sequences of length <= d, d raised to a fixpoint."""
    v = len(o.nodes)
    where = {nd: i for i, nd in enumerate(o.nodes)}
    into: dict[int, list[tuple[int, float]]] = {}
    for (x, dims, y), ok in o.legal.items():
        if ok:
            kind = table_kind(x[dims[0]], y[dims[0]])
            _, cost = table_cost(kind, x, dims, o.tensor, hierarchy, model, y)  # type: ignore[arg-type]
            into.setdefault(where[y], []).append((where[x], cost))
    best = np.full((v, v), np.inf)
    np.fill_diagonal(best, 0.0)
    limit = 4 * len(hierarchy) + 4
    for depth in range(1, limit + 1):
        nxt = best.copy()
        for y, edges in into.items():
            xs = [x for x, _ in edges]
            ws = np.array([w for _, w in edges])
            nxt[:, y] = np.minimum(best[:, y], (best[:, xs] + ws).min(axis=1))
        if np.array_equal(nxt, best):
            return best, depth - 1
        best = nxt
    raise AssertionError(f"brute force did not settle within {limit} steps")


def pairs(hierarchy: tuple[int, ...], rank: int) -> list[tuple[NdSbp, NdSbp]]:
    layouts = list(
        itertools.product(pair_entries(hierarchy, rank), repeat=len(hierarchy))
    )
    return [(a, b) for a in layouts for b in layouts]


# ------------------------------------------------------------ exhaustive


@pytest.mark.parametrize(("hierarchy", "rank"), CONFIGS, ids=CONFIG_IDS)
def test_single_steps_are_exactly_the_semantically_correct_ones(hierarchy, rank):
    o = oracle(hierarchy, rank)
    assert any(o.legal.values())
    # One dim: every table entry is a step; more: the order of dims matters.
    assert all(o.legal.values()) == (len(hierarchy) == 1)
    for (x, dims, y), ok in o.legal.items():
        step = single_step(x, y, dims, o.tensor, hierarchy)
        assert (step is not None) == ok, (x, dims, y, ok)
        if step is not None:
            kind = table_kind(x[dims[0]], y[dims[0]])
            nbytes, time = table_cost(
                kind,  # type: ignore[arg-type]
                x,
                dims,
                o.tensor,
                hierarchy,
                TIME_MODEL,
                y,
            )
            assert step.kind == kind
            assert step.bytes == pytest.approx(nbytes)
            assert step.time == pytest.approx(time, rel=1e-12)
    for x, dims, y in o.not_steps:
        assert single_step(x, y, dims, o.tensor, hierarchy) is None


@pytest.mark.parametrize(("hierarchy", "rank"), CONFIGS, ids=CONFIG_IDS)
def test_plan_cost_is_the_brute_force_minimum(hierarchy, rank):
    o = oracle(hierarchy, rank)
    where = {nd: i for i, nd in enumerate(o.nodes)}
    # Uneven layouts are candidates too; test_uneven_boxing.py runs them.
    assert set(o.nodes) <= set(candidate_layouts(o.tensor, hierarchy))
    refused = 0
    for src, dst in pairs(hierarchy, rank):
        known = src in where and dst in where
        if not known:
            continue
        for name, model in (("time", TIME_MODEL), ("bytes", BYTES_MODEL)):
            best = o.cheapest[name][where[src], where[dst]] if known else math.inf
            if not math.isfinite(best):
                # (c): exactly the pairs without any sequence are refused.
                with pytest.raises(BoxingError):
                    plan(src, dst, o.tensor, hierarchy, model)
                refused += 1
                continue
            p = plan(src, dst, o.tensor, hierarchy, model)
            assert math.isclose(p.time, best, rel_tol=1e-9, abs_tol=1e-18), str(p)
            if name == "bytes":  # bytes plus local work at 50 Tflop/s (< 1 ns)
                assert math.isclose(p.bytes, p.time, rel_tol=1e-12, abs_tol=1e-9)
            # The plan is a chain of oracle-approved steps with the table's costs
            # (a step through an uneven layout is proved in test_uneven_boxing).
            at = src
            for step in p.steps:
                key = (step.src, step.dims, step.dst)
                assert step.src == at and o.legal.get(
                    key, step.src not in where or step.dst not in where
                ), (src, dst, name, key)
                at = step.dst
            assert at == dst
            assert p.exact_time == sum(s.exact_time for s in p.steps)
            assert p.exact_bytes == sum(s.exact_bytes for s in p.steps)
    assert refused == 0  # every even pair has a sequence


@pytest.mark.parametrize(("hierarchy", "rank"), CONFIGS, ids=CONFIG_IDS)
def test_plans_run_on_numpy_pieces(hierarchy, rank):
    o = oracle(hierarchy, rank)
    todo = [
        (a, b) for a, b in pairs(hierarchy, rank) if a in o.pieces and b in o.pieces
    ]
    sample = SAMPLED.get((hierarchy, rank))
    if sample is not None:
        todo = random.Random(20240601).sample(todo, sample)
    for src, dst in todo:
        pieces = o.pieces[src]
        assert same(assemble(pieces, src, hierarchy), o.value)
        for step in plan(src, dst, o.tensor, hierarchy).steps:
            pieces = apply_step(pieces, step)
            assert same(assemble(pieces, step.dst, hierarchy), o.value), (
                src,
                dst,
                step,
            )
        assert same(assemble(pieces, dst, hierarchy), o.value)


# ------------------------------------------------------------- the table

T8 = TensorType((8, 8), "f32")  # 256 bytes


@pytest.mark.parametrize(
    ("src", "dst", "kind", "factor"),
    [
        (S(0), B, "all_gather", 3 / 4),
        (S(0), S(1), "all_to_all", 3 / 16),
        (P, B, "all_reduce", 2 * 3 / 4),
        (Partial("max"), B, "all_reduce", 2 * 3 / 4),
        (P, S(1), "reduce_scatter", 3 / 4),
        (B, S(0), "local_slice", 0),
        (B, P, "local_to_partial", 0),
        (B, Partial("max"), "local_to_partial", 0),
        (S(1), P, "local_to_partial", 0),
    ],
)
def test_one_dim_table(src, dst, kind, factor):
    p = plan((src,), (dst,), T8, (4,))
    assert [s.kind for s in p.steps] == [kind]
    assert p.bytes == factor * T8.nbytes
    step = p.steps[0]
    assert step.dims == (0,) and step.src == (src,) and step.dst == (dst,)
    if kind in ("all_reduce", "reduce_scatter"):
        assert step.reduce == src.kind
    n = 4
    # a 1-D mesh is one node: the NVLink-like default, 5 us a launch
    lat, bw, launch = 1e-6, 100e9, 5e-6
    rounds = {"all_reduce": 2 * (n - 1), "local_slice": 0, "local_to_partial": 0}
    # Local work, one flop per element at 50 Tflop/s: the partial piece is
    # the whole 8x8, and a reduce-scatter along dim 1 transposes its buffer.
    work = {"local_to_partial": 64, "reduce_scatter": 64}.get(kind, 0) / 50e12
    launch = 0.0 if kind in LOCAL else launch
    expected = launch + rounds.get(kind, n - 1) * lat + p.bytes / bw + work
    assert p.time == pytest.approx(expected, rel=1e-12)


def test_same_layout_is_empty_plan():
    p = plan((S(0), B), (S(0), B), T8, (2, 2))
    assert p.steps == () and p.bytes == 0 and p.time == 0


def test_partial_kinds_change_through_a_reduction():
    """P(max) -> P(sum) has no single step, but max-reducing first is exact."""
    assert single_step((Partial("max"),), (P,), (0,), T8, (4,)) is None
    p = plan((Partial("max"),), (P,), T8, (4,))
    assert [s.kind for s in p.steps] == ["reduce_scatter", "local_to_partial"]
    assert p.steps[0].reduce == "max"
    q = plan((P,), (Partial("max"),), T8, (4,))
    assert [s.kind for s in q.steps] == ["reduce_scatter", "local_to_partial"]


# ------------------------------------------------------------- 2-D cases

T88 = TensorType((8, 8), "f32")


def test_inner_gather_is_one_step():
    p = plan((S(0), S(0)), (S(0), B), T88, (2, 4))
    (step,) = p.steps
    assert step.kind == "all_gather" and step.dims == (1,)
    # T: the group of dim 1 holds half the tensor (dim 0 splits it in two).
    assert step.bytes == 3 / 4 * (T88.nbytes / 2)


def test_outer_gather_under_an_inner_split_is_not_one_step():
    """(S(0), S(0)) -> (B, S(0)): the dim-0 group holds interleaved blocks."""
    assert single_step((S(0), S(0)), (B, S(0)), (0,), T88, (2, 2)) is None
    p = plan((S(0), S(0)), (B, S(0)), T88, (2, 2))
    assert len(p.steps) > 1
    rng = np.random.default_rng(3)
    value = rng.standard_normal(T88.shape).astype(np.float32)
    pieces = run_plan(distribute(value, (S(0), S(0)), (2, 2), rng), p)
    assert same(assemble(pieces, (B, S(0)), (2, 2)), value)
    # The naive all_gather on dim 0 really computes the wrong thing.
    naive = BoxingStep("all_gather", (0,), (S(0), S(0)), (B, S(0)), (2, 2))
    start = distribute(value, (S(0), S(0)), (2, 2), rng)
    assert not semantically_ok(start, naive, value)


def test_reduction_under_a_later_partial_of_another_kind_is_not_one_step():
    src, dst = (P, Partial("max")), (B, Partial("max"))
    assert single_step(src, dst, (0,), T88, (2, 2)) is None
    assert single_step((P, P), (B, P), (0,), T88, (2, 2)) is not None
    p = plan(src, dst, T88, (2, 2))
    rng = np.random.default_rng(4)
    value = rng.standard_normal(T88.shape)
    pieces = run_plan(distribute(value, src, (2, 2), rng), p)
    assert same(assemble(pieces, dst, (2, 2)), value)


def test_hierarchical_all_reduce_beats_two_all_reduces():
    """(P, P) -> (B, B) on a big tensor: reduce_scatter, all_reduce, all_gather."""
    big = TensorType((1024, 1024), "f32")
    p = plan((P, P), (B, B), big, (2, 4))
    assert [(s.kind, s.dims) for s in p.steps] == [
        ("reduce_scatter", (1,)),
        ("all_reduce", (0,)),
        ("all_gather", (1,)),
    ]
    flat = single_step((P, P), (B, B), (0, 1), big, (2, 4))
    assert flat is not None and flat.kind == "all_reduce"
    assert flat.bytes == 2 * 7 / 8 * big.nbytes
    assert p.time < flat.time


def test_flat_all_to_all_over_both_dims():
    """(S(0), S(0)) -> (S(1), S(1)) counted in bytes: one all_to_all on (0, 1)."""
    p = plan((S(0), S(0)), (S(1), S(1)), T88, (2, 2), BYTES_MODEL)
    (step,) = p.steps
    assert step.kind == "all_to_all" and step.dims == (0, 1)
    assert step.bytes == 3 / 16 * T88.nbytes


def test_integer_max_fill_would_overflow_under_a_later_sum():
    """S -> P(max) fills with the lowest value; a later P(sum) adds copies of it."""
    src, dst = (S(0), P), (Partial("max"), P)
    ints = TensorType((8, 8), "i32")
    assert single_step(src, dst, (0,), T88, (2, 2)) is not None
    assert single_step(src, dst, (0,), ints, (2, 2)) is None
    rng = np.random.default_rng(5)
    value = rng.integers(-100, 100, size=ints.shape).astype(np.int32)
    forced = BoxingStep("local_to_partial", (0,), src, dst, (2, 2))
    start = distribute(value, src, (2, 2), rng)
    with np.errstate(over="ignore"):
        assert not semantically_ok(start, forced, value)
    p = plan(src, dst, ints, (2, 2))
    assert same(assemble(run_plan(start, p), dst, (2, 2)), value)


def test_refuses_bad_layouts():
    with pytest.raises(BoxingError, match="2 entries but the placement hierarchy"):
        plan((S(0), B), (B,), T8, (4,))
    with pytest.raises(BoxingError, match="out of range"):
        plan((S(2),), (B,), T8, (4,))


def test_cost_model_option_changes_the_plan():
    """(S(0), S(1)) -> (B, B): gather over the slow dim first, on the small pieces."""
    src, dst = (S(0), S(1)), (B, B)
    slow_inner = CostModel.parse("bw=100e9:1e9,lat=0:0,overhead=0")
    slow_outer = CostModel.parse("bw=1e9:100e9,lat=0:0,overhead=0")
    a = plan(src, dst, T88, (2, 2), slow_inner)
    b = plan(src, dst, T88, (2, 2), slow_outer)
    assert [s.dims for s in a.steps] == [(1,), (0,)]
    assert [s.dims for s in b.steps] == [(0,), (1,)]
    assert a.bytes == b.bytes == 3 / 4 * T88.nbytes


# ------------------------------------------------------ across placements


def test_seed_001_pipeline():
    """Y0 = A0 @ B0 as S(0) on ranks [0, 1], to_global(placement=[2, 3], sbp=B)."""
    p0 = Placement.from_nested("cuda", [0, 1])
    p1 = Placement.from_nested("cuda", [2, 3])
    rng = np.random.default_rng(6)
    a0 = rng.standard_normal((4, 5)).astype(np.float32)
    b0 = rng.standard_normal((5, 8)).astype(np.float32)
    y0 = a0 @ b0
    # The first stage's matmul, S(0) x B -> S(0), on each device's pieces.
    a_pieces = distribute(a0, (S(0),), (2,), rng)
    y_pieces = {c: a @ b0 for c, a in a_pieces.items()}
    tensor = TensorType((4, 8), "f32")
    p = plan_between((S(0),), p0, (B,), p1, tensor)
    # Cheapest: send the halves over the network, all_gather on NVLink.
    assert [s.kind for s in p.steps] == ["transfer", "all_gather"]
    move = p.steps[0]
    assert move.src_placement == p0 and move.dst_placement == p1
    assert move.bytes == tensor.nbytes / 2
    out = run_plan(y_pieces, p)
    assert set(out) == {(0,), (1,)}
    assert same(assemble(out, (B,), (2,)), y0)


def test_partial_crosses_placements_as_is_when_layouts_match():
    p0, p1 = Placement("cpu", (2,), (0, 1)), Placement("cpu", (2,), (2, 3))
    p = plan_between((P,), p0, (P,), p1, T8)
    assert [s.kind for s in p.steps] == ["transfer"]


def test_partial_is_reduced_before_a_different_hierarchy():
    p0 = Placement("cpu", (4,), (0, 1, 2, 3))
    p1 = Placement.from_nested("cpu", [[4, 5], [6, 7]])
    p = plan_between((P,), p0, (S(0), S(1)), p1, T8)
    kinds = [s.kind for s in p.steps]
    assert kinds[0] == "all_reduce" and "transfer" in kinds
    assert all(
        s.kind in ("local_slice",) for s in p.steps[kinds.index("transfer") + 1 :]
    )


CROSS = [
    ((2,), (0, 1), (2,), (2, 3)),
    ((2, 2), (0, 1, 2, 3), (2, 2), (4, 5, 6, 7)),
    ((2, 2), (0, 1, 2, 3), (2, 2), (1, 0, 3, 2)),
    ((4,), (0, 1, 2, 3), (2, 2), (4, 5, 6, 7)),
    ((4,), (0, 1, 2, 3), (2, 2), (0, 1, 2, 3)),
    ((2,), (0, 1), (2, 2), (2, 3, 4, 5)),
]


@pytest.mark.parametrize(("sh", "sr", "dh", "dr"), CROSS)
def test_plan_between_all_pairs(sh, sr, dh, dr):
    src_p, dst_p = Placement("cpu", sh, sr), Placement("cpu", dh, dr)
    tensor = TensorType((8, 4), "f64")
    rng = np.random.default_rng(7)
    value = rng.standard_normal(tensor.shape)
    src_layouts = candidate_layouts(tensor, sh)
    dst_layouts = candidate_layouts(tensor, dh)
    if sh == dh:
        o = oracle(sh, 2)
        assert o.tensor == tensor
        where = {nd: i for i, nd in enumerate(o.nodes)}
    for src in src_layouts:
        pieces = distribute(value, src, sh, rng)
        for dst in dst_layouts:
            p = plan_between(src, src_p, dst, dst_p, tensor)
            out = run_plan(pieces, p)
            assert set(out) == set(dst_p.coords())
            assert same(assemble(out, dst, dh), value), str(p)
            assert sum(s.kind == "transfer" for s in p.steps) == 1
            if sh != dh:
                continue
            # Cheapest over every layout X crossing as is, by brute force.
            moved = sr != dr
            best = min(
                o.cheapest["time"][where[src], where[x]]
                + (
                    TIME_MODEL.transfer.latency
                    + tensor.nbytes
                    / math.prod(
                        n for n, e in zip(sh, x, strict=True) if isinstance(e, Split)
                    )
                    / TIME_MODEL.transfer.bandwidth
                    if moved
                    else 0.0
                )
                + o.cheapest["time"][where[x], where[dst]]
                for x in o.nodes
            )
            assert p.time == pytest.approx(best, rel=1e-9), str(p)
