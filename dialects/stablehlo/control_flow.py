"""StableHLO's control flow and the ops around it that JAX emits for real
training code: ``while`` (``lax.scan``, ``fori_loop``, ``while_loop``, the
threefry hash), ``case``/``if`` (``lax.cond``/``lax.switch``),
``optimization_barrier`` (``jax.checkpoint``, ``nn.remat``),
``bitcast_convert`` (``jax.random``'s bits to floats),
``rng_bit_generator`` and ``custom_call``.

``while`` prints as StableHLO's C++ does (``stablehlo.while(%iterArg = %x)
: T cond {...} do {...}``, the condition and the body sharing the names of
the carried values); ``case`` and ``if`` have no custom syntax in StableHLO
and print in the generic form, as JAX prints them.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    ArrayAttr,
    BoolAttr,
    IntegerAttr,
    StringAttr,
    TensorType,
    i1,
    i32,
)
from xdsl.ir import (
    Attribute,
    Operation,
    Region,
    SSAValue,
)
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_region_def,
    var_result_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import Pure, RecursiveMemoryEffect
from xdsl.utils.exceptions import VerifyException

from sbpc.algebra.tensor_type import ELEMENT_BYTES

from .attrs import RngAlgorithm, RngAlgorithmAttr
from .base import TensorOp, element_type, shape_of
from .reduction import ReturnOp
from .syntax import parse_operand_types, print_attr_dict, resolve_operands


def _terminator_types(region: Region) -> tuple[Attribute, ...] | None:
    """Types the region's ``stablehlo.return`` yields (None: no such return)."""
    block = region.blocks.first
    if block is None or not isinstance(block.last_op, ReturnOp):
        return None
    return tuple(v.type for v in block.last_op.operands)


class _RegionOp(IRDLOperation):
    """An op that runs its regions; its results are what they yield."""

    results_ = var_result_def(TensorType)

    traits = traits_def(RecursiveMemoryEffect())

    def _check_yields(self, region: Region, what: str) -> None:
        """``region`` (the ``what``) yields the results' types."""
        if _terminator_types(region) != tuple(self.result_types):
            raise VerifyException(
                f"{self.name}: {what} must end in stablehlo.return of the "
                "results' types"
            )


# --------------------------------------------------------------------------
# while
# --------------------------------------------------------------------------


