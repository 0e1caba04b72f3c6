"""Shardy's ops that JAX 0.10 emits, printed as Shardy prints them.

::

    sdy.mesh @mesh = <["x"=2, "y"=4]> {stablehlo.mesh = {...}}
    %1 = sdy.sharding_constraint %0 <@mesh, [{"x"}, {?}]> : tensor<16x8xf32>
    %2 = sdy.manual_computation(%a, %b) in_shardings=[<@mesh, [{"x"}, {"y"}]>, ...]
             out_shardings=[<@mesh, [{"x"}, {}]>] manual_axes={"x", "y"}
             (%arg2: tensor<8x8xf32>, %arg3: tensor<8x8xf32>) {
      ...
      sdy.return %4 : tensor<8x8xf32>
    } : (tensor<16x32xf32>, tensor<32x8xf32>) -> tensor<16x8xf32>

``sdy.mesh`` and the checks of shardings against it are in ``mesh``.
The formats have Shardy's custom directives (stripped shardings, a region
whose block arguments print before it), so the ops parse and print by hand;
the generic form works as for any xDSL op.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute, Operation, Region, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    VarConstraint,
    base,
    irdl_op_definition,
    lazy_traits_def,
    operand_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import (
    HasParent,
    IsolatedFromAbove,
    IsTerminator,
)
from xdsl.utils.exceptions import VerifyException

from .attrs import (
    ManualAxesAttr,
    TensorShardingAttr,
    TensorShardingPerValueAttr,
    parse_sharding_list,
    print_sharding_list,
)
from .bodies import parse_body, print_body
from .hints import NamedComputationOp
from .mesh import check_rank, check_sharding, local_type


class TensorLayoutOp(IRDLOperation):
    """``%r = sdy.<op> %x <@mesh, [...]> : T``: ``x`` laid out as the
    sharding says (the value is unchanged)."""

    T: ClassVar = VarConstraint("T", base(TensorType))
    input = operand_def(T)
    result = result_def(T)
    sharding = prop_def(TensorShardingAttr)

    assembly_format = "$input $sharding attr-dict `:` type($result)"

    def __init__(self, value: SSAValue | Operation, sharding: TensorShardingAttr):
        value = SSAValue.get(value)
        super().__init__(
            operands=[value],
            result_types=[value.type],
            properties={"sharding": sharding},
        )

    def verify_(self) -> None:
        check_in_module(self, self.sharding, self.result.type)


@irdl_op_definition
class ShardingConstraintOp(TensorLayoutOp):
    """``%r = sdy.sharding_constraint %x <@mesh, [...]> : T``: ``x`` laid out so."""

    name = "sdy.sharding_constraint"


@irdl_op_definition
class ReturnOp(IRDLOperation):
    """``sdy.return %v : T``: ends a manual computation's body."""

    name = "sdy.return"

    values = var_operand_def()

    traits = lazy_traits_def(
        lambda: (IsTerminator(), HasParent(ManualComputationOp, NamedComputationOp))
    )

    def __init__(self, values: Sequence[SSAValue | Operation] = ()) -> None:
        super().__init__(operands=[[SSAValue.get(v) for v in values]])

    @classmethod
    def parse(cls, parser: Parser) -> ReturnOp:
        attrs = parser.parse_optional_attr_dict()
        operands = parser.parse_optional_undelimited_comma_separated_list(
            parser.parse_optional_unresolved_operand, parser.parse_unresolved_operand
        )
        values: list[SSAValue] = []
        if operands:
            parser.parse_punctuation(":")
            types = parser.parse_comma_separated_list(
                parser.Delimiter.NONE, parser.parse_type
            )
            values = list(parser.resolve_operands(operands, types, parser.pos))
        op = cls(values)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_op_attributes(self.attributes)
        if self.values:
            printer.print_string(" ")
            printer.print_list(self.values, printer.print_operand)
            printer.print_string(" : ")
            printer.print_list([v.type for v in self.values], printer.print_attribute)


