"""Shardy's IR as sbpc's plain data, and back.

- ``sharding_layout``: a ``#sdy.sharding`` as an nd_sbp (None: free);
- ``sharding_of``: an nd_sbp as a ``#sdy.sharding``;
- ``group_dims``/``permute_dims``: a collective's device groups (positions
  on the mesh, row-major) as the hierarchy dims they run over;
- the ``ir_extractor`` of ``sdy.manual_computation``: its layouts and its
  body as ``sbpc.ops.manual`` plain data.

What sbpc cannot express is a ``LocatedError`` at the op (or function) that
holds it, never a silent drop.
"""

from __future__ import annotations

import itertools
import math
import operator
from collections.abc import Sequence
from typing import Any

from xdsl.dialects.builtin import ArrayAttr, StringAttr, SymbolRefAttr
from xdsl.ir import Operation, SSAValue

from sbpc.algebra.named_axes import (
    NamedAxesError,
    axis_factors,
    axis_order,
    dim_axes_of,
    nd_sbp_of,
    sub_axis_names,
)
from sbpc.algebra.placement import Placement
from sbpc.algebra.sbp import NdSbp, Partial, format_nd_sbp
from sbpc.dialects import sdy
from sbpc.dialects import stablehlo as shlo
from sbpc.dialects.diagnostics import LocatedError
from sbpc.dialects.sbp import PlacementAttr
from sbpc.ops.manual import BodyOp
from sbpc.ops.spec import OpSpec

from .ops import UnsupportedTypeError, extracts, is_tensor_op, op_spec_of, plain_type

MESH_AXES = "sbp.mesh_axes"  # module: the mesh axis names, one per hierarchy dim


def mesh_axes(module: Operation) -> tuple[str, ...]:
    """The module's ``sbp.mesh_axes`` (written by ``sbp-import-sdy``); () if none."""
    attr = module.attributes.get(MESH_AXES)
    if not isinstance(attr, ArrayAttr):
        return ()
    return tuple(a.data for a in attr.data if isinstance(a, StringAttr))


# An nd_sbp on the mesh's axes, each split into factors (Shardy's sub-axes),
# in an order: the mesh's placement refined(factors).permuted(order).
Ordered = tuple[NdSbp, tuple[tuple[int, ...], ...], tuple[int, ...]]


PLACEMENT_NAMES = "sbp.placement_names"  # module: [[placement, [names]], ...]


def placement_names(module: Operation) -> dict[Placement, tuple[str, ...]]:
    """The module's ``sbp.placement_names``: the mesh axis names of the
    placements of meshes other than the module's (``sbp-import-sdy``)."""
    attr = module.attributes.get(PLACEMENT_NAMES)
    out: dict[Placement, tuple[str, ...]] = {}
    for pair in attr.data if isinstance(attr, ArrayAttr) else ():
        p, names = pair.data
        out[p.placement] = tuple(n.data for n in names.data)
    return out


def set_placement_names(
    module: Operation, names: dict[Placement, tuple[str, ...]]
) -> None:
    if names:
        module.attributes[PLACEMENT_NAMES] = ArrayAttr(
            [
                ArrayAttr([PlacementAttr(p), ArrayAttr([StringAttr(n) for n in ns])])
                for p, ns in names.items()
            ]
        )


def sharding_layout(
    at: Operation, sharding: sdy.TensorShardingAttr, mesh: sdy.MeshAttr | None
) -> NdSbp | None:
    """``sharding`` on ``mesh`` as an nd_sbp; None when it leaves everything open.

    A dimension split by axes in another order than the mesh's is an error
    here (``ordered_layout`` reads it on the axes reordered).
    """
    ordered = ordered_layout(at, sharding, mesh)
    if ordered is None:
        return None
    nd, factors, order = ordered
    if any(len(f) > 1 for f in factors):
        raise LocatedError(at, f"{sharding}: sub-axes are not supported here")
    if order != tuple(range(len(order))):
        raise LocatedError(
            at,
            f"{sharding}: a dimension is split by mesh axes in another order than "
            "the mesh's, which sbpc does not support here",
        )
    return nd


