"""A plan's communication time when independent collectives run as one.

The JAX emitter combines collectives of one key (kind, mesh dims, reduction,
element type) that do not depend on each other into one call
(``sbpc.boxing.combine_schedule``), so such a group pays one latency, not
one per member.  Pricing each layout change alone, as ``build_plan`` does,
overcharges a training step's per-parameter gradient reductions and makes
the search replicate work to avoid collectives that would have been merged.

Here a plan's boxing steps are laid out as a dataflow program (ops, and the
steps on each operand's way in), grouped by the emitter's own schedule, and
priced: a group costs its members' bandwidth time plus the largest of their
fixed costs (launch overhead and rounds' latency); a step's local work
(``sbpc.boxing.local_work``) is paid by each step and counts no collective.
Steps that cannot be combined, and uses inside loops (weighted edges), keep
their own price.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import NamedTuple

from sbpc.algebra.placement import Placement
from sbpc.algebra.sbp import Partial
from sbpc.boxing import planner as boxing
from sbpc.boxing.collective_kind import CollectiveKind
from sbpc.boxing.combine_schedule import combine_groups
from sbpc.boxing.cost_model import CostModel, local_bytes
from sbpc.boxing.local_work import local_elements, local_time
from sbpc.ops.spec import is_bool
from sbpc.propagation.graph import EdgeTensor, OpNode, SourceNode
from sbpc.propagation.plan import LayoutChange, Plan


class Collective(NamedTuple):
    """One boxing step of a plan as a node of the dataflow program (a named
    tuple: a plan of thousands of ops makes one per op each time it is
    priced, and a frozen dataclass took four times as long to make)."""

    operands: tuple[Hashable, ...]
    results: tuple[Hashable, ...]
    key: Hashable | None  # None: runs alone (or is not a collective)
    nbytes: int  # the larger local buffer (what a combined buffer adds)
    latency: float  # the part of its time that a combined group pays once
    rest: float  # the rest of its time (bandwidth), paid by every member
    local: float = 0.0  # its local work (sbpc.boxing.local_work): no collective


@dataclass(frozen=True)
class CombinedCost:
    """A plan's communication priced with combining, and what it counts."""

    comm_time: float  # combined groups pay one latency
    summed_latency: float  # every collective's latency, priced alone
    combined_latency: float  # one latency per group
    collectives: int  # collectives before combining
    groups: int  # collectives after combining

    @property
    def latency_scale(self) -> float:
        """How much of the summed latency combining leaves (1: none saved)."""
        if self.summed_latency == 0:
            return 1.0
        return self.combined_latency / self.summed_latency


def combine_key(step: boxing.BoxingStep, element: str) -> Hashable | None:
    """What steps must share to run as one (the emitter's rule); None: alone.

    Booleans reduce through int32 and max/min reduce-scatters are a reduce
    and a slice: both stay single, as in ``sbpc.jax_backend.emit``.
    """
    if step.kind == CollectiveKind.ALL_GATHER:
        return (step.kind, step.dims, element)
    first = step.src[step.dims[0]] if step.dims else None
    if is_bool(element) or not isinstance(first, Partial):
        return None
    if step.kind == CollectiveKind.ALL_REDUCE:
        return (step.kind, step.dims, first.kind, element)
    if step.kind == CollectiveKind.REDUCE_SCATTER and first.kind == "sum":
        return (step.kind, step.dims, element)
    return None


def plan_collectives(
    plan: Plan, placement: Placement, cost_model: CostModel
) -> list[Collective]:
    """Every op and boxing step of ``plan`` in program order, as plain nodes."""
    graph = plan.graph
    by_edge: dict[int, LayoutChange] = {c.edge: c for c in plan.changes}
    nodes: list[Collective] = []
    for node in graph.nodes:
        if isinstance(node, SourceNode):
            nodes.append(Collective((), (("v", node.result),), None, 0, 0.0, 0.0))
            continue
        operands: list[Hashable] = []
        for edge_id in node.in_edges:
            edge = graph.edges[edge_id]
            value: Hashable = ("v", edge.value)
            change = by_edge.get(edge_id)
            if change is not None:
                nodes += _steps(change, value, placement, cost_model)
                value = ("e", edge_id)
            operands.append(value)
        results = (
            tuple(("v", v) for v in node.results) if isinstance(node, OpNode) else ()
        )
        nodes.append(Collective(tuple(operands), results, None, 0, 0.0, 0.0))
    return nodes


def _steps(
    change: LayoutChange, value: Hashable, placement: Placement, cost_model: CostModel
) -> list[Collective]:
    """The boxing steps of one layout change, chained from ``value`` to its edge."""
    out = ("e", change.edge)
    tensor = change.tensor
    plain = tensor.plain if isinstance(tensor, EdgeTensor) else tensor
    boxed = boxing.plan(change.src, change.dst, plain, placement, cost_model)
    if isinstance(tensor, EdgeTensor) and tensor.weight != 1:
        # A use inside a loop runs every iteration: priced as build_plan does
        # under ``cost_model`` (not ``change.time``: the plan may have been
        # priced with latency scaled by the combining search).
        time = tensor.weight * float(boxed.exact_time)
        return [Collective((value,), (out,), None, 0, 0.0, time)]
    steps = boxed.steps
    hierarchy = placement.hierarchy
    chain: list[Collective] = []
    for i, step in enumerate(steps):
        src = value if i == 0 else ("e", change.edge, i)
        dst = out if i == len(steps) - 1 else ("e", change.edge, i + 1)
        key = combine_key(step, plain.element)
        latency = Fraction(0)
        if key is not None:  # a combined group pays one launch and its rounds
            latency = cost_model.step_latency(step.kind, step.dims, step.hierarchy)
        nbytes = max(local_bytes(nd, plain, hierarchy) for nd in (step.src, step.dst))
        local = local_time(
            local_elements(step.kind, step.dims, step.src, step.dst, plain, hierarchy),
            cost_model,
        )
        rest = float(step.exact_time - latency - local)
        chain.append(
            Collective((src,), (dst,), key, nbytes, float(latency), rest, float(local))
        )
    return chain


def combined_cost(
    plan: Plan, placement: Placement, cost_model: CostModel
) -> CombinedCost:
    """``plan``'s communication with independent same-key collectives combined."""
    return price_collectives(plan_collectives(plan, placement, cost_model))


def price_collectives(nodes: Sequence[Collective]) -> CombinedCost:
    """Price a program's steps grouped as the emitter's schedule groups them
    (``Grouping.units``: the same groups, without the schedule's order)."""
    units = combine_groups(
        nodes,
        lambda n: n.operands,
        lambda n: n.results,
        lambda n: n.key,
        lambda n: n.nbytes,
    ).units()
    comm = combined = 0.0
    collectives = groups = 0
    for members in units:
        comm += sum(m.local for m in members)
        if all(m.key is None and m.rest == 0 for m in members):
            continue  # an op or a local step, not a collective
        latency = max(m.latency for m in members)
        comm += latency + sum(m.rest for m in members)
        combined += latency
        collectives += len(members)
        groups += 1
    summed = sum(n.latency for n in nodes)
    return CombinedCost(comm, summed, combined, collectives, groups)
