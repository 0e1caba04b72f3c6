"""A function's top-level ops as ``sbpc.pipeline.function.Function``.

The pipeline's analyses (microbatches, stages) run on plain data; this reads
it off the IR and remembers which op and SSA value each node and value id
is, so the pass can write the answers back and locate errors.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects import func
from xdsl.ir import Operation, SSAValue

from sbpc.dialects import sbp as sbp_dialect
from sbpc.pipeline.function import Function, Node

from .ops import UnsupportedTypeError, is_tensor_op, op_label, op_spec_of, plain_type
from .regions import REGION_OPS


@dataclass
class ReadFunction:
    """``function`` with its IR: ``ops[n]`` is node ``n``, ``values[v]`` value ``v``."""

    function: Function
    ops: list[Operation]
    values: list[SSAValue]
    ids: dict[SSAValue, int] = field(default_factory=dict)
    ret: func.ReturnOp | None = None


def read_function(f: func.FuncOp) -> ReadFunction:
    """Node per top-level op (the return excepted), value ids in definition order."""
    values: list[SSAValue] = []
    ids: dict[SSAValue, int] = {}

    def new(v: SSAValue) -> int:
        ids[v] = len(values)
        values.append(v)
        return ids[v]

    args = tuple(new(a) for a in f.args)
    nodes: list[Node] = []
    ops: list[Operation] = []
    ret: func.ReturnOp | None = None
    for op in f.body.block.ops:
        if isinstance(op, func.ReturnOp):
            ret = op
            continue
        operands = tuple(ids[v] for v in op.operands if v in ids)
        results = tuple(new(r) for r in op.results)
        nodes.append(
            Node(
                _spec(op),
                operands,
                results,
                op_label(op),
                identity=isinstance(op, sbp_dialect.CastOp),
            )
        )
        ops.append(op)
    types = {}
    for v, value in enumerate(values):
        try:
            types[v] = plain_type(value.type)
        except UnsupportedTypeError:
            continue  # tokens and the like: never split over microbatches
    returns = tuple(ids[v] for v in ret.operands) if ret is not None else ()
    return ReadFunction(Function(args, nodes, returns, types), ops, values, ids, ret)


def _spec(op: Operation):
    """The op's spec, None for region ops and ops not on tensors."""
    if isinstance(op, (*REGION_OPS, sbp_dialect.CastOp)) or not is_tensor_op(op):
        return None
    try:
        return op_spec_of(op)
    except UnsupportedTypeError:
        return None
