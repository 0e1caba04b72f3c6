"""A propagation plan: one option per node, and what it costs.

The driver hands ``build_plan`` every strategy's choice (an option index per
node) and gets back the signatures, the argument layouts, every layout change
an edge needs (with its modeled time and bytes) and the totals.  Computing
the totals in one place is what lets the tests compare strategies honestly.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sbpc.algebra.sbp import NdSbp, format_nd_sbp
from sbpc.algebra.signature import Signature
from sbpc.algebra.tensor_type import TensorType
from sbpc.propagation.edge_costs import EdgeCosts
from sbpc.propagation.graph import (
    NodeId,
    OpNode,
    PropagationError,
    SbpGraph,
    SinkNode,
    SourceNode,
)
from sbpc.propagation.memory import Collectives, Memory, plan_memory


class Deferred:
    """A ``Plan.stats`` value computed when a report first reads it
    (``resolved_stats``): work only a report needs, such as solving a
    reference plan, so that planning never waits on it (as ``Plan.bound``)."""

    def __init__(self, compute: Callable[[], Any]) -> None:
        self._compute: Callable[[], Any] | None = compute
        self._value: Any = None

    def __call__(self) -> Any:
        if self._compute is not None:
            self._value, self._compute = self._compute(), None
        return self._value

    def __repr__(self) -> str:
        """Its value once computed; until then, that it waits for a report."""
        if self._compute is None:
            return repr(self._value)
        return "<computed when a report reads it>"


def resolved_stats(stats: dict[str, Any]) -> dict[str, Any]:
    """``stats`` with every ``Deferred`` computed; those that come out None
    (nothing to say) left out."""
    out = {k: v() if isinstance(v, Deferred) else v for k, v in stats.items()}
    return {
        k: v
        for k, v in out.items()
        if v is not None or not isinstance(stats[k], Deferred)
    }


@dataclass(frozen=True)
class LayoutChange:
    """A value's layout changes on its way into one operand (boxing)."""

    edge: int
    value: str
    producer: NodeId
    consumer: NodeId
    operand: int
    src: NdSbp
    dst: NdSbp
    tensor: TensorType
    time: float
    bytes: float | None


@dataclass
class Plan:
    strategy: str
    graph: SbpGraph = field(repr=False, compare=False)
    options: list[int]  # chosen option per node id
    signatures: dict[NodeId, Signature]  # op nodes
    sources: dict[NodeId, NdSbp]  # argument layouts, given or chosen
    sinks: dict[NodeId, NdSbp | None]  # layout each result is delivered in
    changes: list[LayoutChange]  # every edge whose layout changes
    comm_time: float
    compute_time: float
    total_bytes: float | None
    stats: dict[str, Any] = field(default_factory=dict)
    # A lower bound on every plan's total under the model this one is priced
    # by, or how to compute it (``lower_bound`` reads it; None: unknown).
    bound: float | Callable[[], float | None] | None = field(
        default=None, repr=False, compare=False
    )
    # What the emitter's combined collectives add to ``memory``, or how to
    # compute it (None: every collective runs alone).
    collectives: Collectives | Callable[[], Collectives] | None = field(
        default=None, repr=False, compare=False
    )
    # ``memory``, once read (None: not yet).
    _memory: Memory | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def total_time(self) -> float:
        return self.comm_time + self.compute_time

    @property
    def lower_bound(self) -> float | None:
        """``bound``, computed on first read when it is a computation (an
        LP: only reports read it, so planning never waits on it); None
        when unknown or not finite."""
        if callable(self.bound):
            found = self.bound()
            self.bound = found if found is not None and math.isfinite(found) else None
        return self.bound

    @property
    def memory(self) -> Memory:
        """Memory per device under ``memory``'s model (what XLA's
        ``memory_analysis`` of the compiled program counts), computed on first
        read: only reports, memory budgets and the combining search read it."""
        if self._memory is None:
            if callable(self.collectives):
                self.collectives = self.collectives()
            self._memory = plan_memory(
                self.graph, self.options, collectives=self.collectives
            )
        return self._memory

    def count_collectives(
        self, collectives: Collectives | Callable[[], Collectives]
    ) -> None:
        """Count what the emitter's combined collectives add in ``memory``
        from now on (a computation runs when ``memory`` is first read)."""
        self.collectives = collectives
        self._memory = None

    @property
    def peak_memory(self) -> float:
        """Peak bytes per device: ``memory.peak``."""
        return self.memory.peak

    def signature_of(self, op_name: str) -> Signature:
        """The chosen signature of the (first) op named ``op_name``."""
        for node_id, sig in self.signatures.items():
            if self.graph.nodes[node_id].name == op_name:
                return sig
        raise KeyError(op_name)

    def layout_of(self, arg_name: str) -> NdSbp:
        for node_id, nd in self.sources.items():
            if self.graph.nodes[node_id].name == arg_name:
                return nd
        raise KeyError(arg_name)


