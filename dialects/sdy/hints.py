"""Shardy's propagation hints: ops and an attribute that steer its propagation.

::

    %1 = sdy.propagation_barrier %0 allowed_direction=BACKWARD : tensor<8xf32>
    sdy.sharding_group %0 group_id=21 : tensor<8xf32>
    %2 = sdy.named_computation<"foo">(%0) in_shardings=[<@mesh, [{"b"}]>]
             out_shardings=[<@mesh, [{"a"}]>] (%arg1: tensor<8xf32>) {
      sdy.return %arg1 : tensor<8xf32>
    } : (tensor<8xf32>) -> tensor<8xf32>
    %3 = stablehlo.add %a, %b {sdy.sharding_rule =
             #sdy.op_sharding_rule<([i, j], [i, j])->([i, j]) {i=8, j=16}>} : T

sbpc plans with its own rules and search, so ``sbp-import-sdy`` reads these
for their values only: a barrier is its operand, a sharding group nothing,
a named computation its body inlined (its shardings, where written, cast
the operands and results), and a sharding rule is an attribute kept as it is.
They parse and print as Shardy does, so Shardy's modules read in unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from xdsl import irdl
from xdsl.dialects.builtin import (
    ArrayAttr,
    IntAttr,
    StringAttr,
    TensorType,
)
from xdsl.ir import Attribute, Operation, Region, SSAValue
from xdsl.irdl import IRDLOperation, irdl_attr_definition, irdl_op_definition
from xdsl.parser import AttrParser, Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from .attrs import (
    BodyAttr,
    TensorShardingPerValueAttr,
    parse_sharding_list,
    print_sharding_list,
)
from .bodies import parse_body, print_body

DIRECTIONS = ("BOTH", "FORWARD", "BACKWARD", "NONE")
GROUP_TYPES = ("AS", "OS")


def _parse_tail(
    cls: type[IRDLOperation],
    parser: Parser,
    operand: UnresolvedOperand,
    props: dict[str, Attribute],
    result: bool,
) -> Any:
    """``{attrs} : T`` after an op of one operand (and a result of its type)."""
    attrs = parser.parse_optional_attr_dict()
    parser.parse_punctuation(":")
    t = parser.parse_type()
    (value,) = parser.resolve_operands([operand], [t], parser.pos)
    op = cls(operands=[value], result_types=[t] if result else [], properties=props)
    op.attributes.update(attrs)
    return op


def _print_tail(printer: Printer, op: PropagationBarrierOp | ShardingGroupOp) -> None:
    printer.print_op_attributes(op.attributes)
    printer.print_string(" : ")
    printer.print_attribute(op.input.type)


@irdl_op_definition
class PropagationBarrierOp(IRDLOperation):
    """Shardy's propagation stops here in the directions not allowed; the
    value is the operand's."""

    name = "sdy.propagation_barrier"

    input = irdl.operand_def(TensorType)
    result = irdl.result_def(TensorType)
    allowed_direction = irdl.prop_def(StringAttr)

    def verify_(self) -> None:
        if self.allowed_direction.data not in DIRECTIONS:
            raise VerifyException(
                f"{self.name}: allowed_direction must be one of {', '.join(DIRECTIONS)}"
            )
        if self.input.type != self.result.type:
            raise VerifyException(f"{self.name}: the result type is the operand's")

    @classmethod
    def parse(cls, parser: Parser) -> PropagationBarrierOp:
        operand = parser.parse_unresolved_operand()
        parser.parse_keyword("allowed_direction")
        parser.parse_punctuation("=")
        props = {"allowed_direction": StringAttr(parser.parse_identifier())}
        return _parse_tail(cls, parser, operand, props, result=True)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.input)
        printer.print_string(f" allowed_direction={self.allowed_direction.data}")
        _print_tail(printer, self)


