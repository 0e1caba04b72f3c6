"""The StableHLO subset that JAX emits for real models, as an xDSL dialect.

xDSL 0.74 ships no ``stablehlo`` dialect. This one reads both spellings MLIR
has for every op:

* the pretty form that ``jax.jit(f).lower(*args).as_text()`` prints, e.g.
  ``%0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0], ...``;
* the generic form ``"stablehlo.add"(%a, %b) : (...) -> ...`` with
  ``<{...}>`` properties and the ``#stablehlo.dot<...>``,
  ``#stablehlo.gather<...>``, ``#stablehlo<comparison_direction GT>``,
  ``#stablehlo<comparison_type FLOAT>`` and ``#stablehlo<precision DEFAULT>``
  attributes,

and prints the pretty form exactly as MLIR (and so JAX) prints it, constants
included (see ``_mlir_text``), so printed text re-parses to identical text.
``stablehlo.gather`` and ``stablehlo.scatter`` have no custom syntax in
StableHLO either: they print in the generic form, exactly as JAX does.

Every op verifies shapes and element types and reports a problem as a
``VerifyException`` whose message starts with the op name, e.g.
``stablehlo.dot_general: contracting dimension sizes differ: 16 vs 8``.

Python accessors return plain values (``DotGeneralOp.lhs_contracting_dimensions
-> tuple[int, ...]``, ``CompareOp.comparison_direction -> str``,
``ReduceOp.reduction_kind -> "add" | "max" | ... | None``); the underlying
attributes are the ``*_attr`` fields. Elementwise ops carry the
``Elementwise`` trait so passes can treat them alike.

The package is laid out as xDSL lays out a large dialect: ``syntax`` (the
shared parsing/printing pieces and custom format directives), ``attrs``,
``base`` (type accessors, traits, abstract ops), the op families
``constants``, ``elementwise``, ``shape``, ``reduction``,
``gather_scatter``, ``convolution``, ``windows`` (``reduce_window``,
``select_and_scatter``) and ``sort``, and ``plain`` (attributes as plain values); this module
assembles the ``StableHLO`` dialect and re-exports the public names.
"""

from __future__ import annotations

from xdsl.ir import Dialect

from .. import _xdsl_fixes, _xdsl_speedups, _xdsl_verify_speedups
from .attrs import (
    ComparisonDirection,
    ComparisonDirectionAttr,
    ComparisonType,
    ComparisonTypeAttr,
    DotAlgorithmAttr,
    DotDimensionNumbersAttr,
    GatherDimensionNumbersAttr,
    Precision,
    PrecisionAttr,
    RngAlgorithmAttr,
    ScatterDimensionNumbersAttr,
)
from .base import Elementwise
from .collectives import (
    COLLECTIVE_OPS,
    AllGatherOp,
    AllReduceOp,
    AllToAllOp,
    ChannelHandleAttr,
    CollectivePermuteOp,
    PartitionIdOp,
    ReduceScatterOp,
)
from .complex import COMPLEX_ATTRS, COMPLEX_OPS, ComplexOp, FftOp, ImagOp, RealOp
from .constants import ConstantOp, IotaOp
from .control_flow import (
    CONTROL_FLOW_OPS,
    BitcastConvertOp,
    CaseOp,
    CustomCallOp,
    IfOp,
    OptimizationBarrierOp,
    RngBitGeneratorOp,
    WhileOp,
)
from .convolution import ConvDimensionNumbersAttr, ConvolutionOp
from .elementwise import (
    BINARY_ELEMENTWISE_OPS,
    REDUCTION_OPS,
    UNARY_ELEMENTWISE_OPS,
    AbsOp,
    AddOp,
    AndOp,
    Atan2Op,
    BinaryElementwiseOp,
    CbrtOp,
    CeilOp,
    ClampOp,
    CommutativeBinaryOp,
    CompareOp,
    ConvertOp,
    CosineOp,
    CountLeadingZerosOp,
    DivOp,
    Expm1Op,
    ExpOp,
    FloorOp,
    IsFiniteOp,
    Log1pOp,
    LogisticOp,
    LogOp,
    MaxOp,
    MinOp,
    MulOp,
    NegOp,
    NotOp,
    OrOp,
    PopulationCountOp,
    PowOp,
    RemOp,
    RoundNearestAfzOp,
    RoundNearestEvenOp,
    RsqrtOp,
    SelectOp,
    ShiftLeftOp,
    ShiftRightArithmeticOp,
    ShiftRightLogicalOp,
    SignOp,
    SineOp,
    SqrtOp,
    SubtractOp,
    TanhOp,
    TanOp,
    UnaryElementwiseOp,
    XorOp,
)
from .gather_scatter import GatherOp, ScatterOp
from .plain import constant_array, plain_attrs
from .reduction import DotGeneralOp, ReduceOp, ReturnOp
from .shape import (
    SHAPE_OPS,
    BroadcastInDimOp,
    ConcatenateOp,
    DynamicSliceOp,
    DynamicUpdateSliceOp,
    PadOp,
    ReshapeOp,
    ReverseOp,
    SliceOp,
    TransposeOp,
)
from .sort import SortOp
from .unsupported import UNSUPPORTED_OPS
from .windows import ReduceWindowOp, SelectAndScatterOp