def best_sink_option(
    graph: SbpGraph, sink: SinkNode, options: Sequence[int], costs: EdgeCosts
) -> int:
    """The accepted layout cheapest to deliver the result in (ties: first;
    a tied result's edge from its argument counts too)."""
    prices = [0.0] * len(sink.options)
    for e in sink.in_edges:
        edge = graph.edges[e]
        src = graph.edge_src_layout(edge, options[edge.src])
        tensor = graph.tensor(edge)
        for i, nd in enumerate(sink.options):
            prices[i] += costs.time(src, nd, tensor)
    return min(range(len(prices)), key=prices.__getitem__)


def complete_sinks(
    graph: SbpGraph, options: Sequence[int], costs: EdgeCosts
) -> list[int]:
    """``options`` with every undecided (-1) result in its cheapest layout."""
    chosen = list(options)
    for sink in graph.sinks():
        if chosen[sink.id] < 0:
            chosen[sink.id] = best_sink_option(graph, sink, chosen, costs)
    return chosen


def build_plan(
    graph: SbpGraph,
    options: Sequence[int],
    costs: EdgeCosts,
    strategy: str,
    stats: dict[str, Any] | None = None,
) -> Plan:
    """Evaluate a choice of options; sinks given as -1 take their cheapest layout.

    Raises ``PropagationError`` naming the first edge whose change is
    impossible (infinite cost).
    """
    chosen = complete_sinks(graph, options, costs)
    signatures: dict[NodeId, Signature] = {}
    sources: dict[NodeId, NdSbp] = {}
    sinks: dict[NodeId, NdSbp | None] = {}
    # Per node, the layouts its chosen option takes in and gives out.
    ins: list[tuple[NdSbp | None, ...]] = []
    outs: list[tuple[NdSbp, ...]] = []
    compute = 0.0
    for node in graph.nodes:
        option = chosen[node.id]
        if isinstance(node, OpNode):
            sig = signatures[node.id] = node.options[option]
            compute += node.option_costs[option]
            ins.append(sig.inputs)
            outs.append(sig.outputs)
        elif isinstance(node, SourceNode):
            sources[node.id] = node.options[option]
            ins.append(())
            outs.append((sources[node.id],))
        else:
            sinks[node.id] = node.options[option]
            ins.append((sinks[node.id],) * len(node.in_edges))  # a tie: two
            outs.append(())
    changes: list[LayoutChange] = []
    comm = 0.0
    moved: float | None = 0.0 if costs.has_bytes else None
    for edge in graph.edges:
        src = outs[edge.src][edge.src_index]
        dst = ins[edge.dst][edge.dst_index]
        if dst is None or src == dst:
            continue
        tensor = graph.tensor(edge)
        time = costs.time(src, dst, tensor)
        if math.isinf(time):
            raise PropagationError(
                f"value '{graph.values[edge.value].name}' cannot change from "
                f"{format_nd_sbp(src)} to {format_nd_sbp(dst)} on its way to "
                f"'{graph.nodes[edge.dst].name}' (infinite cost)"
            )
        nbytes = costs.bytes(src, dst, tensor)
        comm += time
        if moved is not None and nbytes is not None:
            moved += nbytes
        changes.append(
            LayoutChange(
                edge.id,
                graph.values[edge.value].name,
                edge.src,
                edge.dst,
                edge.dst_index,
                src,
                dst,
                tensor,
                time,
                nbytes,
            )
        )

    return Plan(
        strategy,
        graph,
        chosen,
        signatures,
        sources,
        sinks,
        changes,
        comm,
        compute,
        moved,
        dict(stats or {}),
    )


def proven_bound(stats: Mapping[str, Any]) -> float | None:
    """The bound the optimal strategy's ``stats`` certify (None: none)."""
    objective, gap = stats.get("objective"), stats.get("gap")
    if not isinstance(objective, int | float) or not isinstance(gap, int | float):
        return None
    if not (math.isfinite(objective) and math.isfinite(gap)):
        return None
    return objective - gap * abs(objective)
