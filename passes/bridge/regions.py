"""Region ops as propagation-graph nodes: ``while``, ``case``/``if``, barriers.

The body of a region is planned *once*, in the same graph as the function
(so greedy, bfs and optimal all see it), with costs weighted by how often it
runs:

* ``while``: each carried value is a node ``carry #i`` whose options are the
  identity signatures ``(L) -> (L)``; its value is the loop's entry (an edge
  from the initial value), both regions' block argument and the loop's
  result, so the carried value has one layout throughout.  The body's
  ops follow (compute and boxing weighted by the trip count), then one
  ``yield #i`` node per carried value with operands ``(yielded, carry #i)``
  and options ``(L, L) -> ()``: the edge from the yielded value prices the
  boxing that restores ``L`` at the end of the body, the *tied* edge from
  the carry forces the same ``L`` (any other choice is infinite).  The
  condition's ops run ``trips + 1`` times and its predicate must be ``B``
  (every device must agree to stop).
* ``case``/``if``: the index (predicate) must be ``B``; each result is a
  ``result #j`` node after the branches whose operands are the branches'
  yields of it and whose options are ``(L, ..., L) -> (L)``: every branch
  delivers one layout.
* ``optimization_barrier``: one identity node per operand (layouts pass
  through, each operand on its own).

Edges are weighted by where their boxing runs: right after the value's
definition (``sbp-lower-boxing``), so a value defined outside a loop and used
inside is boxed once, outside.  The trip count is read from the counted form
JAX emits for ``scan``/``fori_loop`` (``i < N`` on a counter starting at a
constant and stepping by 1), else it is ``sbp-propagate{trip_count=N}``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from xdsl.ir import Operation, Region, SSAValue

from sbpc.algebra.placement import Placement
from sbpc.algebra.sbp import B, NdSbp
from sbpc.algebra.signature import Signature
from sbpc.boxing.planner import candidate_layouts
from sbpc.dialects.diagnostics import LocatedError
from sbpc.dialects.stablehlo import (
    AddOp,
    CaseOp,
    CompareOp,
    ConstantOp,
    CustomCallOp,
    IfOp,
    OptimizationBarrierOp,
    ReturnOp,
    WhileOp,
    constant_array,
)
from sbpc.propagation.graph import GraphError, SbpGraph
from sbpc.propagation.plan import Plan

from .ops import UnsupportedTypeError, op_label, plain_type


class Graphs(Protocol):
    """The graphs a builder fills (``graph.FunctionGraphs``), as seen from here."""

    @property
    def composites(
        self,
    ) -> dict[Placement, list[tuple[Operation, Callable[[Plan], Signature]]]]: ...

    def graph(self, placement: Placement) -> SbpGraph: ...


class Builder(Protocol):
    """What a region op needs of the function's graph builder (``graph._Builder``):
    stated here so that this module need not import the builder's."""

    weight: float  # how often the ops being added run

    @property
    def out(self) -> Graphs: ...

    @property
    def default(self) -> Placement: ...

    @property
    def default_trip_count(self) -> int: ...

    @property
    def def_weight(self) -> dict[SSAValue, float]: ...

    def placement(self, value: SSAValue) -> Placement: ...

    def operand_value(
        self, op: Operation, operand: SSAValue, placement: Placement
    ) -> int: ...

    def edge_weights(self, operands: Sequence[SSAValue]) -> list[float] | None: ...

    def bind(self, placement: Placement, value: SSAValue, graph_value: int) -> None: ...

    def add_op(self, op: Operation) -> None: ...


# The op classes ``add_region_op`` takes (the graph builder hands it no other).
REGION_OPS: tuple[type[Operation], ...] = (
    WhileOp,
    CaseOp,
    IfOp,
    OptimizationBarrierOp,
    CustomCallOp,
)


