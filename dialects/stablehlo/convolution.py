"""``stablehlo.convolution`` and its dimension numbers, as JAX 0.10.2 prints them.

Pretty form (``jax.jit(f).lower(...).as_text()`` for ``lax.conv_general_dilated``
and its gradients)::

    %0 = stablehlo.convolution(%x, %w)
           dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f],
           window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1],
                     rhs_dilate = [1, 1], reverse = [false, false]}
           {batch_group_count = 1 : i64, feature_group_count = 1 : i64,
            precision_config = [#stablehlo<precision DEFAULT>, ...]}
           : (tensor<2x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<2x8x8x4xf32>

Generic form: the same as ``<{...}>`` properties, with the dimension numbers
as ``#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>``.  The window
entries and the precision config are optional (StableHLO's defaults: stride
and dilations 1, no padding, no reversal); the printer writes the ones the op
has, in StableHLO's order, so JAX's text prints back byte for byte.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    IntAttr,
    IntegerAttr,
    TensorType,
    i1,
    i64,
)
from xdsl.ir import Attribute, ParametrizedAttribute
from xdsl.irdl import (
    irdl_attr_definition,
    irdl_op_definition,
    opt_prop_def,
    prop_def,
    traits_def,
)
from xdsl.parser import AttrParser, Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from .attrs import (
    i64_array,
    i64_array_prop,
    int_array_attr,
    int_tuple,
    int_view,
    ints_view,
)
from .base import PrecisionConfigOp, check_result_shape, shape_of
from .syntax import (
    dims_text,
    parse_fields,
    parse_int_list,
    print_functional_type,
    resolve_operands,
)


@irdl_attr_definition
class ConvDimensionNumbersAttr(ParametrizedAttribute):
    """``#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>``.

    Each bracket lists a tensor's dimensions in order, naming each: ``b``
    batch, ``f`` feature (input and output), ``i``/``o`` kernel input/output
    feature, a number the spatial dimension it is.
    """

    name = "stablehlo.conv"

    input_batch_dimension_attr: IntAttr
    input_feature_dimension_attr: IntAttr
    input_spatial_dimensions_attr: ArrayAttr[IntAttr]
    kernel_input_feature_dimension_attr: IntAttr
    kernel_output_feature_dimension_attr: IntAttr
    kernel_spatial_dimensions_attr: ArrayAttr[IntAttr]
    output_batch_dimension_attr: IntAttr
    output_feature_dimension_attr: IntAttr
    output_spatial_dimensions_attr: ArrayAttr[IntAttr]

    @classmethod
    def get(
        cls,
        input_batch: int,
        input_feature: int,
        input_spatial: Sequence[int],
        kernel_input_feature: int,
        kernel_output_feature: int,
        kernel_spatial: Sequence[int],
        output_batch: int,
        output_feature: int,
        output_spatial: Sequence[int],
    ) -> ConvDimensionNumbersAttr:
        return cls(
            IntAttr(input_batch),
            IntAttr(input_feature),
            int_array_attr(input_spatial),
            IntAttr(kernel_input_feature),
            IntAttr(kernel_output_feature),
            int_array_attr(kernel_spatial),
            IntAttr(output_batch),
            IntAttr(output_feature),
            int_array_attr(output_spatial),
        )

    input_batch_dimension = int_view("input_batch_dimension_attr")
    input_feature_dimension = int_view("input_feature_dimension_attr")
    input_spatial_dimensions = ints_view("input_spatial_dimensions_attr")
    kernel_input_feature_dimension = int_view("kernel_input_feature_dimension_attr")
    kernel_output_feature_dimension = int_view("kernel_output_feature_dimension_attr")
    kernel_spatial_dimensions = ints_view("kernel_spatial_dimensions_attr")
    output_batch_dimension = int_view("output_batch_dimension_attr")
    output_feature_dimension = int_view("output_feature_dimension_attr")
    output_spatial_dimensions = ints_view("output_spatial_dimensions_attr")

    def plain(self) -> dict[str, int | tuple[int, ...]]:
        """The nine fields under StableHLO's names, as plain values."""
        return {
            "input_batch_dimension": self.input_batch_dimension,
            "input_feature_dimension": self.input_feature_dimension,
            "input_spatial_dimensions": self.input_spatial_dimensions,
            "kernel_input_feature_dimension": self.kernel_input_feature_dimension,
            "kernel_output_feature_dimension": self.kernel_output_feature_dimension,
            "kernel_spatial_dimensions": self.kernel_spatial_dimensions,
            "output_batch_dimension": self.output_batch_dimension,
            "output_feature_dimension": self.output_feature_dimension,
            "output_spatial_dimensions": self.output_spatial_dimensions,
        }

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        parser.parse_punctuation("<")
        numbers = parse_conv_dimensions(parser)
        parser.parse_punctuation(">")
        return list(numbers.parameters)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{conv_dimensions_text(self)}>")


