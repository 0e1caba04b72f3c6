"""Order fences written into a function (``sbpc.propagation.order_fences``).

Per fence, just before the allocating op: one ``stablehlo.optimization_barrier``
of the readers' results and the buffers the allocation's fused group reads
(each in its own layout, so the barrier needs no boxing), then the group's
fused ops again, reading the barrier's results, then the allocation.  The
barrier is the identity; XLA may not start the group before the readers
have run.  The fused ops moved are pure: an original another op still
reads stays for it, the others are erased.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from sbpc.algebra.placement import Placement
from sbpc.algebra.sbp import NdSbp
from sbpc.algebra.signature import Signature
from sbpc.dialects import sbp as sbp_dialect
from sbpc.dialects.stablehlo import OptimizationBarrierOp
from sbpc.propagation.graph import SourceNode, ValueId
from sbpc.propagation.liveness import Liveness, Storage
from sbpc.propagation.memory import layouts_of
from sbpc.propagation.order_fences import Fence
from sbpc.propagation.plan import Plan

from .graph import FunctionGraphs

# What a barrier may hold without making XLA store anything it would not:
# buffers of their own and arguments (a view's buffer is its operand's).
_HELD = (Storage.STORED, Storage.ARGUMENT, Storage.VIEW)


def write_fences(
    graphs: FunctionGraphs, placement: Placement, plan: Plan, fences: Sequence[Fence]
) -> int:
    """Write ``fences`` of ``plan`` (on ``placement``) into the function;
    returns how many were written (a fence whose ops are not plain ops of
    one block, a region's or a composite's, is left out)."""
    if not fences:
        return 0
    graph = plan.graph
    ops = dict(graphs.op_nodes[placement])
    values: dict[SSAValue, ValueId] = {}
    for node, op in graphs.op_nodes[placement]:
        for v in graph.nodes[node].results:
            values[op.results[graph.values[v].index]] = v
    args = graphs.function.body.block.args
    for node, i in graphs.arg_nodes[placement]:
        source = graph.nodes[node]
        assert isinstance(source, SourceNode)
        values[args[i]] = source.result
    layouts = layouts_of(graph, plan.options)
    storage = Liveness.of(graph).storage
    written = 0
    for fence in fences:
        if not all(n in ops for n in (*fence.readers, *fence.group)):
            continue
        allocation = ops[fence.allocation]
        block = allocation.parent_block()
        if any(
            ops[n].parent_block() is not block for n in (*fence.readers, *fence.group)
        ):
            continue
        held = [r for n in fence.readers for r in ops[n].results]
        tied = _buffers_read(
            [ops[n] for n in fence.group],
            lambda v: v in values and storage[values[v]] in _HELD,
        )
        fenced = [*held, *(v for v in tied if v not in held)]
        _fence(
            fenced, [layouts[values[v]] for v in fenced], [ops[n] for n in fence.group]
        )
        written += 1
    return written


def _buffers_read(
    group: list[Operation], is_buffer: Callable[[SSAValue], bool]
) -> list[SSAValue]:
    """The buffers (``is_buffer``) that ``group``'s ops read from outside it,
    in order of first read."""
    members = {id(op) for op in group}
    read: list[SSAValue] = []
    for op in group:
        for v in op.operands:
            owner = v.owner
            inside = isinstance(owner, Operation) and id(owner) in members
            if not inside and is_buffer(v) and v not in read:
                read.append(v)
    return read


def _fence(
    fenced: list[SSAValue], layouts: Sequence[NdSbp], group: list[Operation]
) -> None:
    """Make ``group`` (its last op the allocation) read ``fenced`` through one
    barrier just before the allocation, its fused ops moved after it."""
    *fused, allocation = group
    barrier = OptimizationBarrierOp(fenced)
    barrier.location = allocation.location  # the emitted comment names it
    sbp_dialect.set_signature(barrier, Signature(tuple(layouts), tuple(layouts)))
    for v, r in zip(fenced, barrier.results, strict=True):
        r.name_hint = v.name_hint
    Rewriter.insert_op(barrier, InsertPoint.before(allocation))
    mapping: dict[SSAValue, SSAValue] = dict(zip(fenced, barrier.results, strict=True))
    for op in fused:
        if not any(v in mapping for v in op.operands):
            continue  # reads nothing held: stays where it is
        copy = op.clone(value_mapper=dict(mapping))
        Rewriter.insert_op(copy, InsertPoint.before(allocation))
        mapping.update(zip(op.results, copy.results, strict=True))
    for k, v in enumerate(allocation.operands):
        if v in mapping:
            allocation.operands[k] = mapping[v]
    for op in reversed(fused):
        if all(not r.uses for r in op.results):
            Rewriter.erase_op(op)