@irdl_op_definition
class ShardingGroupOp(IRDLOperation):
    """Tensors of one group get one sharding in Shardy's propagation."""

    name = "sdy.sharding_group"

    input = irdl.operand_def(TensorType)
    group_id = irdl.prop_def(IntAttr)
    group_type = irdl.opt_prop_def(StringAttr)

    def verify_(self) -> None:
        kind = self.group_type
        if kind is not None and kind.data not in GROUP_TYPES:
            raise VerifyException(
                f"{self.name}: type must be one of {', '.join(GROUP_TYPES)}"
            )

    @classmethod
    def parse(cls, parser: Parser) -> ShardingGroupOp:
        operand = parser.parse_unresolved_operand()
        parser.parse_keyword("group_id")
        parser.parse_punctuation("=")
        props: dict[str, Attribute] = {"group_id": IntAttr(parser.parse_integer())}
        if parser.parse_optional_keyword("type") is not None:
            parser.parse_punctuation("=")
            props["group_type"] = StringAttr(parser.parse_identifier())
        return _parse_tail(cls, parser, operand, props, result=False)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.input)
        printer.print_string(f" group_id={self.group_id.data}")
        if self.group_type is not None:
            printer.print_string(f" type={self.group_type.data}")
        _print_tail(printer, self)


@irdl_op_definition
class NamedComputationOp(IRDLOperation):
    """A named call inlined: the body runs on the operands as they are."""

    name = "sdy.named_computation"

    tensors = irdl.var_operand_def()
    results_ = irdl.var_result_def()
    name_ = irdl.prop_def(StringAttr, prop_name="name")
    in_shardings = irdl.opt_prop_def(TensorShardingPerValueAttr)
    out_shardings = irdl.opt_prop_def(TensorShardingPerValueAttr)
    body = irdl.region_def("single_block")

    def __init__(
        self,
        name: str,
        tensors: Sequence[SSAValue | Operation],
        result_types: Sequence[Attribute],
        body: Region,
        in_shardings: TensorShardingPerValueAttr | None = None,
        out_shardings: TensorShardingPerValueAttr | None = None,
    ) -> None:
        super().__init__(
            operands=[[SSAValue.get(t) for t in tensors]],
            result_types=[list(result_types)],
            properties={
                k: v
                for k, v in (
                    ("name", StringAttr(name)),
                    ("in_shardings", in_shardings),
                    ("out_shardings", out_shardings),
                )
                if v is not None
            },
            regions=[body],
        )

    def verify_(self) -> None:
        where = self.name
        block = self.body.block
        if [a.type for a in block.args] != list(self.tensors.types):
            raise VerifyException(f"{where}: the body's arguments are the operands'")
        last = block.last_op
        values = getattr(last, "values", None)
        if values is None or [v.type for v in values] != list(self.result_types):
            raise VerifyException(
                f"{where}: the body must end in sdy.return of the results' types"
            )
        for what, attr, n in (
            ("in_shardings", self.in_shardings, len(self.tensors)),
            ("out_shardings", self.out_shardings, len(self.results)),
        ):
            if attr is not None and len(attr.shardings.data) != n:
                raise VerifyException(f"{where}: {what} must have {n} shardings")

    @classmethod
    def parse(cls, parser: Parser) -> NamedComputationOp:
        with parser.in_angle_brackets():
            name = parser.parse_str_literal()
        operands = parser.parse_comma_separated_list(
            parser.Delimiter.PAREN, parser.parse_unresolved_operand
        )
        shardings: dict[str, TensorShardingPerValueAttr] = {}
        for key in ("in_shardings", "out_shardings"):
            if parser.parse_optional_keyword(key) is not None:
                parser.parse_punctuation("=")
                shardings[key] = TensorShardingPerValueAttr(parse_sharding_list(parser))
        body, attrs, ftype, values = parse_body(parser, operands)
        op = cls(name, values, ftype.outputs.data, body, **shardings)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f'<"{self.name_.data}">')
        printer.print_operands(self.tensors)
        for key, attr in (
            ("in_shardings", self.in_shardings),
            ("out_shardings", self.out_shardings),
        ):
            if attr is not None:
                printer.print_string(f" {key}=")
                print_sharding_list(printer, attr.shardings.data)
        print_body(printer, self, self.body)