def _parse_dim_list(
    parser: AttrParser, labels: tuple[str, str]
) -> tuple[dict[str, int], dict[int, int]]:
    """``[b, 0, 1, f]``: the positions of the two labels and of each spatial dim."""
    named: dict[str, int] = {}
    spatial: dict[int, int] = {}

    def entry() -> None:
        pos = parser.pos
        position = len(named) + len(spatial)
        number = parser.parse_optional_integer(allow_boolean=False)
        if number is not None:
            if number in spatial:
                parser.raise_error(f"duplicate spatial dimension {number}", pos)
            spatial[number] = position
            return
        label = parser.parse_identifier()
        if label not in labels:
            parser.raise_error(
                f"expected a spatial dimension number or one of "
                f"{', '.join(repr(x) for x in labels)}, got '{label}'",
                pos,
            )
        if label in named:
            parser.raise_error(f"duplicate '{label}' dimension", pos)
        named[label] = position

    start = parser.pos
    parser.parse_comma_separated_list(parser.Delimiter.SQUARE, entry)
    for label in labels:
        if label not in named:
            parser.raise_error(f"missing '{label}' dimension", start, parser.pos)
    if sorted(spatial) != list(range(len(spatial))):
        parser.raise_error(
            "spatial dimensions must be numbered 0 to n-1", start, parser.pos
        )
    return named, spatial


def parse_conv_dimensions(parser: AttrParser) -> ConvDimensionNumbersAttr:
    """``[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]``."""
    lhs, lhs_spatial = _parse_dim_list(parser, ("b", "f"))
    parser.parse_keyword("x")
    rhs, rhs_spatial = _parse_dim_list(parser, ("i", "o"))
    parser.parse_punctuation("->")
    out, out_spatial = _parse_dim_list(parser, ("b", "f"))
    if not len(lhs_spatial) == len(rhs_spatial) == len(out_spatial):
        parser.raise_error(
            "input, kernel and output need the same number of spatial dimensions"
        )

    def ordered(spatial: dict[int, int]) -> list[int]:
        return [spatial[k] for k in range(len(spatial))]

    return ConvDimensionNumbersAttr.get(
        lhs["b"],
        lhs["f"],
        ordered(lhs_spatial),
        rhs["i"],
        rhs["o"],
        ordered(rhs_spatial),
        out["b"],
        out["f"],
        ordered(out_spatial),
    )


def _dim_list_text(rank: int, named: dict[int, str], spatial: Sequence[int]) -> str:
    labels = dict(named)
    for k, d in enumerate(spatial):
        labels[d] = str(k)
    return "[" + ", ".join(labels.get(d, "?") for d in range(rank)) + "]"


def conv_dimensions_text(n: ConvDimensionNumbersAttr) -> str:
    rank = len(n.input_spatial_dimensions) + 2
    lhs = _dim_list_text(
        rank,
        {n.input_batch_dimension: "b", n.input_feature_dimension: "f"},
        n.input_spatial_dimensions,
    )
    rhs = _dim_list_text(
        rank,
        {n.kernel_input_feature_dimension: "i", n.kernel_output_feature_dimension: "o"},
        n.kernel_spatial_dimensions,
    )
    out = _dim_list_text(
        rank,
        {n.output_batch_dimension: "b", n.output_feature_dimension: "f"},
        n.output_spatial_dimensions,
    )
    return f"{lhs}x{rhs}->{out}"