@irdl_op_definition
class WhileOp(_RegionOp):
    """``%r:2 = stablehlo.while(%iterArg = %a, %iterArg_0 = %b) : T, U
    cond { ... stablehlo.return %p : tensor<i1> } do { ... stablehlo.return %x, %y }``

    The carried values enter both regions as block arguments; ``cond``
    yields one ``tensor<i1>``, ``do`` yields the next carried values.
    """

    name = "stablehlo.while"

    operand = var_operand_def(TensorType)
    cond = region_def("single_block")
    body = region_def("single_block")

    def __init__(
        self,
        operands: Sequence[SSAValue | Operation],
        cond: Region,
        body: Region,
        attributes: dict[str, Attribute] | None = None,
    ):
        values = [SSAValue.get(v) for v in operands]
        super().__init__(
            operands=[values],
            result_types=[[v.type for v in values]],
            regions=[cond, body],
            attributes=attributes,
        )

    @classmethod
    def parse(cls, parser: Parser) -> WhileOp:
        names: list[Parser.UnresolvedArgument] = []
        operands: list[UnresolvedOperand] = []

        def pair() -> None:
            names.append(parser.parse_argument(expect_type=False))
            parser.parse_punctuation("=")
            operands.append(parser.parse_unresolved_operand())

        parser.parse_comma_separated_list(parser.Delimiter.PAREN, pair)
        values: list[SSAValue] = []
        if operands:
            parser.parse_punctuation(":")
            values = parse_operand_types(
                parser, operands, f"{cls.name}: {len(operands)} carried values"
            )
        types = [v.type for v in values]
        attributes = parser.parse_optional_attr_dict_with_keyword()
        parser.parse_keyword("cond")
        cond = parser.parse_region(
            [n.resolve(t) for n, t in zip(names, types, strict=True)]
        )
        parser.parse_keyword("do")
        body = parser.parse_region(
            [n.resolve(t) for n, t in zip(names, types, strict=True)]
        )
        return cls(values, cond, body, dict(attributes.data) if attributes else None)

    def print(self, printer: Printer) -> None:
        printer.print_string("(")
        cond_block = self.cond.blocks.first
        body_block = self.body.blocks.first
        assert cond_block is not None and body_block is not None
        for i, operand in enumerate(self.operand):
            if i:
                printer.print_string(", ")
            name = printer.print_ssa_value(body_block.args[i])
            # The condition's arguments are the same carried values: one name.
            if i < len(cond_block.args):
                printer._ssa_values[cond_block.args[i]] = name
            printer.print_string(" = ")
            printer.print_operand(operand)
        printer.print_string(")")
        if self.operand:
            printer.print_string(" : ")
            printer.print_list(self.operand.types, printer.print_attribute)
        if self.attributes:
            printer.print_string(" attributes")
            print_attr_dict(printer, self)
        printer.print_string("\n")
        printer.print_string("cond ", indent=0)
        printer.print_region(self.cond, print_entry_block_args=False)
        printer.print_string(" do ")
        printer.print_region(self.body, print_entry_block_args=False)

    def verify_(self) -> None:
        types = tuple(self.operand.types)
        if tuple(self.result_types) != types:
            raise VerifyException(
                f"{self.name}: results must have the carried values' types"
            )
        for what, region in (("cond", self.cond), ("body", self.body)):
            block = region.blocks.first
            assert block is not None
            if tuple(a.type for a in block.args) != types:
                raise VerifyException(
                    f"{self.name}: the {what} region's arguments must have the "
                    "carried values' types"
                )
        if _terminator_types(self.body) != types:
            raise VerifyException(
                f"{self.name}: the body must end in stablehlo.return of the "
                "carried values' types"
            )
        cond_out = _terminator_types(self.cond)
        if cond_out is None or len(cond_out) != 1 or cond_out[0] != TensorType(i1, []):
            raise VerifyException(
                f"{self.name}: the cond region must end in stablehlo.return of "
                "one tensor<i1>"
            )


# --------------------------------------------------------------------------
# case and if
# --------------------------------------------------------------------------


@irdl_op_definition
class CaseOp(_RegionOp):
    """``"stablehlo.case"(%index) ({...}, {...}) : (tensor<i32>) -> T``: runs
    branch ``index`` (the last one when out of range); every branch yields
    the results' types."""

    name = "stablehlo.case"

    index = operand_def(TensorType)
    branches = var_region_def("single_block")

    def verify_(self) -> None:
        if self.index.type != TensorType(i32, []):
            raise VerifyException(f"{self.name}: the index must be a tensor<i32>")
        if not self.branches:
            raise VerifyException(f"{self.name}: expects at least one branch")
        for k, region in enumerate(self.branches):
            self._check_yields(region, f"branch {k}")
            block = region.blocks.first
            if block is not None and block.args:
                raise VerifyException(f"{self.name}: branches take no arguments")


@irdl_op_definition
class IfOp(_RegionOp):
    """``"stablehlo.if"(%pred) ({...}, {...}) : (tensor<i1>) -> T``: the
    first branch when ``pred`` is true, else the second."""

    name = "stablehlo.if"

    pred = operand_def(TensorType)
    true_branch = region_def("single_block")
    false_branch = region_def("single_block")

    @property
    def branches(self) -> tuple[Region, Region]:
        """In ``case`` order: index 0 is the false branch, 1 the true one."""
        return (self.false_branch, self.true_branch)

    def verify_(self) -> None:
        if self.pred.type != TensorType(i1, []):
            raise VerifyException(f"{self.name}: the predicate must be a tensor<i1>")
        for what, region in (("true", self.true_branch), ("false", self.false_branch)):
            self._check_yields(region, f"the {what} branch")


# --------------------------------------------------------------------------
# optimization_barrier
# --------------------------------------------------------------------------


