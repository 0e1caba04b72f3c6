"""Sort comparators and arg-reduction bodies are named by evaluating them:
JAX's forms get their names, anything that differs on some representative
value (signed zeros, NaN, ties, order) gets none."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

from sbpc.dialects.stablehlo import (
    CompareOp,
    ComparisonDirection,
    ComparisonDirectionAttr,
    ReduceOp,
    SortOp,
)
from sbpc.dialects.stablehlo.sort import arg_reduction_kind, sort_num_keys
from sbpc.jax import _parse

V = np.ones((4, 8), np.float32)


def _ops(fn, cls):
    module = _parse(jax.jit(fn).lower(V).as_text(), "t")
    return [op for op in module.walk() if isinstance(op, cls)]


@pytest.mark.parametrize(
    ("fn", "keys"),
    [
        (lambda v: jnp.sort(v, axis=1), 1),
        (lambda v: jnp.argsort(v, axis=0), 1),
        (lambda v: lax.sort((v, v.astype(jnp.int32)), num_keys=2), 2),
        (lambda v: lax.sort((v, -v, v > 0), num_keys=3), 3),
        (lambda v: jnp.sort(v.astype(jnp.int32)), 1),
        (lambda v: jnp.sort(v > 0), 1),
        (lambda v: jnp.sort(v.astype(jnp.uint8)), 1),
    ],
)
def test_jax_comparators_are_named(fn, keys) -> None:
    (op,) = _ops(fn, SortOp)
    assert sort_num_keys(op) == keys


def _sort_with(body: str, element: str = "f32") -> SortOp:
    text = f"""
func.func @main(%v: tensor<8x{element}>) -> tensor<8x{element}> {{
  %0 = "stablehlo.sort"(%v) <{{dimension = 0 : i64, is_stable = true}}> ({{
  ^bb0(%a: tensor<{element}>, %b: tensor<{element}>):
    {body}
  }}) : (tensor<8x{element}>) -> tensor<8x{element}>
  return %0 : tensor<8x{element}>
}}"""
    (op,) = [o for o in _parse(text, "t").walk() if isinstance(o, SortOp)]
    return op


@pytest.mark.parametrize(
    "body",
    [
        # IEEE less-than: -0.0 and 0.0, NaNs unordered; not lax.sort's order
        "%c = stablehlo.compare LT, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
        "stablehlo.return %c : tensor<i1>",
        # descending
        "%c = stablehlo.compare GT, %a, %b, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
        "stablehlo.return %c : tensor<i1>",
        # an op the interpreter does not know
        "%e = stablehlo.exponential %a : tensor<f32>\n"
        "%c = stablehlo.compare LT, %e, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
        "stablehlo.return %c : tensor<i1>",
    ],
)
def test_other_comparators_get_no_name(body) -> None:
    assert sort_num_keys(_sort_with(body)) is None


def test_plain_integer_less_than_is_the_sort_order() -> None:
    body = (
        "%c = stablehlo.compare LT, %a, %b, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
        "stablehlo.return %c : tensor<i1>"
    )
    assert sort_num_keys(_sort_with(body, "i32")) == 1


@pytest.mark.parametrize(
    ("fn", "kind"),
    [
        (lambda v: jnp.argmax(v, axis=1), "argmax"),
        (lambda v: jnp.argmin(v, axis=0), "argmin"),
        (lambda v: jnp.argmax(v.astype(jnp.int32), axis=1), "argmax"),
    ],
)
def test_arg_reductions_are_named(fn, kind) -> None:
    (op,) = _ops(fn, ReduceOp)
    assert arg_reduction_kind(op.inputs, op.body) == kind


def test_a_tie_break_to_the_higher_index_is_not_argmax() -> None:
    (op,) = _ops(lambda v: jnp.argmax(v, axis=1), ReduceOp)
    block = op.body.blocks.first
    # flip the index comparison (LT -> GT): ties now keep the higher index
    tie = [o for o in block.ops if isinstance(o, CompareOp)][-1]
    assert tie.comparison_direction == "LT"
    tie.properties["comparison_direction"] = ComparisonDirectionAttr(
        ComparisonDirection.GT
    )
    assert arg_reduction_kind(op.inputs, op.body) is None