def padding_attr(pairs: Sequence[tuple[int, int]]) -> DenseIntOrFPElementsAttr:
    """``dense<[[lo, hi], ...]> : tensor<Nx2xi64>``."""
    flat = [int(v) for pair in pairs for v in pair]
    return DenseIntOrFPElementsAttr.from_list(TensorType(i64, [len(pairs), 2]), flat)


def padding_pairs(attr: DenseIntOrFPElementsAttr | None) -> tuple[tuple[int, int], ...]:
    """The (low, high) pairs of a padding attribute; () when absent."""
    if attr is None:
        return ()
    values = [int(v) for v in attr.get_values()]  # a splat comes expanded
    return tuple((values[2 * k], values[2 * k + 1]) for k in range(len(values) // 2))


def bool_array(values: Sequence[bool]) -> DenseArrayBase:
    """``array<i1: false, true>``."""
    return DenseArrayBase.from_list(i1, tuple(1 if v else 0 for v in values))


def bool_tuple(attr: DenseArrayBase | None) -> tuple[bool, ...]:
    return () if attr is None else tuple(bool(v) for v in attr.get_values())


# The properties the pretty form prints in its attribute dictionary.
_DICT_PROPS = ("batch_group_count", "feature_group_count", "precision_config")
_WINDOW = (
    ("stride", "window_strides"),
    ("pad", "padding"),
    ("lhs_dilate", "lhs_dilation"),
    ("rhs_dilate", "rhs_dilation"),
    ("reverse", "window_reversal"),
)


def conv_output_shape(
    lhs: Sequence[int],
    rhs: Sequence[int],
    n: ConvDimensionNumbersAttr,
    strides: Sequence[int],
    padding: Sequence[tuple[int, int]],
    lhs_dilation: Sequence[int],
    rhs_dilation: Sequence[int],
    batch_group_count: int,
) -> tuple[int, ...]:
    """The spec's shape rule (every window list has one entry per spatial dim)."""
    rank = len(lhs)
    shape = [0] * rank
    shape[n.output_batch_dimension] = lhs[n.input_batch_dimension] // batch_group_count
    shape[n.output_feature_dimension] = rhs[n.kernel_output_feature_dimension]
    for k, (ld, rd, od) in enumerate(
        zip(
            n.input_spatial_dimensions,
            n.kernel_spatial_dimensions,
            n.output_spatial_dimensions,
            strict=True,
        )
    ):
        dilated = (lhs[ld] - 1) * lhs_dilation[k] + 1 if lhs[ld] else 0
        padded = dilated + padding[k][0] + padding[k][1]
        window = (rhs[rd] - 1) * rhs_dilation[k] + 1 if rhs[rd] else 0
        shape[od] = 0 if padded < window else (padded - window) // strides[k] + 1
    return tuple(shape)


def _ones(op: ConvolutionOp) -> tuple[int, ...]:
    """An absent stride or dilation: 1 for every spatial dimension."""
    return (1,) * op.spatial_rank


@irdl_op_definition
class ConvolutionOp(PrecisionConfigOp):
    """``stablehlo.convolution``: ``lax.conv_general_dilated`` and its gradients.

    Feature groups split the input features and the kernel's output features
    into ``feature_group_count`` groups convolved separately (depthwise when
    each group has one input feature); batch groups do the same with the
    input batch (the weight gradient of a grouped convolution).
    """

    name = "stablehlo.convolution"

    window_strides_attr = i64_array_prop("window_strides", optional=True)
    padding_attr = opt_prop_def(DenseIntOrFPElementsAttr, prop_name="padding")
    lhs_dilation_attr = i64_array_prop("lhs_dilation", optional=True)
    rhs_dilation_attr = i64_array_prop("rhs_dilation", optional=True)
    window_reversal_attr = opt_prop_def(
        DenseArrayBase.constr(i1), prop_name="window_reversal"
    )
    dimension_numbers = prop_def(ConvDimensionNumbersAttr)
    feature_group_count_attr = prop_def(IntegerAttr, prop_name="feature_group_count")
    batch_group_count_attr = prop_def(IntegerAttr, prop_name="batch_group_count")

    traits = traits_def(Pure())

    # -- plain accessors (defaults filled in) --

    @property
    def spatial_rank(self) -> int:
        return len(self.dimension_numbers.input_spatial_dimensions)

    window_strides = ints_view("window_strides_attr", default=_ones)

    @property
    def padding(self) -> tuple[tuple[int, int], ...]:
        attr = self.padding_attr
        if attr is None:
            return ((0, 0),) * self.spatial_rank
        return padding_pairs(attr)

    lhs_dilation = ints_view("lhs_dilation_attr", default=_ones)
    rhs_dilation = ints_view("rhs_dilation_attr", default=_ones)

    @property
    def window_reversal(self) -> tuple[bool, ...]:
        attr = self.window_reversal_attr
        return bool_tuple(attr) if attr is not None else (False,) * self.spatial_rank

    feature_group_count = int_view("feature_group_count_attr")
    batch_group_count = int_view("batch_group_count_attr")

    def plain_attrs(self) -> dict[str, object]:
        """Attributes as plain values (``sbpc.ops.convolution`` documents them)."""
        attrs: dict[str, object] = dict(self.dimension_numbers.plain())
        attrs.update(
            window_strides=self.window_strides,
            padding=self.padding,
            lhs_dilation=self.lhs_dilation,
            rhs_dilation=self.rhs_dilation,
            window_reversal=self.window_reversal,
            feature_group_count=self.feature_group_count,
            batch_group_count=self.batch_group_count,
        )
        if self.precision is not None:
            attrs["precision"] = self.precision
        return attrs

    # -- pretty syntax --

    @classmethod
    def parse(cls, parser: Parser) -> ConvolutionOp:
        operands: list[UnresolvedOperand] = parser.parse_comma_separated_list(
            parser.Delimiter.PAREN, parser.parse_unresolved_operand
        )
        parser.parse_keyword("dim_numbers")
        parser.parse_punctuation("=")
        props: dict[str, Attribute] = {
            "dimension_numbers": parse_conv_dimensions(parser)
        }
        if parser.parse_optional_punctuation(",") is not None:
            parser.parse_keyword("window")
            parser.parse_punctuation("=")
            props.update(_parse_window(parser))
        attributes = parser.parse_optional_attr_dict()
        for key in _DICT_PROPS:
            if key in attributes:
                props[key] = attributes.pop(key)
        parser.parse_punctuation(":")
        pos = parser.pos
        function = parser.parse_function_type()
        if len(function.inputs.data) != 2 or len(function.outputs.data) != 1:
            parser.raise_error(
                "stablehlo.convolution: expected (lhs type, rhs type) -> result type",
                pos,
            )
        lhs, rhs = resolve_operands(parser, operands, function.inputs.data)
        return cls.build(
            operands=[lhs, rhs],
            result_types=[function.outputs.data[0]],
            properties=props,
            attributes=attributes,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string("(")
        printer.print_operand(self.lhs)
        printer.print_string(", ")
        printer.print_operand(self.rhs)
        printer.print_string(") dim_numbers = ")
        printer.print_string(conv_dimensions_text(self.dimension_numbers))
        window = []
        for key, prop in _WINDOW:
            attr = self.properties.get(prop)
            if attr is None:
                continue
            if prop == "padding":
                pairs = padding_pairs(cast(DenseIntOrFPElementsAttr, attr))
                text = "[" + ", ".join(f"[{a}, {b}]" for a, b in pairs) + "]"
            elif prop == "window_reversal":
                flags = bool_tuple(cast(DenseArrayBase, attr))
                text = "[" + ", ".join("true" if f else "false" for f in flags) + "]"
            else:
                text = dims_text(int_tuple(cast(DenseArrayBase, attr)))
            window.append(f"{key} = {text}")
        if window:
            printer.print_string(", window = {" + ", ".join(window) + "}")
        shown = {k: self.properties[k] for k in _DICT_PROPS if k in self.properties}
        shown.update(self.attributes)
        if shown:
            printer.print_string(" ")
            printer.print_attr_dict(shown)
        print_functional_type(printer, self)

    # -- verification --

    def verify_(self) -> None:
        name = self.name
        n = self.dimension_numbers
        lhs, rhs, out = shape_of(self.lhs), shape_of(self.rhs), shape_of(self.result)
        k = self.spatial_rank
        for what, rank in (("lhs", len(lhs)), ("rhs", len(rhs)), ("result", len(out))):
            if rank != k + 2:
                raise VerifyException(
                    f"{name}: {what} has rank {rank}, the dimension numbers "
                    f"describe rank {k + 2}"
                )
        for what, dims in (
            (
                "input",
                (
                    n.input_batch_dimension,
                    n.input_feature_dimension,
                    *n.input_spatial_dimensions,
                ),
            ),
            (
                "kernel",
                (
                    n.kernel_input_feature_dimension,
                    n.kernel_output_feature_dimension,
                    *n.kernel_spatial_dimensions,
                ),
            ),
            (
                "output",
                (
                    n.output_batch_dimension,
                    n.output_feature_dimension,
                    *n.output_spatial_dimensions,
                ),
            ),
        ):
            if sorted(dims) != list(range(k + 2)):
                raise VerifyException(
                    f"{name}: {what} dimension numbers {dims_text(dims)} are not a "
                    f"permutation of 0..{k + 1}"
                )
        for key, values in (
            ("window_strides", self.window_strides),
            ("padding", self.padding),
            ("lhs_dilation", self.lhs_dilation),
            ("rhs_dilation", self.rhs_dilation),
            ("window_reversal", self.window_reversal),
        ):
            if len(values) != k:
                raise VerifyException(
                    f"{name}: {key} has {len(values)} entries, expected {k} "
                    "(one per spatial dimension)"
                )
        for key, values in (
            ("window_strides", self.window_strides),
            ("lhs_dilation", self.lhs_dilation),
            ("rhs_dilation", self.rhs_dilation),
        ):
            if any(v < 1 for v in values):
                raise VerifyException(f"{name}: {key} must be positive, got {values}")
        fgc, bgc = self.feature_group_count, self.batch_group_count
        if fgc < 1 or bgc < 1:
            raise VerifyException(f"{name}: group counts must be positive")
        if fgc > 1 and bgc > 1:
            raise VerifyException(
                f"{name}: feature_group_count and batch_group_count cannot both "
                "exceed 1"
            )
        in_features = lhs[n.input_feature_dimension]
        kernel_in = rhs[n.kernel_input_feature_dimension]
        kernel_out = rhs[n.kernel_output_feature_dimension]
        if in_features % fgc or in_features // fgc != kernel_in:
            raise VerifyException(
                f"{name}: input features ({in_features}) must be "
                f"feature_group_count ({fgc}) x kernel input features ({kernel_in})"
            )
        if kernel_out % fgc or kernel_out % bgc:
            raise VerifyException(
                f"{name}: kernel output features ({kernel_out}) must be a multiple "
                "of the group counts"
            )
        if lhs[n.input_batch_dimension] % bgc:
            raise VerifyException(
                f"{name}: input batch ({lhs[n.input_batch_dimension]}) must be a "
                f"multiple of batch_group_count ({bgc})"
            )
        self.verify_precision_config()
        expected = conv_output_shape(
            lhs,
            rhs,
            n,
            self.window_strides,
            self.padding,
            self.lhs_dilation,
            self.rhs_dilation,
            bgc,
        )
        check_result_shape(self, self.result, expected)


def _parse_window(parser: Parser) -> dict[str, Attribute]:
    """``{stride = [..], pad = [[lo, hi], ..], lhs_dilate = [..], ...}``."""
    props = dict(_WINDOW)

    def value(key: str) -> Attribute:
        pos = parser.pos
        if key == "pad":
            pairs = parser.parse_comma_separated_list(
                parser.Delimiter.SQUARE, lambda: tuple(parse_int_list(parser))
            )
            if any(len(p) != 2 for p in pairs):
                parser.raise_error("each pad entry must be [low, high]", pos)
            return padding_attr(pairs)
        if key == "reverse":
            flags = parser.parse_comma_separated_list(
                parser.Delimiter.SQUARE, parser.parse_boolean
            )
            return bool_array(flags)
        return i64_array(parse_int_list(parser))

    values = parse_fields(
        parser, parser.Delimiter.BRACES, props, value, "window attribute"
    )
    return {props[k]: v for k, v in values.items()}