@irdl_op_definition
class ManualComputationOp(IRDLOperation):
    """Per-device code on ``manual_axes``: the body sees each device's piece.

    ``in_shardings``/``out_shardings`` give the global layouts of the
    operands and results; the body's arguments and ``sdy.return``'s values
    have the local (per-device) types.
    """

    name = "sdy.manual_computation"

    tensors = var_operand_def(TensorType)
    results_ = var_result_def(TensorType)
    in_shardings = prop_def(TensorShardingPerValueAttr)
    out_shardings = prop_def(TensorShardingPerValueAttr)
    manual_axes = prop_def(ManualAxesAttr)
    body = region_def("single_block")

    traits = traits_def(IsolatedFromAbove())

    def __init__(
        self,
        tensors: Sequence[SSAValue | Operation],
        result_types: Sequence[Attribute],
        in_shardings: Sequence[TensorShardingAttr],
        out_shardings: Sequence[TensorShardingAttr],
        manual_axes: Sequence[str],
        body: Region,
    ) -> None:
        super().__init__(
            operands=[[SSAValue.get(t) for t in tensors]],
            result_types=[list(result_types)],
            properties={
                "in_shardings": TensorShardingPerValueAttr(in_shardings),
                "out_shardings": TensorShardingPerValueAttr(out_shardings),
                "manual_axes": ManualAxesAttr(manual_axes),
            },
            regions=[body],
        )

    def verify_(self) -> None:
        ins = self.in_shardings.shardings.data
        outs = self.out_shardings.shardings.data
        where = "sdy.manual_computation"
        if len(ins) != len(self.tensors):
            raise VerifyException(
                f"{where}: {len(ins)} in_shardings for {len(self.tensors)} operands"
            )
        if len(outs) != len(self.results):
            raise VerifyException(
                f"{where}: {len(outs)} out_shardings for {len(self.results)} results"
            )
        for s, v in zip(ins, self.tensors, strict=True):
            check_rank(s, v.type, where)
            _check_mesh(self, s, v.type, where)
        for s, r in zip(outs, self.results, strict=True):
            check_rank(s, r.type, where)
            _check_mesh(self, s, r.type, where)
        block = self.body.block
        if len(block.args) != len(self.tensors):
            raise VerifyException(
                f"{where}: the body takes {len(block.args)} arguments for "
                f"{len(self.tensors)} operands"
            )
        last = block.last_op
        if not isinstance(last, ReturnOp) or len(last.values) != len(self.results):
            raise VerifyException(
                f"{where}: the body must end in sdy.return of one value per result"
            )
        manual = set(self.manual_axes.names)
        for what, shardings, globals_, locals_ in (
            ("argument", ins, self.tensors, block.args),
            ("returned value", outs, self.results, last.values),
        ):
            for i, (s, g, v) in enumerate(
                zip(shardings, globals_, locals_, strict=True)
            ):
                want = local_type(self, s, g.type, manual)
                if want is not None and want != v.type:
                    raise VerifyException(
                        f"{where}: body {what} #{i} is {v.type}, its global "
                        f"{g.type} under {s} gives {want} per device"
                    )

    @classmethod
    def parse(cls, parser: Parser) -> ManualComputationOp:
        operands = parser.parse_comma_separated_list(
            parser.Delimiter.PAREN, parser.parse_unresolved_operand
        )
        parser.parse_keyword("in_shardings")
        parser.parse_punctuation("=")
        ins = parse_sharding_list(parser)
        parser.parse_keyword("out_shardings")
        parser.parse_punctuation("=")
        outs = parse_sharding_list(parser)
        parser.parse_keyword("manual_axes")
        parser.parse_punctuation("=")
        axes = ManualAxesAttr.parse_body(parser)
        body, attrs, ftype, values = parse_body(parser, operands)
        op = cls(values, ftype.outputs.data, ins, outs, axes.names, body)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_operands(self.tensors)
        printer.print_string(" in_shardings=")
        print_sharding_list(printer, self.in_shardings.shardings.data)
        printer.print_string(" out_shardings=")
        print_sharding_list(printer, self.out_shardings.shardings.data)
        printer.print_string(" manual_axes=")
        self.manual_axes.print_body(printer)
        print_body(printer, self, self.body)


def _check_mesh(
    op: Operation, sharding: TensorShardingAttr, t: Attribute, where: str
) -> None:
    """The sharding against its mesh, once the op sits in a module."""
    if op.parent_op() is not None:
        check_sharding(op, sharding, t, where)


def check_in_module(op: Operation, s: TensorShardingAttr, t: Attribute) -> None:
    """``s`` against its mesh and ``t``; and no axis a manual parent binds."""
    check_rank(s, t, op.name)
    if op.parent_op() is None:
        return
    check_sharding(op, s, t, op.name)
    parent = op.parent_op()
    while parent is not None:
        if isinstance(parent, ManualComputationOp):
            manual = set(parent.manual_axes.names)
            refs = [r for d in s.dims.data for r in d.axes.data]
            refs += [*s.replicated.data, *s.unreduced.data]
            for r in refs:
                if r.axis.data in manual:
                    raise VerifyException(
                        f'{op.name}: operates on axis "{r.axis.data}" which is '
                        "already bound by a parent sdy.manual_computation op"
                    )
        parent = parent.parent_op()


__all__ = [
    "ManualComputationOp",
    "ReturnOp",
    "ShardingConstraintOp",
    "TensorLayoutOp",
    "check_in_module",
]