@irdl_op_definition
class OptimizationBarrierOp(IRDLOperation):
    """``%r:2 = stablehlo.optimization_barrier %a, %b : T, U``: the identity,
    which the compiler may not move computations across (rematerialisation
    keeps its recomputation after it)."""

    name = "stablehlo.optimization_barrier"

    operand = var_operand_def(TensorType)
    results_ = var_result_def(TensorType)

    traits = traits_def(Pure())

    def __init__(
        self,
        operands: Sequence[SSAValue | Operation],
        attributes: dict[str, Attribute] | None = None,
    ):
        values = [SSAValue.get(v) for v in operands]
        super().__init__(
            operands=[values],
            result_types=[[v.type for v in values]],
            attributes=attributes,
        )

    @classmethod
    def parse(cls, parser: Parser) -> OptimizationBarrierOp:
        # StableHLO writes the attributes first; sbpc has printed them after.
        attributes = parser.parse_optional_attr_dict()
        if parser.parse_optional_punctuation("(") is not None:
            parser.parse_punctuation(")")
            attributes |= parser.parse_optional_attr_dict()
            return cls([], attributes)
        operands = parser.parse_comma_separated_list(
            parser.Delimiter.NONE, parser.parse_unresolved_operand
        )
        attributes |= parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        what = f"{cls.name}: {len(operands)} operands"
        return cls(parse_operand_types(parser, operands, what), attributes)

    def print(self, printer: Printer) -> None:
        if not self.operand:
            printer.print_string("()")
            print_attr_dict(printer, self)
            return
        printer.print_string(" ")
        printer.print_list(self.operand, printer.print_operand)
        print_attr_dict(printer, self)
        printer.print_string(" : ")
        printer.print_list(self.operand.types, printer.print_attribute)

    def verify_(self) -> None:
        if tuple(self.operand.types) != tuple(self.result_types):
            raise VerifyException(f"{self.name}: results must have the operands' types")


# --------------------------------------------------------------------------
# bitcast_convert
# --------------------------------------------------------------------------