# Factor names, as Shardy prints them: i..z, then z_1, z_2, ...
_FACTOR = re.compile(r"z_\d+|[a-z]")
SPECIAL_FACTORS = (
    "reduction",
    "need_replication",
    "permutation",
    "blocked_propagation",
)


def _factors(text: str) -> list[str]:
    found = _FACTOR.findall(text)
    if "".join(found) != text:
        raise ValueError(f"'{text}' is not a list of factor names")
    return found


@irdl_attr_definition
class OpShardingRuleAttr(BodyAttr):
    """``#sdy.op_sharding_rule<([i, j], [j, k])->([i, k]) {i=8, j=16, k=8}
    reduction={j}, custom>``: how an op's dimensions map to factors.

    Each operand and result is a list of dimensions, each the factors it is
    made of (``ij``: i major, j minor; ``[]``: a rank-0 value)."""

    name = "sdy.op_sharding_rule"

    operands: ArrayAttr[ArrayAttr[StringAttr]]
    results: ArrayAttr[ArrayAttr[StringAttr]]
    factors: ArrayAttr[StringAttr]
    sizes: ArrayAttr[IntAttr]
    special: ArrayAttr[ArrayAttr[StringAttr]]  # [kind, factor, ...] per kind written
    custom: IntAttr

    def verify(self) -> None:
        names = [f.data for f in self.factors.data]
        for side in (self.operands, self.results):
            for tensor in side.data:
                for dim in tensor.data:
                    for f in _factors(dim.data):
                        if f not in names:
                            raise VerifyException(
                                f"{self.name}: factor '{f}' has no size"
                            )

    @classmethod
    def parse_body(cls, parser: AttrParser) -> OpShardingRuleAttr:
        def tensor() -> ArrayAttr[StringAttr]:
            dims = parser.parse_comma_separated_list(
                parser.Delimiter.SQUARE, parser.parse_identifier
            )
            for d in dims:
                try:
                    _factors(d)
                except ValueError as e:
                    parser.raise_error(str(e))
            return ArrayAttr([StringAttr(d) for d in dims])

        def mapping() -> ArrayAttr[ArrayAttr[StringAttr]]:
            return ArrayAttr(
                parser.parse_comma_separated_list(parser.Delimiter.PAREN, tensor)
            )

        operands = mapping()
        parser.parse_punctuation("->")
        results = mapping()

        def size() -> tuple[str, int]:
            name = parser.parse_identifier()
            parser.parse_punctuation("=")
            return name, parser.parse_integer()

        sized = (
            parser.parse_optional_comma_separated_list(parser.Delimiter.BRACES, size)
            or []
        )
        special = []
        for kind in SPECIAL_FACTORS:
            if parser.parse_optional_keyword(kind) is not None:
                parser.parse_punctuation("=")
                names = parser.parse_comma_separated_list(
                    parser.Delimiter.BRACES, parser.parse_identifier
                )
                special.append(ArrayAttr([StringAttr(n) for n in (kind, *names)]))
        custom = parser.parse_optional_punctuation(",") is not None
        if custom:
            parser.parse_keyword("custom")
        return cls(
            operands,
            results,
            ArrayAttr([StringAttr(n) for n, _ in sized]),
            ArrayAttr([IntAttr(s) for _, s in sized]),
            ArrayAttr(special),
            IntAttr(int(custom)),
        )

    def print_body(self, printer: Printer) -> None:
        def mapping(side: ArrayAttr[ArrayAttr[StringAttr]]) -> str:
            tensors = ("[" + ", ".join(d.data for d in t.data) + "]" for t in side.data)
            return "(" + ", ".join(tensors) + ")"

        text = mapping(self.operands) + "->" + mapping(self.results)
        if self.factors.data:
            pairs = zip(self.factors.data, self.sizes.data, strict=True)
            text += " {" + ", ".join(f"{n.data}={s.data}" for n, s in pairs) + "}"
        for kind, *names in (tuple(s.data) for s in self.special.data):
            text += f" {kind.data}={{" + ", ".join(n.data for n in names) + "}"
        if self.custom.data:
            text += ", custom"
        printer.print_string(text)


HINT_OPS = (PropagationBarrierOp, ShardingGroupOp, NamedComputationOp)
