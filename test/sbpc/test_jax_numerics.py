"""The emitted program keeps the input's numerics: each op's precision,
result type and comparison type survive to the StableHLO that JAX lowers the
emitted module to, and the numbers are those of the input."""

from __future__ import annotations

import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

import sbpc.jax as sj

_DOT = re.compile(r"stablehlo\.dot_general[^\n]*")


def _dot_contracts(text: str) -> list[tuple[str, str]]:
    """(precision config, operand and result types) of each dot_general."""
    out = []
    for line in _DOT.findall(text):
        precision = re.search(r"precision = \[([^\]]*)\]", line)
        types = line.rsplit(" : ", 1)[1]
        types = re.sub(r"tensor<(?:\d+x)*", "tensor<", types)  # local shapes differ
        out.append((precision.group(1) if precision else "DEFAULT, DEFAULT", types))
    return sorted(out)


def _mixed(a, b, c):
    """Three contracts: default, per-operand HIGHEST, bf16 operands -> f32."""
    x = jnp.dot(a, b)
    y = lax.dot_general(
        a,
        b,
        (((1,), (0,)), ((), ())),
        precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST),
    )
    z = jnp.dot(
        a.astype(jnp.bfloat16),
        c,
        precision=lax.Precision.HIGH,
        preferred_element_type=jnp.float32,
    )
    return x, y, z


@pytest.mark.parametrize(
    "layouts", [("B", "B", "B"), ("S(0)", "B", "B"), ("B", "S(1)", "S(1)")]
)
def test_lowered_program_carries_the_inputs_dot_attributes(layouts):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((16, 32)).astype(np.float32)
    b = rng.standard_normal((32, 8)).astype(np.float32)
    c = rng.standard_normal((32, 8)).astype(jnp.bfloat16)
    want_text = jax.jit(_mixed).lower(a, b, c).as_text()
    dist = sj.distribute(_mixed, a, b, c, mesh=4, in_layouts=layouts, strategy="greedy")
    got_text = dist.step.lower(*dist.place(a, b, c)).as_text()
    want, got = _dot_contracts(want_text), _dot_contracts(got_text)
    assert len(want) == 3
    assert got == want, got_text
    assert any("bf16" in t and t.endswith("f32>") for _, t in got)
    assert "HIGHEST" not in "".join(p for p, _ in got if p != "DEFAULT, HIGHEST")
    for g, w in zip(dist(a, b, c), jax.jit(_mixed)(a, b, c), strict=True):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=2e-2, atol=2e-2)


_ALGORITHM = re.compile(r"algorithm = <[^>]*>")


def _algorithms(a, b, q, k):
    """The products JAX writes an algorithm on: bf16 attention (bf16 in,
    f32 accumulation), an f32 product as three bf16 passes, an exact f32 one."""
    scores = jax.nn.dot_product_attention(q, k, k)
    x = jnp.dot(a, b, precision=lax.DotAlgorithmPreset.BF16_BF16_F32_X3)
    y = jnp.dot(a, b, precision=lax.DotAlgorithmPreset.F32_F32_F32)
    return scores, x, y


@pytest.mark.parametrize("strategy", ["greedy", "bfs", "optimal"])
@pytest.mark.parametrize("layouts", [("B",) * 4, ("S(0)", "B", "S(0)", "S(0)")])
def test_lowered_program_carries_the_inputs_dot_algorithms(layouts, strategy):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((16, 32)).astype(np.float32)
    b = rng.standard_normal((32, 8)).astype(np.float32)
    q = rng.standard_normal((8, 16, 2, 8)).astype(jnp.bfloat16)
    k = rng.standard_normal((8, 16, 2, 8)).astype(jnp.bfloat16)
    want_text = jax.jit(_algorithms).lower(a, b, q, k).as_text()
    dist = sj.distribute(
        _algorithms, a, b, q, k, mesh=4, in_layouts=layouts, strategy=strategy
    )
    got_text = dist.step.lower(*dist.place(a, b, q, k)).as_text()
    want = sorted(_ALGORITHM.findall(want_text))
    assert len(want) == 3 and "num_primitive_operations = 3" in "".join(want)
    assert sorted(_ALGORITHM.findall(got_text)) == want, got_text
    assert _dot_contracts(got_text) == _dot_contracts(want_text)
    for g, w in zip(dist(a, b, q, k), jax.jit(_algorithms)(a, b, q, k), strict=True):
        np.testing.assert_allclose(
            np.asarray(g, np.float32), np.asarray(w, np.float32), rtol=2e-2, atol=2e-2
        )


