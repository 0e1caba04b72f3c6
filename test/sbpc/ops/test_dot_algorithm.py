"""A product's algorithm names the JAX preset that lowers to it, for every
preset JAX has (checked against JAX's own lowering, for a GPU: the CPU
refuses some), and no preset where none lowers to it unchanged."""

from __future__ import annotations

import re

import jax
import jax.numpy as jnp
import pytest
from jax import lax

from sbpc.ops.dot_algorithm import DotAlgorithm

_MLIR = {
    "float16": "f16",
    "bfloat16": "bf16",
    "float32": "f32",
    "float64": "f64",
    "float8_e4m3fn": "f8E4M3FN",
}
_FIELD = re.compile(r"(\w+) = (\w+)")


def _lowered(precision: object, dtype: object) -> tuple[DotAlgorithm, str]:
    """The algorithm JAX writes for ``precision`` on operands of ``dtype``."""
    x = jax.ShapeDtypeStruct((4, 4), dtype)
    fn = jax.jit(lambda a, b: lax.dot(a, b, precision=precision))
    text = fn.trace(x, x).lower(lowering_platforms=("cuda",)).as_text()
    body = re.search(r"algorithm = <([^>]*)>", text)
    assert body is not None, text
    fields = dict(_FIELD.findall(body.group(1)))
    algorithm = DotAlgorithm(
        fields["lhs_precision_type"],
        fields["rhs_precision_type"],
        fields["accumulation_type"],
        int(fields["lhs_component_count"]),
        int(fields["rhs_component_count"]),
        int(fields["num_primitive_operations"]),
        fields["allow_imprecise_accumulation"] == "true",
    )
    return algorithm, body.group(0)


@pytest.mark.parametrize(
    "preset", [p for p in lax.DotAlgorithmPreset if p.name != "DEFAULT"], ids=str
)
def test_each_presets_algorithm_names_a_preset_lowering_to_it(preset) -> None:
    """On each element type the preset reads without a cast (fp8 for ANY_F8)."""
    for dtype in preset.supported_lhs_types or (jnp.float8_e4m3fn,):
        algorithm, text = _lowered(preset, dtype)
        element = _MLIR[jnp.dtype(dtype).name]
        name = algorithm.preset(element, element)
        assert name is not None, (preset, element)
        again = _lowered(getattr(lax.DotAlgorithmPreset, name), dtype)
        assert again == (algorithm, text)


def test_no_preset_where_jax_would_cast_the_operands_or_none_matches() -> None:
    """F32_F32_F32 on bf16 operands would make JAX cast them to f32 first; an
    algorithm no preset lowers to has none (it is emitted field by field)."""
    assert DotAlgorithm("f32", "f32", "f32").preset("bf16", "bf16") is None
    assert DotAlgorithm("f32", "f32", "f32").preset("f32", "f32") == "F32_F32_F32"
    assert DotAlgorithm("bf16", "bf16", "f32").preset("f32", "f32") == "BF16_BF16_F32"
    assert DotAlgorithm("bf16", "f16", "f32").preset("bf16", "f16") is None
    fp8 = DotAlgorithm("f8E4M3FN", "f8E5M2", "f32", allow_imprecise_accumulation=True)
    assert fp8.preset("f8E4M3FN", "f8E5M2") == "ANY_F8_ANY_F8_F32_FAST_ACCUM"
    assert fp8.preset("f8E5M2", "f8E5M2") is None  # rounds the lhs: not a preset
