"""Manual computations (``sbpc.ops.manual``) and the collectives in them, as JAX.

Inside the program's ``shard_map`` (the op marked ``local`` by its local
function) every device already holds its piece in the computation's fixed
layout, so the body runs as it is: its ops one after the other, bound with
``:=`` inside a single expression (an emitter returns expressions), its
collectives as ``jax.lax`` collectives on the mesh axes of their hierarchy
dims.  In ``reference`` (the global op) there is no unsharded form of
per-device code: it runs under its own ``jax.shard_map`` on the program's
mesh, with the layouts as specs (an unreduced result summed inside).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from sbpc.algebra.sbp import Broadcast, Partial
from sbpc.jax_backend.collectives import REDUCE_FN, axes_expr, partition_spec
from sbpc.jax_backend.ops import (
    Context,
    PlainEmitter,
    UnsupportedOpError,
    bindings,
    emits,
    op_expressions,
    register_emitter,
)
from sbpc.ops.manual import NAME, BodyOp, layouts
from sbpc.ops.spec import OpSpec


def _name(v: int) -> str:
    return f"_mc{v}"


def _body_expr(op: OpSpec, args: Sequence[str], ctx: Context) -> tuple[str, list[str]]:
    """Bindings of the body's values as one tuple expression, and the names
    of the returned values (valid once the expression ran)."""
    body: tuple[BodyOp, ...] = op.attr("body", ())
    returns: tuple[int, ...] = op.attr("returns", ())
    parts = [f"({_name(i)} := {a})" for i, a in enumerate(args)]
    for inner in body:
        exprs = op_expressions(inner.op, [_name(v) for v in inner.operands], ctx)
        names = [_name(r) for r in inner.results]
        parts += bindings(names, exprs, f"{names[0]}_all")
    return "(" + ", ".join(parts) + ",)", [_name(v) for v in returns]


@register_emitter(NAME)
def _manual(
    op: OpSpec, args: list[str], ctx: Context, dynamic: Mapping[str, str]
) -> list[str]:
    if not op.attr("local"):
        return _reference(op, args, ctx)
    arg_types = tuple(op.attr("arg_types", ()))
    if arg_types and arg_types != op.operands:
        raise UnsupportedOpError(
            f"manual computation: device pieces {list(map(str, op.operands))} "
            f"differ from its body's arguments {list(map(str, arg_types))} "
            "(an uneven split?)"
        )
    bindings, returns = _body_expr(op, args, ctx)
    if not returns:
        return []
    return [f"({bindings}, {returns[0]})[-1]", *returns[1:]]


def _reference(op: OpSpec, args: list[str], ctx: Context) -> list[str]:
    ins, outs = layouts(op)
    params = [f"_mc{i}" for i in range(len(args))]
    bindings, returns = _body_expr(op, params, ctx)
    finished = []
    for name, nd in zip(returns, outs, strict=True):
        sums = [k for k, s in enumerate(nd) if isinstance(s, Partial)]
        finished.append(f"lax.psum({name}, {axes_expr(sums)})" if sums else name)
    in_specs = [
        partition_spec(nd, t.rank) for nd, t in zip(ins, op.operands, strict=True)
    ]
    out_specs = [
        partition_spec(
            tuple(Broadcast() if isinstance(s, Partial) else s for s in nd), t.rank
        )
        for nd, t in zip(outs, op.results, strict=True)
    ]
    fn = f"lambda {', '.join(params)}: ({bindings}, ({', '.join(finished)},))[-1]"
    call = (
        f"jax.shard_map({fn}, mesh=make_mesh(), in_specs=({', '.join(in_specs)},), "
        f"out_specs=({', '.join(out_specs)},), check_vma=False)({', '.join(args)})"
    )
    n = len(op.results)
    return [f"(_mcref := {call})[0]", *(f"_mcref[{i}]" for i in range(1, n))]


# --- collectives on hierarchy dims (inside manual bodies) ----------------------


def _dims(op: OpSpec) -> str:
    dims = op.attrs["dims"]
    if not dims:
        raise UnsupportedOpError(f"'{op.name}' over no mesh axis")
    return axes_expr(dims)


def _collective(fn: Callable[[OpSpec, str, str], str]) -> PlainEmitter:
    """A collective on the op's hierarchy dims: none leaves the value as it is."""

    def emit(op: OpSpec, args: list[str]) -> str:
        if not op.attrs["dims"]:
            return args[0]
        return fn(op, args[0], _dims(op))

    return emit


@emits("stablehlo.all_reduce")
@_collective
def _all_reduce(op: OpSpec, x: str, axes: str) -> str:
    return f"{REDUCE_FN[op.attrs['kind']]}({x}, {axes})"


@emits("stablehlo.all_gather")
@_collective
def _all_gather(op: OpSpec, x: str, axes: str) -> str:
    return f"lax.all_gather({x}, {axes}, axis={op.attrs['dim']}, tiled=True)"


@emits("stablehlo.reduce_scatter")
@_collective
def _reduce_scatter(op: OpSpec, x: str, axes: str) -> str:
    dim = op.attrs["dim"]
    return f"lax.psum_scatter({x}, {axes}, scatter_dimension={dim}, tiled=True)"


@emits("stablehlo.all_to_all")
@_collective
def _all_to_all(op: OpSpec, x: str, axes: str) -> str:
    split, concat = op.attrs["split"], op.attrs["concat"]
    return f"lax.all_to_all({x}, {axes}, {split}, {concat}, tiled=True)"


@emits("stablehlo.collective_permute")
def _collective_permute(op: OpSpec, args: list[str]) -> str:
    perm = [tuple(p) for p in op.attrs["perm"]]
    if not perm:
        return f"jnp.zeros_like({args[0]})"
    if not op.attrs["dims"]:
        return args[0]
    return f"lax.ppermute({args[0]}, {_dims(op)}, perm={perm})"


@emits("stablehlo.partition_id")
def _partition_id(op: OpSpec, args: list[str]) -> str:
    """The device's id: the mesh's device id (``ids``) at the device's
    position, the linear index of all mesh axes, major first, as XLA numbers
    partitions."""
    if "ids" not in op.attrs:  # outside a manual computation's body
        raise UnsupportedOpError(
            "stablehlo.partition_id outside a manual computation has no value in "
            "a global-view program"
        )
    ids = list(op.attrs["ids"])
    return (
        f"jnp.asarray({ids}, jnp.uint32)[lax.axis_index({axes_expr(op.attrs['dims'])})]"
    )