def _fp8_product(x, y):
    """An fp8 x fp8 -> f32 product of two fp8 formats (forward and gradient)."""
    return lax.dot_general(
        x, y, (((1,), (0,)), ((), ())), preferred_element_type=jnp.float32
    )


def test_fp8_products_keep_their_operand_types_and_numbers():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((16, 32)).astype(jnp.float8_e4m3fn)
    y = rng.standard_normal((32, 8)).astype(jnp.float8_e5m2)
    dist = sj.distribute(_fp8_product, x, y, mesh=4, in_layouts=("S(0)", "B"))
    got_text = dist.step.lower(*dist.place(x, y)).as_text()
    assert _dot_contracts(got_text) == [
        ("DEFAULT, DEFAULT", "(tensor<f8E4M3FN>, tensor<f8E5M2>) -> tensor<f32>")
    ]
    np.testing.assert_array_equal(
        np.asarray(dist(x, y)), np.asarray(jax.jit(_fp8_product)(x, y))
    )


TOTAL = """
module attributes {sbp.placement = #sbp.placement<cpu, [0, 1, 2, 3]>} {
  func.func @main(%x: tensor<8xf32>, %y: tensor<8xf32>) -> (tensor<8xi1>, tensor<8xi1>, tensor<8xi1>, tensor<8xi1>) {
    %0 = stablehlo.compare  LT, %x, %y,  TOTALORDER : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
    %1 = stablehlo.compare  EQ, %x, %y,  TOTALORDER : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
    %2 = stablehlo.compare  LT, %x, %y,  FLOAT : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
    %3 = stablehlo.compare  EQ, %x, %y,  FLOAT : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
    return %0, %1, %2, %3 : tensor<8xi1>, tensor<8xi1>, tensor<8xi1>, tensor<8xi1>
  }
}
"""


def _total_key(v: float) -> tuple[int, float]:
    """IEEE total order: -NaN < -inf < ... < -0 < 0 < ... < inf < NaN."""
    if np.isnan(v):
        return (1 if not np.signbit(v) else -1, 0.0)
    return (0, v if v != 0 else (-0.5e-300 if np.signbit(v) else 0.5e-300))


def test_totalorder_comparison_orders_signed_zeros_and_nans(tmp_path):
    from sbpc.passes.jax_target import jax_source
    from sbpc.passes.pipeline import parse_module, run_passes

    module = parse_module(TOTAL)
    run_passes(module, "sbp-propagate{strategy=greedy},sbp-lower-boxing")
    path = tmp_path / "total.py"
    path.write_text(jax_source(module, "main"))
    namespace: dict = {"__name__": "total"}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    nan = np.float32(np.nan)
    x = np.array([-0.0, 0.0, nan, -nan, 1.0, -np.inf, nan, 2.0], np.float32)
    y = np.array([0.0, -0.0, 1.0, -1.0, nan, -nan, nan, 2.0], np.float32)
    run = namespace["build"]()
    lt, eq, flt, feq = (
        np.asarray(r) for r in namespace["logical"](run(*namespace["put_args"](x, y)))
    )
    keys = [(_total_key(a), _total_key(b)) for a, b in zip(x, y, strict=True)]
    np.testing.assert_array_equal(lt, [ka < kb for ka, kb in keys])
    np.testing.assert_array_equal(eq, [ka == kb for ka, kb in keys])
    np.testing.assert_array_equal(flt, x < y)
    np.testing.assert_array_equal(feq, x == y)