def ordered_layout(
    at: Operation, sharding: sdy.TensorShardingAttr, mesh: sdy.MeshAttr | None
) -> Ordered | None:
    """``sharding`` as an nd_sbp on the mesh's axes in ``order`` (mesh axis
    ``order[k]`` is hierarchy dim ``k``: the mesh's own order unless a
    dimension lists its axes in another, ``[{"y", "x"}]`` on ``("x", "y")``);
    None when it leaves everything open.

    A sharding on a mesh without axes (JAX's ``@empty_mesh``, which it writes
    for typed PRNG keys) constrains nothing, whatever the module's mesh: None.

    A sharding whose dimensions are all open and name no axis is free (a
    rank-0 value's ``[]`` is closed: replicated).
    Otherwise its axes are kept and open dimensions are closed (they take
    no further axis): a legal refinement of what it allows.  Priorities are
    hints to Shardy's propagation and are ignored.
    """
    used = sdy.mesh_of(at, sharding)
    if used is not None and not used.axes:
        return None
    if mesh is None:
        raise LocatedError(at, f"'{at.name}' but no sdy.mesh")
    _same_mesh(at, sharding, mesh)
    dims = sharding.dims.data
    unreduced = sharding.unreduced.data
    refs = [*(r for d in dims for r in d.axes.data), *sharding.replicated.data]
    refs += list(unreduced)
    if dims and all(d.open and not d.axes.data for d in dims) and not unreduced:
        return None
    kind = sharding.reduction.data
    if unreduced and kind not in ("sum", "max", "min"):
        raise LocatedError(at, f"{sharding}: unreduced={kind} is not supported")
    try:
        nd, factors, order = _read(sharding, mesh, refs)
    except NamedAxesError as e:
        raise LocatedError(at, f"{sharding}: {e}") from e
    nd = tuple(Partial(kind) if isinstance(s, Partial) else s for s in nd)  # type: ignore[arg-type]
    return nd, factors, order


def _read(
    sharding: sdy.TensorShardingAttr, mesh: sdy.MeshAttr, refs: list[sdy.AxisRefAttr]
) -> Ordered:
    """The nd_sbp on the mesh's axes split where the sub-axes cut them and
    put in an order that lists each dimension's axes major first."""
    names = [n for n, _ in mesh.axes]
    for r in refs:
        if r.axis.data not in names:
            raise NamedAxesError(f"unknown mesh axis '{r.axis.data}'")
    subs = [(r.axis.data, *r.sub_axis) for r in refs if r.sub_axis is not None]
    factors = axis_factors(mesh.axes, subs)
    pieces = {
        n: list(
            zip(
                sub_axis_names(n, f),
                itertools.accumulate(f, operator.mul, initial=1),
                f,
                strict=False,
            )
        )
        for n, f in zip(names, factors, strict=True)
    }

    def refined(r: sdy.AxisRefAttr) -> list[str]:
        pre, size = r.sub_axis or (1, dict(mesh.axes)[r.axis.data])
        return [
            name
            for name, at, n in pieces[r.axis.data]
            if pre <= at and at * n <= pre * size
        ]

    split = [[a for r in d.axes.data for a in refined(r)] for d in sharding.dims.data]
    all_names = [name for n in names for name, _, _ in pieces[n]]
    ordered = axis_order(split, all_names)
    unreduced = [a for r in sharding.unreduced.data for a in refined(r)]
    nd = nd_sbp_of(split, ordered, unreduced)
    return nd, tuple(factors), tuple(all_names.index(a) for a in ordered)


def _same_mesh(
    at: Operation, sharding: sdy.TensorShardingAttr, mesh: sdy.MeshAttr
) -> None:
    used = sdy.mesh_of(at, sharding)
    if used is None:
        raise LocatedError(at, f"{sharding} names a mesh that is not in the module")
    if used.axes != mesh.axes or used.ids != mesh.ids:
        raise LocatedError(
            at,
            f"{sharding} is on another mesh than the module's: sbpc lays out a "
            "module on one mesh",
        )


def sharding_of(
    nd: NdSbp, names: Sequence[str], mesh: str, rank: int
) -> sdy.TensorShardingAttr:
    """``nd`` as ``#sdy.sharding<@mesh, ...>`` (closed dims; partial axes
    unreduced).  Shardy has one reduction per sharding: partials of two
    kinds are a ``ValueError``."""
    partial = [names[k] for k, s in enumerate(nd) if isinstance(s, Partial)]
    kinds = {s.kind for s in nd if isinstance(s, Partial)}
    if len(kinds) > 1:
        raise ValueError(f"{format_nd_sbp(nd)} mixes partial kinds")
    dims = [
        sdy.DimShardingAttr([sdy.AxisRefAttr(a) for a in axes])
        for axes in dim_axes_of(nd, names, rank)
    ]
    return sdy.TensorShardingAttr(
        SymbolRefAttr(mesh),
        dims,
        unreduced=[sdy.AxisRefAttr(a) for a in partial],
        reduction=kinds.pop() if kinds else "sum",
    )