# JAX writes -inf as dense<0xFF800000>; xDSL 0.74 misreads that without this.
_xdsl_fixes.install()
_xdsl_speedups.install()
_xdsl_verify_speedups.install()

StableHLO = Dialect(
    "stablehlo",
    [
        ConstantOp,
        IotaOp,
        *UNARY_ELEMENTWISE_OPS,
        IsFiniteOp,
        *BINARY_ELEMENTWISE_OPS,
        ClampOp,
        CompareOp,
        SelectOp,
        *SHAPE_OPS,
        DotGeneralOp,
        ReduceOp,
        ReturnOp,
        GatherOp,
        ScatterOp,
        ConvolutionOp,
        ReduceWindowOp,
        SelectAndScatterOp,
        SortOp,
        *UNSUPPORTED_OPS,
        *COMPLEX_OPS,
        *COLLECTIVE_OPS,
        PartitionIdOp,
        *CONTROL_FLOW_OPS,
    ],
    [
        ChannelHandleAttr,
        ComparisonDirectionAttr,
        ComparisonTypeAttr,
        PrecisionAttr,
        DotAlgorithmAttr,
        DotDimensionNumbersAttr,
        GatherDimensionNumbersAttr,
        ScatterDimensionNumbersAttr,
        ConvDimensionNumbersAttr,
        RngAlgorithmAttr,
        *COMPLEX_ATTRS,
    ],
)

__all__ = [
    "BINARY_ELEMENTWISE_OPS",
    "COLLECTIVE_OPS",
    "COMPLEX_OPS",
    "CONTROL_FLOW_OPS",
    "REDUCTION_OPS",
    "UNARY_ELEMENTWISE_OPS",
    "UNSUPPORTED_OPS",
    "AbsOp",
    "AddOp",
    "AllGatherOp",
    "AllReduceOp",
    "AllToAllOp",
    "AndOp",
    "Atan2Op",
    "BinaryElementwiseOp",
    "BitcastConvertOp",
    "BroadcastInDimOp",
    "CaseOp",
    "CbrtOp",
    "CeilOp",
    "ChannelHandleAttr",
    "ClampOp",
    "CollectivePermuteOp",
    "CommutativeBinaryOp",
    "CompareOp",
    "ComparisonDirection",
    "ComparisonDirectionAttr",
    "ComparisonType",
    "ComparisonTypeAttr",
    "ComplexOp",
    "ConcatenateOp",
    "ConstantOp",
    "ConvDimensionNumbersAttr",
    "ConvertOp",
    "ConvolutionOp",
    "CosineOp",
    "CountLeadingZerosOp",
    "CustomCallOp",
    "DivOp",
    "DotAlgorithmAttr",
    "DotDimensionNumbersAttr",
    "DotGeneralOp",
    "DynamicSliceOp",
    "DynamicUpdateSliceOp",
    "Elementwise",
    "ExpOp",
    "Expm1Op",
    "FftOp",
    "FloorOp",
    "GatherDimensionNumbersAttr",
    "GatherOp",
    "IfOp",
    "ImagOp",
    "IotaOp",
    "IsFiniteOp",
    "Log1pOp",
    "LogOp",
    "LogisticOp",
    "MaxOp",
    "MinOp",
    "MulOp",
    "NegOp",
    "NotOp",
    "OptimizationBarrierOp",
    "OrOp",
    "PadOp",
    "PartitionIdOp",
    "PopulationCountOp",
    "PowOp",
    "Precision",
    "PrecisionAttr",
    "RealOp",
    "ReduceOp",
    "ReduceScatterOp",
    "ReduceWindowOp",
    "RemOp",
    "ReshapeOp",
    "ReturnOp",
    "ReverseOp",
    "RngAlgorithmAttr",
    "RngBitGeneratorOp",
    "RoundNearestAfzOp",
    "RoundNearestEvenOp",
    "RsqrtOp",
    "ScatterDimensionNumbersAttr",
    "ScatterOp",
    "SelectAndScatterOp",
    "SelectOp",
    "ShiftLeftOp",
    "ShiftRightArithmeticOp",
    "ShiftRightLogicalOp",
    "SignOp",
    "SineOp",
    "SliceOp",
    "SortOp",
    "SqrtOp",
    "StableHLO",
    "SubtractOp",
    "TanOp",
    "TanhOp",
    "TransposeOp",
    "UnaryElementwiseOp",
    "WhileOp",
    "XorOp",
    "constant_array",
    "plain_attrs",
]