def add_region_op(b: Builder, op: Operation) -> bool:
    """Add ``op`` if it is a region op or barrier (True), else leave it (False)."""
    try:
        if isinstance(op, WhileOp):
            _add_while(b, op)
        elif isinstance(op, CaseOp | IfOp):
            _add_case(b, op)
        elif isinstance(op, OptimizationBarrierOp):
            _add_barrier(b, op)
        elif isinstance(op, CustomCallOp):
            raise LocatedError(
                op,
                f"cannot distribute stablehlo.custom_call @{op.target}: sbpc "
                "does not know what the call computes (no SBP rule, no local op)",
            )
        else:
            return False
    except GraphError as e:
        raise LocatedError(op, str(e)) from e
    except UnsupportedTypeError as e:
        raise LocatedError(op, str(e)) from e
    return True


def _constant_int(value: SSAValue) -> int | None:
    owner = value.owner
    if isinstance(owner, ConstantOp):
        array = constant_array(owner.value)
        if array.shape == () and array.dtype.kind in "iu":
            return int(array)
    return None


def counted_trip_count(op: WhileOp) -> int | None:
    """Iterations of JAX's counted loop (``scan``, ``fori_loop``), else None."""
    cond, body = op.cond.block, op.body.block
    ret = cond.last_op
    if not isinstance(ret, ReturnOp) or len(ret.operands) != 1:
        return None
    compare = ret.operands[0].owner
    if not isinstance(compare, CompareOp) or compare.comparison_direction != "LT":
        return None
    if compare.lhs not in cond.args:
        return None
    k = cond.args.index(compare.lhs)
    bound, start = _constant_int(compare.rhs), _constant_int(op.operand[k])
    step = body.last_op
    if bound is None or start is None or not isinstance(step, ReturnOp):
        return None
    nxt = step.operands[k].owner
    if not isinstance(nxt, AddOp):
        return None
    a, c = nxt.operands
    if a is not body.args[k]:
        a, c = c, a
    if a is not body.args[k] or _constant_int(c) != 1:
        return None
    return max(bound - start, 0)


def _walk(b: Builder, region: Region, weight: float) -> ReturnOp:
    """Add the ops of ``region`` at ``weight``; return its terminator."""
    saved, b.weight = b.weight, weight
    block = region.block
    for inner in block.ops:
        if inner is block.last_op:
            break
        b.add_op(inner)
    b.weight = saved
    ret = block.last_op
    if not isinstance(ret, ReturnOp):
        raise LocatedError(region.parent_op() or ret, "region must end in return")
    return ret


def _replicated(b: Builder, placement: Placement) -> NdSbp:
    return (B,) * placement.ndim


def _replicated_read(
    b: Builder, op: Operation, x: SSAValue, placement: Placement, name: str
) -> NdSbp:
    """A node that reads ``x`` replicated on every device (a loop's
    condition, a branch index: each device takes the same path); that
    layout."""
    everywhere_b = _replicated(b, placement)
    b.out.graph(placement).add_op(
        name,
        [b.operand_value(op, x, placement)],
        [],
        [Signature((everywhere_b,), ())],
        edge_weights=b.edge_weights([x]),
    )
    return everywhere_b


def _pass_through(
    b: Builder, op: Operation, x: SSAValue, placement: Placement, name: str
) -> tuple[int, list[NdSbp]]:
    """A node that hands ``x`` on unchanged in any layout, partial ones
    included, at no compute cost: its value and its layouts."""
    tensor = plain_type(x.type)
    layouts = candidate_layouts(tensor, tuple(placement.hierarchy))
    (v,) = b.out.graph(placement).add_op(
        name,
        [b.operand_value(op, x, placement)],
        [tensor],
        [Signature((nd,), (nd,)) for nd in layouts],
        edge_weights=b.edge_weights([x]),
        compute_costs=[0.0] * len(layouts),
    )
    return v, layouts