# --- device groups -------------------------------------------------------------


def _groups(hierarchy: Sequence[int], dims: Sequence[int]) -> set[tuple[int, ...]]:
    """The groups of mesh positions that vary over ``dims`` (row-major)."""
    others = [k for k in range(len(hierarchy)) if k not in dims]
    strides = [math.prod(hierarchy[k + 1 :]) for k in range(len(hierarchy))]
    out = set()
    for fixed in itertools.product(*(range(hierarchy[k]) for k in others)):
        base = sum(c * strides[k] for c, k in zip(fixed, others, strict=True))
        group = tuple(
            base + sum(c * strides[k] for c, k in zip(var, dims, strict=True))
            for var in itertools.product(*(range(hierarchy[k]) for k in dims))
        )
        out.add(group)
    return out


def group_dims(
    groups: Sequence[Sequence[int]], hierarchy: Sequence[int]
) -> tuple[int, ...] | None:
    """The hierarchy dims whose groups are exactly ``groups`` (None: no such dims).

    No groups means every device in one group.
    """
    n = math.prod(hierarchy)
    wanted = {tuple(g) for g in groups if len(g)} or {tuple(range(n))}
    for size in range(len(hierarchy) + 1):
        for dims in itertools.combinations(range(len(hierarchy)), size):
            if _groups(hierarchy, dims) == wanted:
                return dims
    return None


def _coord(pos: int, hierarchy: Sequence[int]) -> tuple[int, ...]:
    out = []
    for n in reversed(hierarchy):
        out.append(pos % n)
        pos //= n
    return tuple(reversed(out))


def permute_dims(
    pairs: Sequence[Sequence[int]], hierarchy: Sequence[int]
) -> tuple[tuple[int, ...], tuple[tuple[int, int], ...]] | None:
    """``collective_permute`` pairs as (dims, pairs of linear indices within
    the dims' group), the same in every group; None if they are not."""
    coords = [(_coord(s, hierarchy), _coord(t, hierarchy)) for s, t in pairs]
    dims = tuple(
        k for k in range(len(hierarchy)) if any(s[k] != t[k] for s, t in coords)
    )

    def linear(c: tuple[int, ...]) -> int:
        index = 0
        for k in dims:
            index = index * hierarchy[k] + c[k]
        return index

    per_group: dict[tuple[int, ...], set[tuple[int, int]]] = {}
    for s, t in coords:
        rest = tuple(c for k, c in enumerate(s) if k not in dims)
        per_group.setdefault(rest, set()).add((linear(s), linear(t)))
    n_groups = math.prod(hierarchy) // math.prod(hierarchy[k] for k in dims)
    perms = list(per_group.values())
    if len(perms) != n_groups or any(p != perms[0] for p in perms):
        return None
    return dims, tuple(sorted(perms[0]))


# --- manual computations ---------------------------------------------------------


def module_mesh(op: Operation) -> sdy.MeshAttr | None:
    """The mesh of the first sharding of ``op`` (a manual computation)."""
    assert isinstance(op, sdy.ManualComputationOp)
    shardings = [*op.in_shardings.shardings.data, *op.out_shardings.shardings.data]
    return sdy.mesh_of(op, shardings[0]) if shardings else None


def manual_layouts(
    op: sdy.ManualComputationOp, mesh: sdy.MeshAttr
) -> tuple[tuple[NdSbp, ...], tuple[NdSbp, ...]]:
    """The fixed layouts of a manual computation, checked for what sbpc runs."""
    names = tuple(n for n, _ in mesh.axes)
    if set(op.manual_axes.names) != set(names):
        raise LocatedError(
            op,
            f"manual_axes={{{', '.join(op.manual_axes.names)}}} does not cover the "
            f"mesh ({', '.join(names)}): sbpc runs manual computations manual on "
            "every mesh axis",
        )

    def one(s: sdy.TensorShardingAttr, what: str) -> NdSbp:
        nd = sharding_layout(op, s, mesh)
        if nd is None:
            nd = nd_sbp_of([[] for _ in s.dims.data], names)
        if what == "operand" and any(isinstance(e, Partial) for e in nd):
            raise LocatedError(op, f"unreduced operand sharding {s} is not supported")
        return nd

    ins = tuple(one(s, "operand") for s in op.in_shardings.shardings.data)
    outs = tuple(one(s, "result") for s in op.out_shardings.shardings.data)
    return ins, outs


