"""JAX forms of convolution, the windowed ops, sorting and arg-reductions.

Each keeps every attribute of the op: a convolution's dimension numbers,
window, groups and ``precision_config`` (absent: JAX's default precision)
and its result type as ``preferred_element_type``; ``sort`` its dimension,
stability and number of keys (the comparator is ``lax.sort``'s own, see
``sbpc.dialects.stablehlo.sort``).  ``select_and_scatter`` (GE or LE select,
add scatter) is written as the VJP of the max (min) ``reduce_window`` it is
the gradient of, which JAX lowers back to the same ``select_and_scatter``.
Ops with several results repeat the call per result; XLA merges the copies.
"""

from __future__ import annotations

from collections.abc import Mapping

from sbpc.jax_backend.ops import (
    Context,
    Unpack,
    UnsupportedOpError,
    _precision,
    _result,
    jnp_dtype,
    py_tuple,
    register_emitter,
)
from sbpc.ops.spec import OpSpec


def _ints(op: OpSpec, key: str, default: tuple[int, ...] = ()) -> tuple[int, ...]:
    value = op.attr(key)
    return default if value is None else tuple(int(v) for v in value)


def _pairs(op: OpSpec, rank: int) -> str:
    pad = op.attr("padding")
    pairs = [(0, 0)] * rank if pad is None else [(int(a), int(b)) for a, b in pad]
    return (
        "("
        + ", ".join(f"({a}, {b})" for a, b in pairs)
        + ("," if rank == 1 else "")
        + ")"
    )


@register_emitter("stablehlo.convolution")
def _convolution(
    op: OpSpec, args: list[str], ctx: Context, dyn: Mapping[str, str]
) -> list[str]:
    _, dtype = _result(op)
    lhs, rhs = args
    if op.operands[0].element != op.operands[1].element:
        lhs, rhs = (f"{x}.astype({dtype})" for x in args)
    k = len(_ints(op, "input_spatial_dimensions"))
    ones = (1,) * k
    kernel_spatial = _ints(op, "kernel_spatial_dimensions")
    reversal = op.attr("window_reversal") or (False,) * k
    flipped = [kernel_spatial[j] for j in range(k) if reversal[j]]
    if flipped:
        rhs = f"lax.rev({rhs}, {py_tuple(flipped)})"

    def spec(batch: str, feature: str, spatial: str) -> str:
        dims = (int(op.attr(batch)), int(op.attr(feature)), *_ints(op, spatial))
        return py_tuple(dims)

    dnums = (
        "lax.ConvDimensionNumbers("
        f"lhs_spec={spec('input_batch_dimension', 'input_feature_dimension', 'input_spatial_dimensions')}, "
        f"rhs_spec={spec('kernel_output_feature_dimension', 'kernel_input_feature_dimension', 'kernel_spatial_dimensions')}, "
        f"out_spec={spec('output_batch_dimension', 'output_feature_dimension', 'output_spatial_dimensions')})"
    )
    return [
        f"lax.conv_general_dilated({lhs}, {rhs}, "
        f"window_strides={py_tuple(_ints(op, 'window_strides', ones))}, "
        f"padding={_pairs(op, k)}, "
        f"lhs_dilation={py_tuple(_ints(op, 'lhs_dilation', ones))}, "
        f"rhs_dilation={py_tuple(_ints(op, 'rhs_dilation', ones))}, "
        f"dimension_numbers={dnums}, "
        f"feature_group_count={int(op.attr('feature_group_count', 1))}, "
        f"batch_group_count={int(op.attr('batch_group_count', 1))}"
        f"{_precision(op)}, preferred_element_type={dtype})"
    ]


_COMBINE = {
    "add": "lax.add",
    "mul": "lax.mul",
    "max": "lax.max",
    "min": "lax.min",
    "and": "lax.bitwise_and",
    "or": "lax.bitwise_or",
}