@irdl_op_definition
class BitcastConvertOp(TensorOp):
    """``%f = stablehlo.bitcast_convert %u : (tensor<4xui32>) -> tensor<4xf32>``:
    the same bits read as another element type (same width: elementwise)."""

    name = "stablehlo.bitcast_convert"

    assembly_format = "$operand attr-dict `:` functional-type(operands, results)"

    def verify_(self) -> None:
        src, dst = element_type(self.operand), element_type(self.result)
        src_bytes = ELEMENT_BYTES.get(str(src))
        dst_bytes = ELEMENT_BYTES.get(str(dst))
        if src_bytes is None or dst_bytes is None:
            return
        if src_bytes == dst_bytes:
            if shape_of(self.operand) != shape_of(self.result):
                raise VerifyException(
                    f"{self.name}: same-width conversion must keep the shape"
                )
        elif src_bytes > dst_bytes:
            want = (*shape_of(self.operand), src_bytes // dst_bytes)
            if shape_of(self.result) != want:
                raise VerifyException(
                    f"{self.name}: a narrowing conversion adds a last dimension "
                    f"of {src_bytes // dst_bytes}"
                )
        elif shape_of(self.operand) != (*shape_of(self.result), dst_bytes // src_bytes):
            raise VerifyException(
                f"{self.name}: a widening conversion drops a last dimension of "
                f"{dst_bytes // src_bytes}"
            )


# --------------------------------------------------------------------------
# rng_bit_generator
# --------------------------------------------------------------------------


@irdl_op_definition
class RngBitGeneratorOp(IRDLOperation):
    """``%s, %bits = stablehlo.rng_bit_generator %state, algorithm = DEFAULT
    : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4xui32>)``: the backend's
    own generator (``jax.random`` with the ``rbg`` implementations)."""

    name = "stablehlo.rng_bit_generator"

    initial_state = operand_def(TensorType)
    output_state = result_def(TensorType)
    output = result_def(TensorType)
    rng_algorithm = prop_def(RngAlgorithmAttr)

    traits = traits_def(Pure())

    def __init__(
        self,
        state: SSAValue | Operation,
        algorithm: RngAlgorithm,
        output_type: Attribute,
    ):
        state = SSAValue.get(state)
        super().__init__(
            operands=[state],
            result_types=[state.type, output_type],
            properties={"rng_algorithm": RngAlgorithmAttr(algorithm)},
        )

    def plain_attrs(self) -> dict[str, object]:
        """The algorithm's name (``DEFAULT``, ``THREE_FRY``, ``PHILOX``)."""
        return {"rng_algorithm": str(self.rng_algorithm.data)}

    @classmethod
    def parse(cls, parser: Parser) -> RngBitGeneratorOp:
        state = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        parser.parse_keyword("algorithm")
        parser.parse_punctuation("=")
        algorithm = RngAlgorithmAttr.parse_parameter(parser)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        function = parser.parse_function_type()
        if len(function.inputs.data) != 1 or len(function.outputs.data) != 2:
            parser.raise_error(
                "stablehlo.rng_bit_generator: expects (state) -> (state, bits)"
            )
        (value,) = resolve_operands(parser, [state], function.inputs.data)
        op = cls(value, algorithm, function.outputs.data[1])
        op.attributes.update(attributes)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.initial_state)
        printer.print_string(f", algorithm = {self.rng_algorithm.data}")
        print_attr_dict(printer, self)
        printer.print_string(" : ")
        printer.print_function_type(self.operand_types, self.result_types)


# --------------------------------------------------------------------------
# custom_call
# --------------------------------------------------------------------------


# Properties custom_call may carry besides its target (the pretty form writes
# them in its attribute dictionary).
_CUSTOM_CALL_PROPS = (
    "has_side_effect",
    "backend_config",
    "api_version",
    "called_computations",
    "operand_layouts",
    "result_layouts",
    "output_operand_aliases",
)


@irdl_op_definition
class CustomCallOp(IRDLOperation):
    """``%r = stablehlo.custom_call @target(%a) {...} : (T) -> R``: a call into
    the backend that sbpc cannot see into (it gets no SBP rule; propagation
    names the target when it cannot keep it on one device)."""

    name = "stablehlo.custom_call"

    inputs = var_operand_def()
    results_ = var_result_def()
    call_target_name = prop_def(StringAttr)
    has_side_effect = opt_prop_def(BoolAttr)
    backend_config = opt_prop_def(Attribute)
    api_version = opt_prop_def(IntegerAttr)
    called_computations = opt_prop_def(ArrayAttr)
    operand_layouts = opt_prop_def(ArrayAttr)
    result_layouts = opt_prop_def(ArrayAttr)
    output_operand_aliases = opt_prop_def(ArrayAttr)

    traits = traits_def()

    def __init__(
        self,
        target: str,
        inputs: Sequence[SSAValue | Operation],
        result_types: Sequence[Attribute],
        properties: dict[str, Attribute] | None = None,
        attributes: dict[str, Attribute] | None = None,
    ):
        props: dict[str, Attribute] = {"call_target_name": StringAttr(target)}
        props.update(properties or {})
        super().__init__(
            operands=[list(inputs)],
            result_types=[list(result_types)],
            properties=props,
            attributes=attributes,
        )

    @property
    def target(self) -> str:
        return self.call_target_name.data

    @classmethod
    def parse(cls, parser: Parser) -> CustomCallOp:
        target = parser.parse_symbol_name().data
        operands = parser.parse_comma_separated_list(
            parser.Delimiter.PAREN, parser.parse_unresolved_operand
        )
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        function = parser.parse_function_type()
        values = resolve_operands(parser, operands, function.inputs.data)
        props = {k: attrs.pop(k) for k in list(attrs) if k in _CUSTOM_CALL_PROPS}
        return cls(target, values, function.outputs.data, props, attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(f" @{self.target}(")
        printer.print_list(self.inputs, printer.print_operand)
        printer.print_string(")")
        shown = {k: v for k, v in self.properties.items() if k != "call_target_name"}
        shown.update(self.attributes)
        if shown:
            printer.print_op_attributes(shown)
        printer.print_string(" : ")
        printer.print_function_type(self.operand_types, self.result_types)


CONTROL_FLOW_OPS: tuple[type[IRDLOperation], ...] = (
    WhileOp,
    CaseOp,
    IfOp,
    OptimizationBarrierOp,
    BitcastConvertOp,
    RngBitGeneratorOp,
    CustomCallOp,
)

__all__ = [
    "CONTROL_FLOW_OPS",
    "BitcastConvertOp",
    "CaseOp",
    "CustomCallOp",
    "IfOp",
    "OptimizationBarrierOp",
    "RngBitGeneratorOp",
    "WhileOp",
]