def _collective_spec(op: Operation, spec: OpSpec, hierarchy: Sequence[int]) -> OpSpec:
    """A StableHLO collective as the plain op ``sbpc.ops.manual`` describes."""
    if len(op.operands) != 1:
        raise LocatedError(op, f"'{op.name}' of several operands is not supported")
    if isinstance(op, shlo.CollectivePermuteOp):
        found = permute_dims(op.pairs, hierarchy)
        if found is None:
            raise LocatedError(
                op, "source_target_pairs are not one permutation along mesh axes"
            )
        return spec.replace(dims=found[0], perm=found[1])
    assert isinstance(op, shlo.COLLECTIVE_OPS)
    dims = group_dims(op.groups, hierarchy)
    if dims is None:
        raise LocatedError(
            op, f"replica_groups {list(op.groups)} are not the groups of mesh axes"
        )
    if isinstance(op, shlo.AllReduceOp | shlo.ReduceScatterOp):
        kind = {"add": "sum", "max": "max", "min": "min"}.get(op.reduction_kind or "")
        if kind is None or (isinstance(op, shlo.ReduceScatterOp) and kind != "sum"):
            raise LocatedError(
                op, f"'{op.name}' with this reduction body is not supported"
            )
        if isinstance(op, shlo.AllReduceOp):
            return spec.replace(dims=dims, kind=kind)
        return spec.replace(dims=dims, dim=op.scatter_dimension.value.data)
    if isinstance(op, shlo.AllGatherOp):
        return spec.replace(dims=dims, dim=op.all_gather_dim.value.data)
    assert isinstance(op, shlo.AllToAllOp)
    if op.split_count.value.data != math.prod(hierarchy[k] for k in dims):
        raise LocatedError(op, "split_count differs from the group size")
    return spec.replace(
        dims=dims,
        split=op.split_dimension.value.data,
        concat=op.concat_dimension.value.data,
    )


def manual_body(
    op: sdy.ManualComputationOp,
    hierarchy: Sequence[int],
    device_ids: Sequence[int] = (),
) -> tuple[tuple[BodyOp, ...], tuple[int, ...]]:
    """The body as plain ``BodyOp``s over numbered values, and the returned ids.

    ``stablehlo.partition_id`` gets the mesh's ``device_ids`` (its
    ``ids``, the device id at each mesh position; the position itself where
    none are written, as JAX's meshes are) and every hierarchy dim."""
    block = op.body.block
    ids: dict[SSAValue, int] = {a: i for i, a in enumerate(block.args)}
    body: list[BodyOp] = []
    returns: tuple[int, ...] = ()
    for inner in block.ops:
        if isinstance(inner, sdy.ReturnOp):
            returns = tuple(ids[v] for v in inner.values)
            continue
        if isinstance(inner, sdy.ManualComputationOp | sdy.ShardingConstraintOp):
            raise LocatedError(inner, f"'{inner.name}' inside a manual computation")
        if not is_tensor_op(inner):
            raise LocatedError(
                inner, f"'{inner.name}' in a manual computation is not a tensor op"
            )
        try:
            spec = op_spec_of(inner)
        except UnsupportedTypeError as e:
            raise LocatedError(inner, str(e)) from e
        if isinstance(inner, shlo.COLLECTIVE_OPS):
            spec = _collective_spec(inner, spec, hierarchy)
        if isinstance(inner, shlo.PartitionIdOp):
            devices = tuple(device_ids) or tuple(range(math.prod(hierarchy)))
            spec = spec.replace(dims=tuple(range(len(hierarchy))), ids=devices)
        for v in inner.operands:
            if v not in ids:
                raise LocatedError(inner, "operand defined outside the manual body")
        results = []
        for r in inner.results:
            ids[r] = len(ids)
            results.append(ids[r])
        body.append(BodyOp(spec, tuple(ids[v] for v in inner.operands), tuple(results)))
    return tuple(body), returns


@extracts(sdy.ManualComputationOp)
def _manual(op: sdy.ManualComputationOp, spec: OpSpec) -> dict[str, Any]:
    mesh = module_mesh(op)
    if mesh is None:
        raise LocatedError(op, "a manual computation needs the sdy.mesh it names")
    ins, outs = manual_layouts(op, mesh)
    body, returns = manual_body(op, [s for _, s in mesh.axes], mesh.ids)
    return {
        "in_layouts": ins,
        "out_layouts": outs,
        "body": body,
        "returns": returns,
        "arg_types": tuple(plain_type(a.type) for a in op.body.block.args),
    }


@extracts(*shlo.COLLECTIVE_OPS)
def _collective(op: Operation, spec: OpSpec) -> dict[str, Any]:
    """Outside a manual body a collective has no meaning sbpc lays out."""
    return {}
