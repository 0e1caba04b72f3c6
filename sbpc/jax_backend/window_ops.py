"""JAX forms of convolution, the windowed ops and sorting.

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

from sbpc.jax_backend.ops import (
    Unpack,
    UnsupportedOpError,
    body_kind,
    emits,
    ints,
    jnp_dtype,
    precision,
    py_tuple,
    result,
)
from sbpc.ops.spec import OpSpec


def _pairs(op: OpSpec, rank: int) -> str:
    pad = op.attr("padding")
    pairs = [(0, 0)] * rank if pad is None else [(int(a), int(b)) for a, b in pad]
    return (
        "("
        + ", ".join(f"({a}, {b})" for a, b in pairs)
        + ("," if rank == 1 else "")
        + ")"
    )


@emits("stablehlo.convolution")
def _convolution(op: OpSpec, args: list[str]) -> str:
    _, dtype = result(op)
    lhs, rhs = args
    if op.operands[0].element != op.operands[1].element:
        lhs, rhs = (f"{x}.astype({dtype})" for x in args)
    k = len(ints(op, "input_spatial_dimensions"))
    ones = (1,) * k
    kernel_spatial = ints(op, "kernel_spatial_dimensions")
    reversal = op.attr("window_reversal") or (False,) * k
    flipped = [kernel_spatial[j] for j in range(k) if reversal[j]]
    if flipped:
        rhs = f"lax.rev({rhs}, {py_tuple(flipped)})"

    def spec(batch: str, feature: str, spatial: str) -> str:
        dims = (int(op.attr(batch)), int(op.attr(feature)), *ints(op, spatial))
        return py_tuple(dims)

    dnums = (
        "lax.ConvDimensionNumbers("
        f"lhs_spec={spec('input_batch_dimension', 'input_feature_dimension', 'input_spatial_dimensions')}, "
        f"rhs_spec={spec('kernel_output_feature_dimension', 'kernel_input_feature_dimension', 'kernel_spatial_dimensions')}, "
        f"out_spec={spec('output_batch_dimension', 'output_feature_dimension', 'output_spatial_dimensions')})"
    )
    return (
        f"lax.conv_general_dilated({lhs}, {rhs}, "
        f"window_strides={py_tuple(ints(op, 'window_strides', ones))}, "
        f"padding={_pairs(op, k)}, "
        f"lhs_dilation={py_tuple(ints(op, 'lhs_dilation', ones))}, "
        f"rhs_dilation={py_tuple(ints(op, 'rhs_dilation', ones))}, "
        f"dimension_numbers={dnums}, "
        f"feature_group_count={int(op.attr('feature_group_count', 1))}, "
        f"batch_group_count={int(op.attr('batch_group_count', 1))}"
        f"{precision(op)}, preferred_element_type={dtype})"
    )


_COMBINE = {
    "add": "lax.add",
    "mul": "lax.mul",
    "max": "lax.max",
    "min": "lax.min",
    "and": "lax.bitwise_and",
    "or": "lax.bitwise_or",
}


@emits("stablehlo.reduce_window")
def _reduce_window(op: OpSpec, args: list[str]) -> list[str]:
    combine = _COMBINE[body_kind(op, _COMBINE)]
    rank = op.operands[0].rank
    ones = (1,) * rank
    n = len(args) // 2
    out = []
    for x, init in zip(args[:n], args[n:], strict=True):
        out.append(
            f"lax.reduce_window({x}, {init}, {combine}, "
            f"{py_tuple(ints(op, 'window_dimensions'))}, "
            f"{py_tuple(ints(op, 'window_strides', ones))}, {_pairs(op, rank)}, "
            f"{py_tuple(ints(op, 'base_dilations', ones))}, "
            f"{py_tuple(ints(op, 'window_dilations', ones))})"
        )
    return out


@emits("stablehlo.select_and_scatter")
def _select_and_scatter(op: OpSpec, args: list[str]) -> str:
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
    window = py_tuple(ints(op, "window_dimensions"))
    strides = py_tuple(ints(op, "window_strides", (1,) * rank))
    pooled = (
        f"lambda o: lax.reduce_window(o, np.array({identity}, {dtype}), {chooser}, "
        f"{window}, {strides}, {_pairs(op, rank)})"
    )
    return f"({init} + jax.vjp({pooled}, {operand})[1]({source})[0])"


@emits("stablehlo.sort")
def _sort(op: OpSpec, args: list[str]) -> Unpack:
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


@emits("chlo.top_k")
def _top_k(op: OpSpec, args: list[str]) -> list[str]:
    index = jnp_dtype(op.results[1].element)
    call = f"lax.top_k({args[0]}, {int(op.attr('k'))})"
    return [f"{call}[0]", f"{call}[1].astype({index})"]
