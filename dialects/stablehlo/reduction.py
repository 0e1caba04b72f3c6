"""StableHLO's contractions and reductions: ``dot_general``, ``reduce`` and the
``return`` that ends reduce (and scatter) bodies.

``dot_general`` and ``return`` use StableHLO's declarative formats (with the
``DotDimensionNumbers`` and ``PrecisionConfigAndAlgorithm`` directives
defined here); ``reduce`` keeps a hand-written parser and printer, as
StableHLO's own does, for its two spellings (the ``applies`` short form and
the ``reducer`` region).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from xdsl.dialects.builtin import ArrayAttr, TensorType
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    SameVariadicOperandSize,
    irdl_op_definition,
    opt_prop_def,
    prop_def,
    region_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.irdl.declarative_assembly_format import (
    AttributeVariable,
    CustomDirective,
    ParsingState,
    PrintingState,
    irdl_custom_directive,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import IsTerminator, Pure, RecursiveMemoryEffect
from xdsl.utils.exceptions import VerifyException

from .attrs import (
    DotAlgorithmAttr,
    DotDimensionNumbersAttr,
    Precision,
    PrecisionAttr,
    i64_array,
    i64_array_prop,
    ints_view,
    plain_views,
)
from .base import (
    PrecisionConfigOp,
    check_body_args,
    check_return,
    check_unique_in_range,
    element_type,
    shape_of,
)
from .elementwise import (
    REDUCTION_KINDS,
    REDUCTION_OPS,
    BinaryElementwiseOp,
    CommutativeBinaryOp,
)
from .syntax import (
    dims_text,
    parse_int_list,
    parse_keyword_list,
    print_attr_dict,
    print_functional_type,
    print_int_list,
    resolve_operands,
)

# --------------------------------------------------------------------------
# dot_general
# --------------------------------------------------------------------------


@irdl_custom_directive
class DotDimensionNumbers(CustomDirective):
    """``custom<DotDimensionNumbers>($dot_dimension_numbers)``:
    ``batching_dims = [0] x [0], contracting_dims = [2] x [1]`` (no batching
    part when both lists are empty)."""

    dot_dimension_numbers: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        def lhs_rhs() -> tuple[list[int], list[int]]:
            parser.parse_punctuation("=")
            left = parse_int_list(parser)
            parser.parse_keyword("x")
            return left, parse_int_list(parser)

        lhs_batch: list[int] = []
        rhs_batch: list[int] = []
        if parser.parse_optional_keyword("batching_dims") is not None:
            lhs_batch, rhs_batch = lhs_rhs()
            parser.parse_punctuation(",")
        parser.parse_keyword("contracting_dims")
        lhs_contract, rhs_contract = lhs_rhs()
        numbers = DotDimensionNumbersAttr.get(
            lhs_batch, rhs_batch, lhs_contract, rhs_contract
        )
        self.dot_dimension_numbers.set(state, numbers)

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        numbers = self.dot_dimension_numbers.get(op)
        assert isinstance(numbers, DotDimensionNumbersAttr)
        state.print_whitespace(printer)
        lb, rb = numbers.lhs_batching_dimensions, numbers.rhs_batching_dimensions
        if lb or rb:
            printer.print_string(f"batching_dims = {dims_text(lb)} x {dims_text(rb)}, ")
        lc, rc = numbers.lhs_contracting_dimensions, numbers.rhs_contracting_dimensions
        printer.print_string(f"contracting_dims = {dims_text(lc)} x {dims_text(rc)}")


@irdl_custom_directive
class PrecisionConfigAndAlgorithm(CustomDirective):
    """``custom<PrecisionConfigAndAlgorithm>($precision_config, $algorithm)``:
    ``, precision = [DEFAULT, HIGH]`` when a precision config is present.

    then ``, algorithm = <lhs_precision_type = bf16, ...>`` (the body of a
    ``#stablehlo.dot_algorithm``) when the op has one, as JAX prints it.
    """

    precision_config: AttributeVariable
    algorithm: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        while parser.parse_optional_punctuation(",") is not None:
            pos = parser.pos
            if parser.parse_optional_keyword("precision") is not None:
                parser.parse_punctuation("=")
                precision = parser.parse_comma_separated_list(
                    parser.Delimiter.SQUARE, lambda: parser.parse_str_enum(Precision)
                )
                config = ArrayAttr(PrecisionAttr(p) for p in precision)
                self.precision_config.set(state, config)
            elif parser.parse_optional_keyword("algorithm") is not None:
                parser.parse_punctuation("=")
                params = DotAlgorithmAttr.parse_parameters(parser)
                self.algorithm.set(state, DotAlgorithmAttr(*params))
            else:
                parser.raise_error("expected 'precision' or 'algorithm'", pos)

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        config = self.precision_config.get(op)
        if isinstance(config, ArrayAttr):
            names = (cast(PrecisionAttr, p).data.value for p in config.data)
            printer.print_string(", precision = [" + ", ".join(names) + "]")
        algorithm = self.algorithm.get(op)
        if isinstance(algorithm, DotAlgorithmAttr):
            printer.print_string(", algorithm = ")
            algorithm.print_parameters(printer)


def dot_result_shape(
    lhs: Sequence[int], rhs: Sequence[int], numbers: DotDimensionNumbersAttr
) -> tuple[int, ...]:
    """Batch dimensions, then lhs free, then rhs free (each in operand order)."""
    lb, lc = numbers.lhs_batching_dimensions, numbers.lhs_contracting_dimensions
    rb, rc = numbers.rhs_batching_dimensions, numbers.rhs_contracting_dimensions
    batch = tuple(lhs[d] for d in lb if 0 <= d < len(lhs))
    lhs_free = tuple(s for d, s in enumerate(lhs) if d not in lb and d not in lc)
    rhs_free = tuple(s for d, s in enumerate(rhs) if d not in rb and d not in rc)
    return batch + lhs_free + rhs_free


def _numbers_view(field: str) -> property:
    """A dimension list of the op's ``dot_dimension_numbers``."""
    return property(lambda op: getattr(op.dot_dimension_numbers, field))


@irdl_op_definition
class DotGeneralOp(PrecisionConfigOp):
    """``stablehlo.dot_general %a, %b, batching_dims = [0] x [0],
    contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (A, B) -> R``.

    The result dimensions are the batch dimensions, then the lhs free
    dimensions, then the rhs free dimensions (each in operand order).
    """

    name = "stablehlo.dot_general"

    dot_dimension_numbers = prop_def(DotDimensionNumbersAttr)
    algorithm = opt_prop_def(DotAlgorithmAttr)

    traits = traits_def(Pure())

    assembly_format = (
        "$lhs `,` $rhs `,` custom<DotDimensionNumbers>($dot_dimension_numbers) "
        "custom<PrecisionConfigAndAlgorithm>($precision_config, $algorithm) "
        "attr-dict `:` functional-type(operands, results)"
    )
    custom_directives = (DotDimensionNumbers, PrecisionConfigAndAlgorithm)

    def __init__(
        self,
        lhs: SSAValue | Operation,
        rhs: SSAValue | Operation,
        dot_dimension_numbers: DotDimensionNumbersAttr,
        result_type: Attribute | None = None,
        precision: Sequence[str | Precision] | None = None,
        attributes: dict[str, Attribute] | None = None,
    ):
        lhs, rhs = SSAValue.get(lhs), SSAValue.get(rhs)
        if result_type is None:
            result_type = TensorType(
                element_type(lhs),
                dot_result_shape(shape_of(lhs), shape_of(rhs), dot_dimension_numbers),
            )
        properties = {"dot_dimension_numbers": dot_dimension_numbers}
        self._build(lhs, rhs, result_type, properties, precision, attributes)

    lhs_batching_dimensions = _numbers_view("lhs_batching_dimensions")
    rhs_batching_dimensions = _numbers_view("rhs_batching_dimensions")
    lhs_contracting_dimensions = _numbers_view("lhs_contracting_dimensions")
    rhs_contracting_dimensions = _numbers_view("rhs_contracting_dimensions")

    @property
    def lhs_free_dimensions(self) -> tuple[int, ...]:
        """Lhs dimensions neither batching nor contracting, in order."""
        used = set(self.lhs_batching_dimensions) | set(self.lhs_contracting_dimensions)
        return tuple(d for d in range(len(shape_of(self.lhs))) if d not in used)

    @property
    def rhs_free_dimensions(self) -> tuple[int, ...]:
        """Rhs dimensions neither batching nor contracting, in order."""
        used = set(self.rhs_batching_dimensions) | set(self.rhs_contracting_dimensions)
        return tuple(d for d in range(len(shape_of(self.rhs))) if d not in used)

    def plain_attrs(self) -> dict[str, object]:
        attrs: dict[str, object] = dict(self.dot_dimension_numbers.plain())
        if self.precision is not None:
            attrs["precision"] = self.precision
        if self.algorithm is not None:
            attrs["algorithm"] = self.algorithm.plain()
        return attrs

    def verify_(self) -> None:
        lhs_shape, rhs_shape = shape_of(self.lhs), shape_of(self.rhs)
        lb, rb = self.lhs_batching_dimensions, self.rhs_batching_dimensions
        lc, rc = self.lhs_contracting_dimensions, self.rhs_contracting_dimensions
        if len(lb) != len(rb):
            raise VerifyException(
                f"{self.name}: lhs and rhs have different numbers of batching "
                f"dimensions: {len(lb)} vs {len(rb)}"
            )
        if len(lc) != len(rc):
            raise VerifyException(
                f"{self.name}: lhs and rhs have different numbers of contracting "
                f"dimensions: {len(lc)} vs {len(rc)}"
            )
        for side, dims, rank in (
            ("lhs", lb + lc, len(lhs_shape)),
            ("rhs", rb + rc, len(rhs_shape)),
        ):
            check_unique_in_range(
                self.name, f"{side} batching/contracting dimension", dims, rank
            )
        for kind, ldims, rdims in (("batching", lb, rb), ("contracting", lc, rc)):
            for ld, rd in zip(ldims, rdims, strict=True):
                if lhs_shape[ld] != rhs_shape[rd]:
                    raise VerifyException(
                        f"{self.name}: {kind} dimension sizes differ: "
                        f"{lhs_shape[ld]} vs {rhs_shape[rd]}"
                    )
        self.verify_precision_config()
        if self.algorithm is not None and any(
            p != "DEFAULT" for p in self.precision or ()
        ):
            raise VerifyException(
                f"{self.name}: precision_config must be DEFAULT when an "
                "algorithm is given (the algorithm says the precision)"
            )
        expected = dot_result_shape(lhs_shape, rhs_shape, self.dot_dimension_numbers)
        if shape_of(self.result) != expected:
            raise VerifyException(
                f"{self.name}: result shape {dims_text(shape_of(self.result))} should "
                f"be {dims_text(expected)} (batch, lhs free, rhs free dimensions)"
            )


# --------------------------------------------------------------------------
# Bodies
# --------------------------------------------------------------------------


@irdl_op_definition
class ReturnOp(IRDLOperation):
    """``stablehlo.return %a, %b : T, U`` -- terminator of reduce bodies."""

    name = "stablehlo.return"

    values = var_operand_def(TensorType)

    traits = traits_def(Pure(), IsTerminator())

    assembly_format = "$values attr-dict (`:` type($values)^)?"

    def __init__(
        self,
        values: Sequence[SSAValue | Operation] = (),
        attributes: dict[str, Attribute] | None = None,
    ):
        super().__init__(operands=[list(values)], attributes=attributes)


def binary_combiner(region: Region) -> Operation | None:
    """The single op of a two-argument body that is just ``return op(a, b)``."""
    block = region.blocks.first
    if block is None or len(block.ops) != 2 or len(block.args) != 2:
        return None
    inner, ret = block.first_op, block.last_op
    assert inner is not None and ret is not None
    if not isinstance(ret, ReturnOp) or len(inner.results) != 1:
        return None
    # x op acc is the same reduction as acc op x for the ops we name.
    if tuple(inner.operands) not in (tuple(block.args), tuple(block.args)[::-1]):
        return None
    if tuple(ret.operands) != tuple(inner.results):
        return None
    return inner


def combiner_kind(region: Region) -> str | None:
    """``add``/``mul``/``max``/``min``/``and``/``or``/``xor`` when ``region`` is
    just ``return op(a, b)`` of that commutative binary op, else None."""
    return REDUCTION_KINDS.get(type(binary_combiner(region)))


def combiner_body(kind: str, scalar: TensorType) -> Region:
    """A two-argument body returning ``REDUCTION_OPS[kind](arg0, arg1)``."""
    block = Block(arg_types=[scalar, scalar])
    combiner = REDUCTION_OPS[kind](block.args[0], block.args[1], result_type=scalar)
    block.add_ops([combiner, ReturnOp([combiner.result])])
    return Region(block)


# --------------------------------------------------------------------------
# reduce
# --------------------------------------------------------------------------


@irdl_op_definition
class ReduceOp(IRDLOperation):
    """Reduces ``inputs`` over ``dimensions`` with the body from ``init_values``.

    Short form when the body is one commutative binary op::

        %r = stablehlo.reduce(%x init: %c) applies stablehlo.add across
             dimensions = [1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>

    otherwise the body prints after ``reducer(...)`` pairs. Body block arguments
    are the N accumulators then the N elements (N = number of inputs).
    """

    name = "stablehlo.reduce"

    inputs = var_operand_def(TensorType)
    init_values = var_operand_def(TensorType)
    results_ = var_result_def(TensorType)
    dimensions_attr = i64_array_prop("dimensions")
    body = region_def("single_block")

    irdl_options = (SameVariadicOperandSize(),)
    traits = traits_def(RecursiveMemoryEffect())

    def __init__(
        self,
        inputs: Sequence[SSAValue | Operation],
        init_values: Sequence[SSAValue | Operation],
        dimensions: Sequence[int],
        body: Region,
        result_types: Sequence[Attribute] | None = None,
        attributes: dict[str, Attribute] | None = None,
    ):
        inputs = [SSAValue.get(v) for v in inputs]
        init_values = [SSAValue.get(v) for v in init_values]
        if result_types is None:
            result_types = [
                TensorType(
                    element_type(init),
                    [s for d, s in enumerate(shape_of(x)) if d not in dimensions],
                )
                for x, init in zip(inputs, init_values, strict=True)
            ]
        super().__init__(
            operands=[inputs, init_values],
            result_types=[list(result_types)],
            properties={"dimensions": i64_array(dimensions)},
            regions=[body],
            attributes=attributes,
        )

    @classmethod
    def of_kind(
        cls,
        kind: str,
        input: SSAValue | Operation,
        init_value: SSAValue | Operation,
        dimensions: Sequence[int],
        result_type: Attribute | None = None,
    ) -> ReduceOp:
        """A single-input reduction whose body is ``REDUCTION_OPS[kind]``."""
        init_value = SSAValue.get(init_value)
        scalar = TensorType(element_type(init_value), [])
        return cls(
            [input],
            [init_value],
            dimensions,
            combiner_body(kind, scalar),
            None if result_type is None else [result_type],
        )

    dimensions = ints_view("dimensions_attr")

    def plain_attrs(self) -> dict[str, object]:
        return {**plain_views(self), "kind": self.reduction_kind}

    @property
    def combiner(self) -> Operation | None:
        """The body's single binary op, when the body is just ``return op(acc, x)``."""
        return binary_combiner(self.body)

    @property
    def reduction_kind(self) -> str | None:
        """``add``/``mul``/``max``/``min``/``and``/``or``/``xor``, or None.

        None when the body is anything but one of those commutative binary ops
        applied to the two block arguments (e.g. argmax's two-input body).
        """
        return combiner_kind(self.body)

    def _compact_op(self) -> Operation | None:
        """The inner op when StableHLO prints the ``applies`` short form."""
        block = self.body.blocks.first
        if block is None or len(block.ops) != 2:
            return None
        inner, ret = block.first_op, block.last_op
        assert inner is not None and ret is not None
        if not isinstance(inner, CommutativeBinaryOp):
            return None
        if not all(t == inner.result.type for t in inner.operand_types):
            return None
        if not self.inputs:
            return None
        if inner.lhs.type != TensorType(element_type(self.inputs[0]), []):
            return None
        if tuple(block.args) != tuple(inner.operands):
            return None
        if ret.name.split(".")[-1] != "return":
            return None
        if tuple(ret.operands) != tuple(inner.results):
            return None
        return inner

    @classmethod
    def parse(cls, parser: Parser) -> ReduceOp:
        inputs: list[UnresolvedOperand] = []
        inits: list[UnresolvedOperand] = []

        def pair() -> None:
            inputs.append(parser.parse_unresolved_operand())
            parser.parse_keyword("init")
            parser.parse_punctuation(":")
            inits.append(parser.parse_unresolved_operand())

        parser.parse_comma_separated_list(parser.Delimiter.PAREN, pair)
        while parser.parse_optional_punctuation(",") is not None:
            parser.parse_punctuation("(")
            pair()
            parser.parse_punctuation(")")

        combiner: type[BinaryElementwiseOp] | None = None
        if parser.parse_optional_keyword("applies") is not None:
            pos = parser.pos
            op_name = parser.parse_identifier()
            op_type = parser.ctx.get_optional_op(op_name)
            if op_type is None or not issubclass(op_type, CommutativeBinaryOp):
                parser.raise_error(
                    "expected the inner-op to be a commutative binary-op from the "
                    "stablehlo dialect, with zero region, producing single result",
                    pos,
                )
            combiner = op_type
        parser.parse_keyword("across")
        dims = parse_keyword_list(parser, "dimensions")
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        pos = parser.pos
        function = parser.parse_function_type()
        if not function.inputs.data:
            parser.raise_error("input types missing in reduce-op function type", pos)
        values = resolve_operands(parser, inputs + inits, function.inputs.data)
        n = len(inputs)

        if combiner is not None:
            scalar = TensorType(element_type(function.inputs.data[0]), [])
            block = Block(arg_types=[scalar, scalar])
            inner = combiner(block.args[0], block.args[1], result_type=scalar)
            block.add_ops([inner, ReturnOp([inner.result])])
            body = Region(block)
        else:
            parser.parse_keyword("reducer")
            firsts: list[Parser.Argument] = []
            seconds: list[Parser.Argument] = []
            while parser.parse_optional_punctuation("(") is not None:
                firsts.append(parser.parse_argument())
                parser.parse_punctuation(",")
                seconds.append(parser.parse_argument())
                parser.parse_punctuation(")")
            body = parser.parse_region(firsts + seconds)
        return cls(
            values[:n], values[n:], dims, body, function.outputs.data, attributes
        )

    def print(self, printer: Printer) -> None:
        n = len(self.inputs)
        for i in range(n):
            if i:
                printer.print_string(", ")
            printer.print_string("(")
            printer.print_operand(self.inputs[i])
            printer.print_string(" init: ")
            printer.print_operand(self.init_values[i])
            printer.print_string(")")
        compact = self._compact_op()
        if compact is not None:
            printer.print_string(f" applies {compact.name}")
        printer.print_string(" across dimensions = ")
        print_int_list(printer, self.dimensions)
        print_attr_dict(printer, self)
        print_functional_type(printer, self)
        if compact is not None:
            return
        printer.print_string("\n reducer")
        block = self.body.blocks.first
        args = block.args if block is not None else ()
        # Pairs (arg i, arg i + N); invalid IR with other arities prints none.
        for i in range(n if len(args) == 2 * n else 0):
            printer.print_string("(")
            printer.print_block_argument(args[i])
            printer.print_string(", ")
            printer.print_block_argument(args[i + n])
            printer.print_string(") ")
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False)

    def verify_(self) -> None:
        n = len(self.inputs)
        if n == 0:
            raise VerifyException(f"{self.name}: expects at least one input")
        if len(self.init_values) != n or len(self.results_) != n:
            raise VerifyException(
                f"{self.name}: expects as many init values and results as inputs"
            )
        shape = shape_of(self.inputs[0])
        for i, value in enumerate(self.inputs):
            if shape_of(value) != shape:
                raise VerifyException(
                    f"{self.name}: input {i} has shape {dims_text(shape_of(value))}, "
                    f"input 0 has {dims_text(shape)}"
                )
        dims = self.dimensions
        check_unique_in_range(self.name, "dimension", dims, len(shape))
        expected = tuple(s for d, s in enumerate(shape) if d not in dims)
        for i, (init, result) in enumerate(
            zip(self.init_values, self.results_, strict=True)
        ):
            if shape_of(init) != ():
                raise VerifyException(
                    f"{self.name}: init value {i} must be rank 0, got {init.type}"
                )
            if shape_of(result) != expected:
                raise VerifyException(
                    f"{self.name}: result {i} has shape {dims_text(shape_of(result))}, "
                    f"expected {dims_text(expected)} after reducing dimensions "
                    f"{dims_text(dims)}"
                )
            if element_type(result) != element_type(init):
                raise VerifyException(
                    f"{self.name}: result {i} element type differs from its init "
                    f"value's: {result.type} vs {init.type}"
                )
        block = self.body.blocks.first
        assert block is not None
        if len(block.args) != 2 * n:
            raise VerifyException(
                f"{self.name}: body must take {2 * n} arguments, "
                f"takes {len(block.args)}"
            )
        check_body_args(self, block)
        check_return(self, block, n)