@register_emitter("stablehlo.reduce_window")
def _reduce_window(
    op: OpSpec, args: list[str], ctx: Context, dyn: Mapping[str, str]
) -> list[str]:
    kind = op.attr("kind")
    if kind not in _COMBINE:
        raise UnsupportedOpError(
            f"'{op.name}' with body kind {kind!r}: only "
            + ", ".join(sorted(_COMBINE))
            + " have a JAX form"
        )
    rank = op.operands[0].rank
    ones = (1,) * rank
    n = len(args) // 2
    out = []
    for x, init in zip(args[:n], args[n:], strict=True):
        out.append(
            f"lax.reduce_window({x}, {init}, {_COMBINE[str(kind)]}, "
            f"{py_tuple(_ints(op, 'window_dimensions'))}, "
            f"{py_tuple(_ints(op, 'window_strides', ones))}, {_pairs(op, rank)}, "
            f"{py_tuple(_ints(op, 'base_dilations', ones))}, "
            f"{py_tuple(_ints(op, 'window_dilations', ones))})"
        )
    return out


@register_emitter("stablehlo.select_and_scatter")
def _select_and_scatter(
    op: OpSpec, args: list[str], ctx: Context, dyn: Mapping[str, str]
) -> list[str]:
    """``init + vjp(max-or-min reduce_window)(source)``."""
    select, kind = op.attr("select"), op.attr("kind")
    chooser = {"GE": "lax.max", "LE": "lax.min"}.get(str(select))
    if chooser is None or kind != "add":
        raise UnsupportedOpError(
            f"'{op.name}': only a GE or LE select with an add scatter (max/min "
            f"pooling gradients) has a JAX form, got {select} and {kind}"
        )
    operand, source, init = args
    rank = op.operands[0].rank
    element = op.operands[0].element
    dtype = jnp_dtype(element)
    # A concrete identity, so that JAX sees the max (min) monoid it can
    # differentiate (a traced init would be a generic, underivable reduction).
    if element.startswith(("f", "bf")):
        identity = "-np.inf" if chooser == "lax.max" else "np.inf"
    else:
        identity = f"np.iinfo({dtype}).{'min' if chooser == 'lax.max' else 'max'}"
    window = py_tuple(_ints(op, "window_dimensions"))
    strides = py_tuple(_ints(op, "window_strides", (1,) * rank))
    pooled = (
        f"lambda o: lax.reduce_window(o, np.array({identity}, {dtype}), {chooser}, "
        f"{window}, {strides}, {_pairs(op, rank)})"
    )
    return [f"({init} + jax.vjp({pooled}, {operand})[1]({source})[0])"]


@register_emitter("stablehlo.sort")
def _sort(op: OpSpec, args: list[str], ctx: Context, dyn: Mapping[str, str]) -> Unpack:
    num_keys = op.attr("num_keys")
    if num_keys is None:
        raise UnsupportedOpError(
            f"'{op.name}': only comparators that are lax.sort's ascending "
            "lexicographic order have a JAX form"
        )
    call = (
        f"lax.sort(({', '.join(args)},), dimension={int(op.attr('dimension'))}, "
        f"is_stable={bool(op.attr('is_stable', False))}, num_keys={int(num_keys)})"
    )
    return Unpack(call)


@register_emitter("chlo.top_k")
def _top_k(
    op: OpSpec, args: list[str], ctx: Context, dyn: Mapping[str, str]
) -> list[str]:
    index = jnp_dtype(op.results[1].element)
    call = f"lax.top_k({args[0]}, {int(op.attr('k'))})"
    return [f"{call}[0]", f"{call}[1].astype({index})"]


def arg_reduce_exprs(op: OpSpec, args: list[str]) -> Unpack:
    """JAX's argmax/argmin body as a ``lax.reduce`` computation."""
    kind = str(op.attr("kind"))
    dims = py_tuple(_ints(op, "dimensions"))
    v, i, iv, ii = args
    better = ">" if kind == "argmax" else "<"
    nan = (
        "(a[0] != a[0])" if op.operands[0].element.startswith(("f", "bf")) else "False"
    )
    pick = f"((a[0] {better} b[0]) | {nan})"
    index = f"({pick} | ((a[0] == b[0]) & (a[1] < b[1])))"
    body = f"lambda a, b: (lax.select({pick}, a[0], b[0]), lax.select({index}, a[1], b[1]))"
    return Unpack(f"lax.reduce(({v}, {i}), ({iv}, {ii}), {body}, {dims})")
