"""The logical type of a tensor as the algorithms see it: shape and element type."""

from __future__ import annotations

import math
from dataclasses import dataclass

# Bytes per element of the element types sbpc handles (MLIR spelling).
ELEMENT_BYTES: dict[str, int] = {
    "i1": 1,
    "i8": 1,
    "ui8": 1,
    "i16": 2,
    "i32": 4,
    "ui32": 4,
    "i64": 8,
    "ui64": 8,
    "f16": 2,
    "bf16": 2,
    "f32": 4,
    "f64": 8,
}

# MLIR's eight-bit floats (fp8 training and inference), one byte each; numpy
# has them through ml_dtypes as ``float8_<name>`` (``f8E4M3FN`` ->
# ``float8_e4m3fn``).
FP8_ELEMENTS = (
    "f8E4M3FN",
    "f8E5M2",
    "f8E4M3FNUZ",
    "f8E5M2FNUZ",
    "f8E4M3B11FNUZ",
    "f8E3M4",
    "f8E4M3",
    "f8E8M0FNU",
)
ELEMENT_BYTES.update(dict.fromkeys(FP8_ELEMENTS, 1))

# numpy dtype names for the same element types.
NUMPY_DTYPE: dict[str, str] = {
    "i1": "bool",
    "i8": "int8",
    "ui8": "uint8",
    "i16": "int16",
    "i32": "int32",
    "ui32": "uint32",
    "i64": "int64",
    "ui64": "uint64",
    "f16": "float16",
    "bf16": "bfloat16",
    "f32": "float32",
    "f64": "float64",
    **{e: "float8_" + e[2:].lower() for e in FP8_ELEMENTS},
}


# The largest tensors sbpc reads: more dimensions than numpy has, or more
# bytes than a 64-bit offset reaches, is a typo; their sizes would overflow
# the floats the cost model prices them with.  A dense literal is expanded
# element by element as it is parsed: a splat over more elements than
# ``MAX_DENSE_ELEMENTS`` would fill the memory before anything could fail.
MAX_TENSOR_RANK = 64
MAX_TENSOR_BYTES = 2**63 - 1
MAX_DENSE_ELEMENTS = 2**26


def size_error(shape: tuple[int, ...], element: str) -> str | None:
    """Why a tensor of ``shape`` is too large for sbpc (None: it is not)."""
    if len(shape) > MAX_TENSOR_RANK:
        return f"rank {len(shape)} is more than {MAX_TENSOR_RANK} dimensions"
    nbytes = math.prod(shape) * ELEMENT_BYTES.get(element, 4)
    if nbytes > MAX_TENSOR_BYTES:
        return f"{nbytes} bytes are more than 2^63 - 1"
    return None


@dataclass(frozen=True)
class TensorType:
    """``shape`` and MLIR element type name (``f32``, ``i32``, ``i1``, ...)."""

    shape: tuple[int, ...]
    element: str = "f32"

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def num_elements(self) -> int:
        return math.prod(self.shape)

    @property
    def nbytes(self) -> int:
        return self.num_elements * ELEMENT_BYTES.get(self.element, 4)

    def __str__(self) -> str:
        dims = "".join(f"{d}x" for d in self.shape)
        return f"tensor<{dims}{self.element}>"
