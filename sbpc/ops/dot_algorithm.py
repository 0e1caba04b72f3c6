"""A product's algorithm (StableHLO's ``#stablehlo.dot_algorithm``) as plain data.

JAX writes one on every product whose numerics it pins down: bf16 attention
(``jax.nn.dot_product_attention``: bf16 operands, f32 accumulation), an f32
product run as three bf16 passes, fp8 products.  sbpc keeps it on the op,
carries it to the emitted program (as the ``lax.DotAlgorithmPreset`` that
lowers to it, so backends that know only the presets take it) and prices the
product at its precision types' flop rate, once per primitive operation.
"""

from __future__ import annotations

from typing import NamedTuple

# The presets JAX lowers to an algorithm, by the algorithm's fields
# (lhs, rhs, accumulation, lhs count, rhs count, operations, imprecise);
# jax/_src/lax/lax.py: DotAlgorithmPreset._convert_to_hlo_attr.
_PRESETS: dict[tuple[str, str, str, int, int, int, bool], str] = {
    ("f16", "f16", "f16", 1, 1, 1, False): "F16_F16_F16",
    ("f16", "f16", "f32", 1, 1, 1, False): "F16_F16_F32",
    ("bf16", "bf16", "bf16", 1, 1, 1, False): "BF16_BF16_BF16",
    ("bf16", "bf16", "f32", 1, 1, 1, False): "BF16_BF16_F32",
    ("bf16", "bf16", "f32", 1, 1, 3, False): "BF16_BF16_F32_X3",
    ("bf16", "bf16", "f32", 1, 1, 6, False): "BF16_BF16_F32_X6",
    ("bf16", "bf16", "f32", 1, 1, 9, False): "BF16_BF16_F32_X9",
    ("tf32", "tf32", "f32", 1, 1, 1, False): "TF32_TF32_F32",
    ("tf32", "tf32", "f32", 1, 1, 3, False): "TF32_TF32_F32_X3",
    ("f32", "f32", "f32", 1, 1, 1, False): "F32_F32_F32",
    ("f64", "f64", "f64", 1, 1, 1, False): "F64_F64_F64",
}

# The element types a preset reads without casting its operands first (JAX
# casts the others, which would change the emitted program's types).
_PRESET_OPERANDS: dict[str, frozenset[str]] = {
    "F16_F16_F16": frozenset({"f16"}),
    "F16_F16_F32": frozenset({"f16"}),
    "BF16_BF16_BF16": frozenset({"bf16", "f32"}),
    "BF16_BF16_F32": frozenset({"bf16", "f32"}),
    "F64_F64_F64": frozenset({"f64"}),
}


def is_fp8(element: str) -> bool:
    """MLIR's eight-bit float types (``f8E4M3FN``, ``f8E5M2``, ...)."""
    return element.startswith("f8")


class DotAlgorithm(NamedTuple):
    """The fields of ``#stablehlo.dot_algorithm``, under StableHLO's names."""

    lhs_precision_type: str
    rhs_precision_type: str
    accumulation_type: str
    lhs_component_count: int = 1
    rhs_component_count: int = 1
    num_primitive_operations: int = 1
    allow_imprecise_accumulation: bool = False

    def preset(self, lhs: str, rhs: str) -> str | None:
        """The ``lax.DotAlgorithmPreset`` that lowers to this algorithm for
        operands of element types ``lhs`` and ``rhs``, or None."""
        if (
            is_fp8(self.lhs_precision_type)
            and (self.lhs_precision_type, self.rhs_precision_type) == (lhs, rhs)
            and is_fp8(rhs)
            and self.accumulation_type == "f32"
            and self.lhs_component_count == self.rhs_component_count == 1
            and self.num_primitive_operations == 1
        ):
            if self.allow_imprecise_accumulation:
                return "ANY_F8_ANY_F8_F32_FAST_ACCUM"
            return "ANY_F8_ANY_F8_F32"
        name = _PRESETS.get(tuple(self))  # type: ignore[arg-type]
        if name is None:
            return None
        reads = _PRESET_OPERANDS.get(name, frozenset({"f32"}))
        return name if lhs in reads and rhs in reads else None

    @property
    def work_dtypes(self) -> tuple[str, str]:
        """The element types the product's multiplications run in."""
        return (self.lhs_precision_type, self.rhs_precision_type)