def _add_while(b: Builder, op: WhileOp) -> None:
    placement = b.placement(op.results[0]) if op.results else b.default
    graph = b.out.graph(placement)
    label = op_label(op)
    counted = counted_trip_count(op)
    trips = counted if counted is not None else b.default_trip_count
    w = b.weight
    carried: list[int] = []
    options: list[list[NdSbp]] = []
    nodes: list[int] = []
    for i, x in enumerate(op.operand):
        # Partial layouts too: a gradient accumulated over a scan stays
        # P(sum) through the loop and is reduced once, after it.
        v, layouts = _pass_through(b, op, x, placement, f"{label} carry #{i}")
        carried.append(v)
        options.append(layouts)
        nodes.append(graph.values[v].producer)
        b.bind(placement, op.results[i], v)
        b.def_weight[op.results[i]] = w
        for region, rw in ((op.cond, w * (trips + 1)), (op.body, w * trips)):
            arg = region.block.args[i]
            b.bind(placement, arg, v)
            b.def_weight[arg] = rw
    ret = _walk(b, op.cond, w * (trips + 1))
    _replicated_read(b, ret, ret.operands[0], placement, f"{label} condition")
    ret = _walk(b, op.body, w * trips)
    for i, y in enumerate(ret.operands):
        graph.add_op(
            f"{label} yield #{i}",
            [b.operand_value(ret, y, placement), carried[i]],
            [],
            [Signature((nd, nd), ()) for nd in options[i]],
            edge_weights=[*b.edge_weights([y]), 1.0],
            tied=(1,),
        )

    def signature(plan: Plan) -> Signature:
        layouts = tuple(plan.signatures[n].outputs[0] for n in nodes)
        return Signature(layouts, layouts)

    b.out.composites[placement].append((op, signature))


def _add_case(b: Builder, op: CaseOp | IfOp) -> None:
    placement = b.placement(op.results[0]) if op.results else b.default
    graph = b.out.graph(placement)
    label = op_label(op)
    selector = op.index if isinstance(op, CaseOp) else op.pred
    everywhere_b = _replicated_read(b, op, selector, placement, f"{label} index")
    yields = [_walk(b, region, b.weight).operands for region in op.branches]
    nodes: list[int] = []
    for j, r in enumerate(op.results):
        tensor = plain_type(r.type)
        # Partial layouts too: a gradient accumulated over a scan stays
        # P(sum) through the loop and is reduced once, after it.
        layouts = candidate_layouts(tensor, tuple(placement.hierarchy))
        inputs = [y[j] for y in yields]
        (v,) = graph.add_op(
            f"{label} result #{j}",
            [b.operand_value(op, y, placement) for y in inputs],
            [tensor],
            [Signature((nd,) * len(inputs), (nd,)) for nd in layouts],
            edge_weights=b.edge_weights(inputs),
            compute_costs=[0.0] * len(layouts),
        )
        b.bind(placement, r, v)
        b.def_weight[r] = b.weight
        nodes.append(graph.values[v].producer)

    def signature(plan: Plan) -> Signature:
        return Signature(
            (everywhere_b,), tuple(plan.signatures[n].outputs[0] for n in nodes)
        )

    b.out.composites[placement].append((op, signature))


def _add_barrier(b: Builder, op: OptimizationBarrierOp) -> None:
    if not op.results:
        return
    placement = b.placement(op.results[0])
    graph = b.out.graph(placement)
    label = op_label(op)
    nodes: list[int] = []
    for i, (x, r) in enumerate(zip(op.operand, op.results, strict=True)):
        v, _ = _pass_through(b, op, x, placement, f"{label} #{i}")
        b.bind(placement, r, v)
        b.def_weight[r] = b.weight
        nodes.append(graph.values[v].producer)

    def signature(plan: Plan) -> Signature:
        layouts = tuple(plan.signatures[n].outputs[0] for n in nodes)
        return Signature(layouts, layouts)

    b.out.composites[placement].append((op, signature))


def region_yields(
    op: Operation, sig: Signature, placement: Placement
) -> list[tuple[Region, tuple[NdSbp, ...]]]:
    """Each region of a planned region op and the layouts its yield must have
    (``sbp-lower-boxing`` boxes the yielded values to them, inside the body)."""
    if isinstance(op, WhileOp):
        return [((op.cond), ((B,) * placement.ndim,)), (op.body, sig.outputs)]
    if isinstance(op, CaseOp | IfOp):
        return [(region, sig.outputs) for region in op.regions]
    return []
