"""JAX forms of contractions and reductions: ``dot_general``, linalg's matmuls,
``reduce`` (arg-reductions included) and ``linalg.reduce``.

Each keeps the op's numerics: ``dot_general`` its ``precision_config`` or
``algorithm`` and
its result type as ``preferred_element_type``; a reduction its body kind and
its init values.
"""

from __future__ import annotations

from sbpc.jax_backend.ops import (
    Emitted,
    Unpack,
    body_kind,
    emits,
    ints,
    jnp_dtype,
    precision,
    py_tuple,
    result,
)
from sbpc.ops.dot_algorithm import DotAlgorithm, is_fp8
from sbpc.ops.spec import OpSpec, is_bool


@emits("stablehlo.dot_general")
def _dot_general(op: OpSpec, args: list[str]) -> str:
    """``lax.dot_general`` with the op's own numerics: its ``precision_config``
    (absent: ``DEFAULT``, which is TF32 for f32 on recent GPUs) and its result
    type as ``preferred_element_type`` (bf16 x bf16 -> f32 accumulates in f32
    from bf16 operands; casting the operands first would change the numbers).
    Operands are cast only where their element types differ, which
    ``lax.dot_general`` does not take (but for two fp8 formats, which it
    does: e4m3 activations times e5m2 gradients)."""
    _, dtype = result(op)
    a, b = args
    lhs, rhs = (t.element for t in op.operands[:2])
    if lhs != rhs and not (is_fp8(lhs) and is_fp8(rhs)):  # JAX mixes fp8 formats
        a, b = (f"{x}.astype({dtype})" for x in args)
    dnums = (
        f"(({py_tuple(ints(op, 'lhs_contracting_dimensions'))}, "
        f"{py_tuple(ints(op, 'rhs_contracting_dimensions'))}), "
        f"({py_tuple(ints(op, 'lhs_batching_dimensions'))}, "
        f"{py_tuple(ints(op, 'rhs_batching_dimensions'))}))"
    )
    return (
        f"lax.dot_general({a}, {b}, {dnums}{_precision(op)}, "
        f"preferred_element_type={dtype})"
    )


def _precision(op: OpSpec) -> str:
    """``, precision=...``: the op's algorithm where it has one (the preset
    that lowers to it, else a ``lax.DotAlgorithm`` of its fields), else its
    per-operand precision config."""
    algorithm: DotAlgorithm | None = op.attr("algorithm")
    if algorithm is None:
        return precision(op)
    preset = algorithm.preset(op.operands[0].element, op.operands[1].element)
    if preset is not None:
        return f", precision=lax.DotAlgorithmPreset.{preset}"
    lhs, rhs, acc = (
        jnp_dtype(t) for t in (*algorithm.work_dtypes, algorithm.accumulation_type)
    )
    return (
        f", precision=lax.DotAlgorithm(lhs_precision_type={lhs}, "
        f"rhs_precision_type={rhs}, accumulation_type={acc}, "
        f"lhs_component_count={algorithm.lhs_component_count}, "
        f"rhs_component_count={algorithm.rhs_component_count}, "
        f"num_primitive_operations={algorithm.num_primitive_operations}, "
        f"allow_imprecise_accumulation={algorithm.allow_imprecise_accumulation})"
    )


@emits("linalg.matmul", "linalg.batch_matmul")
def _matmul(op: OpSpec, args: list[str]) -> str:
    _, dtype = result(op)
    # linalg's body casts the operands to the result type and computes in it:
    # exact arithmetic of that type, which is HIGHEST (DEFAULT f32 is TF32).
    a, b, c = (f"{x}.astype({dtype})" for x in args)
    return f"({c} + jnp.matmul({a}, {b}, precision=lax.Precision.HIGHEST))"


# body kind -> (reduction over dims, combine with the init); {0} array, {1} dims,
# {2} dtype.  Bitwise and/or on integers go through lax.reduce with their identity;
# max/min through lax's, whose identity makes an empty dim reduce to the init
# (jnp.max refuses an empty dim).
_REDUCE = {
    "add": ("jnp.sum({0}, axis={1}, dtype={2})", "({0} + {1})"),
    "mul": ("jnp.prod({0}, axis={1}, dtype={2})", "({0} * {1})"),
    "max": ("lax.reduce_max({0}, {1})", "jnp.maximum({0}, {1})"),
    "min": ("lax.reduce_min({0}, {1})", "jnp.minimum({0}, {1})"),
    "and": (
        "lax.reduce({0}, np.array(-1, {2}), lax.bitwise_and, {1})",
        "jnp.bitwise_and({0}, {1})",
    ),
    "or": (
        "lax.reduce({0}, np.array(0, {2}), lax.bitwise_or, {1})",
        "jnp.bitwise_or({0}, {1})",
    ),
}
_BOOL_REDUCE = {
    "add": "jnp.any({0}, axis={1})",
    "or": "jnp.any({0}, axis={1})",
    "max": "jnp.any({0}, axis={1})",
    "and": "jnp.all({0}, axis={1})",
    "min": "jnp.all({0}, axis={1})",
    "mul": "jnp.all({0}, axis={1})",
}


def _bool_combine(kind: str) -> str:
    return (
        "jnp.bitwise_or({0}, {1})"
        if kind in ("add", "max")
        else ("jnp.bitwise_and({0}, {1})")
    )


@emits("linalg.reduce")
def _reduce_exprs(op: OpSpec, args: list[str]) -> list[str]:
    """Per result, its init combined with the reduction of its input; the
    inputs come first, then one init per result."""
    kind = body_kind(op, _REDUCE)
    dims = ints(op, "dimensions")
    n = len(args) - len(op.results)
    reduce, combine = _REDUCE[kind]
    out = []
    for k, (x, init) in enumerate(zip(args[:n], args[n:], strict=True)):
        element = op.operands[k].element
        if is_bool(element):
            reduce_k = _BOOL_REDUCE[kind]
            combine_k = combine if kind in ("and", "or") else _bool_combine(kind)
        else:
            reduce_k, combine_k = reduce, combine
        r = reduce_k.format(x, py_tuple(dims), jnp_dtype(element)) if dims else x
        out.append(combine_k.format(init, r))
    return out


@emits("stablehlo.reduce")
def _reduce(op: OpSpec, args: list[str]) -> Emitted:
    if op.attr("kind") in ("argmax", "argmin"):  # JAX's two-input body
        return _arg_reduce(op, args)
    return _reduce_exprs(op, args)


def _arg_reduce(op: OpSpec, args: list[str]) -> Unpack:
    """JAX's argmax/argmin body as a ``lax.reduce`` computation."""
    kind = str(op.attr("kind"))
    dims = py_tuple(ints(op, "dimensions"))
    v, i, iv, ii = args
    better = ">" if kind == "argmax" else "<"
    nan = (
        "(a[0] != a[0])" if op.operands[0].element.startswith(("f", "bf")) else "False"
    )
    pick = f"((a[0] {better} b[0]) | {nan})"
    index = f"({pick} | ((a[0] == b[0]) & (a[1] < b[1])))"
    body = f"lambda a, b: (lax.select({pick}, a[0], b[0]), lax.select({index}, a[1], b[1]))"
    return Unpack(f"lax.reduce(({v}, {i}), ({iv}, {ii}), {body}, {dims})")
