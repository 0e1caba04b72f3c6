"""What a picture of a plan shows, as plain data: the input of the dot and
HTML reports (``dot``, ``html``).

One ``PlanView`` per function: a node per argument, op and result (ops
coloured by their first result's layout), an edge per use of a value, the
edges whose layout changes carrying the boxing planner's collectives and
their bytes, the per-device memory at every step of the program, and the
layout changes sorted by modeled time.  Large graphs collapse repeated
layers: a run of ops that repeats back to back (the same op names, the
same signatures, operands from the same relative positions: a transformer's
layers) keeps its first instance and shows the other instances as one box,
so the picture stays readable and Graphviz stays fast.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from sbpc.algebra.sbp import format_nd_sbp
from sbpc.boxing import planner as boxing
from sbpc.boxing.cost_model import DEFAULT_COST_MODEL, CostModel
from sbpc.propagation.graph import NodeId, OpNode, SinkNode, SourceNode
from sbpc.propagation.plan import LayoutChange, Plan
from sbpc.propagation.report.summary import jsonable_stats, plan_totals

NodeKind = Literal["arg", "op", "result", "repeat"]

# Ops beyond which repeated layers are collapsed (``collapse_above``).
COLLAPSE_ABOVE = 200
# The shortest run of ops that counts as a layer, and the farthest an operand
# may come from for its position to be part of an op's identity.
MIN_LAYER_OPS = 4
_WINDOW = 32


@dataclass(frozen=True)
class ChangeView:
    """One layout change on its way into an operand, with its collectives."""

    value: str
    producer: str  # node keys
    consumer: str
    producer_name: str
    consumer_name: str
    operand: int
    src: str
    dst: str
    tensor: str
    collectives: tuple[str, ...]
    bytes: float | None
    time: float


@dataclass(frozen=True)
class ViewNode:
    key: str  # unique within the function: arg3, op12, result0, repeat1
    kind: NodeKind
    name: str
    layout: str | None  # the colour key: the (first) output layout
    detail: str  # signature, "given", the accepted layout, the repeat's span
    tooltip: str
    members: tuple[NodeId, ...]  # the graph nodes it stands for (ops, then args)


@dataclass(frozen=True)
class ViewEdge:
    src: str
    dst: str
    value: str
    tensor: str
    changes: tuple[ChangeView, ...]  # empty: no layout change
    uses: int = 1  # graph edges it stands for (more only next to a repeat box)

    @property
    def bytes(self) -> float | None:
        sizes = [c.bytes for c in self.changes]
        return None if any(b is None for b in sizes) else sum(sizes)  # type: ignore[misc]

    @property
    def time(self) -> float:
        return sum(c.time for c in self.changes)


@dataclass(frozen=True)
class Repeat:
    """Ops ``start .. start + period * count - 1`` (op order) are ``count``
    back-to-back instances of one layer of ``period`` ops."""

    start: int
    period: int
    count: int


@dataclass
class PlanView:
    title: str
    strategy: str
    hierarchy: tuple[int, ...]
    nodes: list[ViewNode]
    edges: list[ViewEdge]
    changes: list[ChangeView]  # every change, most expensive first
    memory: list[float]  # live bytes per device at each op step
    step_names: list[str]  # the op run at each step
    peak: float
    budget: float | None
    totals: dict[str, Any]
    stats: dict[str, Any]
    repeats: list[Repeat] = field(default_factory=list)
    clusters: dict[int, list[str]] = field(default_factory=dict)  # repeat -> keys

    def layouts(self) -> list[str]:
        """Output layouts of the ops, most frequent first (colour order)."""
        count: dict[str, int] = {}
        for n in self.nodes:
            if n.layout is not None and n.kind in ("op", "arg"):
                count[n.layout] = count.get(n.layout, 0) + 1
        return sorted(count, key=lambda k: (-count[k], k))


def describe_change(
    change: LayoutChange, hierarchy: Sequence[int], cost_model: CostModel
) -> tuple[str, ...]:
    """The boxing planner's steps for one change, as ``all_gather d1`` words
    (the same planner and cost model the pass priced the change with)."""
    try:
        steps = boxing.plan(
            change.src, change.dst, change.tensor, hierarchy, cost_model
        ).steps
    except boxing.BoxingError:
        return ("?",)
    out = []
    for s in steps:
        kind = f"{s.kind}({s.reduce})" if s.reduce else str(s.kind)
        out.append(f"{kind} d{','.join(str(d) for d in s.dims)}")
    return tuple(out)


def memory_profile(plan: Plan) -> list[float]:
    """Bytes held per device at each op step, under ``memory``'s model (its
    maximum is ``plan.peak_memory``)."""
    return plan.memory.profile


def find_repeats(tokens: Sequence[Any], min_len: int = MIN_LAYER_OPS) -> list[Repeat]:
    """Maximal back-to-back repeats of runs of at least ``min_len`` tokens,
    scanning left to right (the run covering most tokens wins at each start).

    Runs are compared by polynomial hashes of the token ids, so each
    candidate costs O(1); candidates are periods whose first token recurs.
    """
    ids: dict[Any, int] = {}
    seq = [ids.setdefault(t, len(ids) + 1) for t in tokens]
    n = len(seq)
    mod, base = (1 << 61) - 1, 1_000_003
    prefix, power = [0] * (n + 1), [1] * (n + 1)
    for i, x in enumerate(seq):
        prefix[i + 1] = (prefix[i] * base + x) % mod
        power[i + 1] = power[i] * base % mod

    def h(i: int, length: int) -> int:
        return (prefix[i + length] - prefix[i] * power[length]) % mod

    at: dict[int, list[int]] = {}
    for i, x in enumerate(seq):
        at.setdefault(x, []).append(i)
    repeats: list[Repeat] = []
    i = 0
    while i + 2 * min_len <= n:
        best: Repeat | None = None
        for j in at[seq[i]]:
            p = j - i
            if p < min_len:
                continue
            if i + 2 * p > n:
                break
            first = h(i, p)
            k = 1
            while i + (k + 1) * p <= n and h(i + k * p, p) == first:
                k += 1
            if k >= 2 and (best is None or p * k > best.period * best.count):
                best = Repeat(i, p, k)
        if best is None:
            i += 1
        else:
            repeats.append(best)
            i += best.period * best.count
    return repeats


def _op_tokens(plan: Plan, ops: Sequence[OpNode]) -> list[tuple[Any, ...]]:
    """What makes two ops the same op of a layer: name (numbers aside),
    signature, and where their operands come from (relative op position, or
    an argument)."""
    graph = plan.graph
    position = {op.id: k for k, op in enumerate(ops)}
    tokens = []
    for k, op in enumerate(ops):
        where = []
        for v in op.operands:
            producer = graph.values[v].producer
            if producer in position and k - position[producer] <= _WINDOW:
                where.append(k - position[producer])
            else:
                where.append(-1)
        name = re.sub(r"\d+", "#", op.name)  # l0.ln1 and l1.ln1 are one op
        tokens.append((name, str(plan.signatures[op.id]), tuple(where)))
    return tokens


def plan_view(
    plan: Plan,
    title: str = "",
    *,
    cost_model: CostModel = DEFAULT_COST_MODEL,
    memory_budget: float | None = None,
    collapse_above: int | None = COLLAPSE_ABOVE,
) -> PlanView:
    """The view of ``plan``; repeated layers collapse when there are more
    than ``collapse_above`` ops (None: never)."""
    graph = plan.graph
    ops = list(graph.ops())
    repeats: list[Repeat] = []
    if collapse_above is not None and len(ops) > collapse_above:
        repeats = find_repeats(_op_tokens(plan, ops))
    key_of: dict[NodeId, str] = {}
    nodes: list[ViewNode] = []
    clusters: dict[int, list[str]] = {}
    collapsed: dict[int, int] = {}  # op position -> repeat index
    first_instance: dict[int, int] = {}
    for r, rep in enumerate(repeats):
        for k in range(rep.start, rep.start + rep.period):
            first_instance[k] = r
        for k in range(rep.start + rep.period, rep.start + rep.period * rep.count):
            collapsed[k] = r
    position = {op.id: k for k, op in enumerate(ops)}
    # arguments only collapsed ops use (their weights) go into the box too
    folded: dict[NodeId, int] = {}
    for source in graph.sources():
        owners = {
            collapsed.get(position.get(graph.edges[e].dst, -1), -1)
            for e in source.out_edges
        }
        if len(owners) == 1 and (r := owners.pop()) >= 0:
            folded[source.id] = r
    folded_of: dict[int, list[NodeId]] = {}
    for source_id, r in folded.items():
        folded_of.setdefault(r, []).append(source_id)
    emitted_repeat: set[int] = set()
    for node in graph.nodes:
        if isinstance(node, SourceNode) and node.id in folded:
            key_of[node.id] = f"repeat{folded[node.id]}"
        elif isinstance(node, SourceNode):
            key = f"arg{node.id}"
            layout = format_nd_sbp(plan.sources[node.id])
            tensor = graph.values[node.result].tensor
            nodes.append(
                ViewNode(
                    key,
                    "arg",
                    node.name,
                    layout,
                    "given" if node.fixed else "chosen",
                    f"argument {node.name}: {tensor} as {layout}",
                    (node.id,),
                )
            )
        elif isinstance(node, OpNode):
            k = position[node.id]
            if k in collapsed:
                r = collapsed[k]
                key_of[node.id] = f"repeat{r}"
                if r not in emitted_repeat:
                    emitted_repeat.add(r)
                    rep = repeats[r]
                    span = range(
                        rep.start + rep.period, rep.start + rep.period * rep.count
                    )
                    args = folded_of.get(r, [])
                    detail = f"{rep.period} ops each, ops {span.start}-{span.stop - 1}"
                    if args:
                        detail += f"; and {len(args)} arguments only they use"
                    nodes.append(
                        ViewNode(
                            f"repeat{r}",
                            "repeat",
                            f"{rep.count - 1} more x the layer above",
                            None,
                            detail,
                            f"{len(span)} ops collapsed: "
                            + ", ".join(
                                sorted({re.sub(r"\d+", "#", ops[i].name) for i in span})
                            )
                            + (
                                f"; arguments {', '.join(graph.nodes[a].name for a in args)}"
                                if args
                                else ""
                            ),
                            (*(ops[i].id for i in span), *args),
                        )
                    )
                continue
            key = f"op{node.id}"
            sig = plan.signatures[node.id]
            layout = format_nd_sbp(sig.outputs[0]) if sig.outputs else None
            results = ", ".join(
                f"{graph.values[v].name}: {graph.values[v].tensor}"
                for v in node.results
            )
            nodes.append(
                ViewNode(
                    key,
                    "op",
                    node.name,
                    layout,
                    str(sig),
                    f"{node.name} {sig}"
                    + (" (fixed)" if node.fixed is not None else "")
                    + (f"; {results}" if results else ""),
                    (node.id,),
                )
            )
            if k in first_instance:
                clusters.setdefault(first_instance[k], []).append(key)
        else:
            assert isinstance(node, SinkNode)
            key = f"result{node.id}"
            delivered = plan.sinks[node.id]
            layout = None if delivered is None else format_nd_sbp(delivered)
            nodes.append(
                ViewNode(
                    key,
                    "result",
                    node.name,
                    layout,
                    "wanted" if node.wanted else "free",
                    f"result {node.name} in {layout or 'any layout'}",
                    (node.id,),
                )
            )
        key_of.setdefault(node.id, key)
    changes_by_edge: dict[int, ChangeView] = {}
    for c in plan.changes:
        changes_by_edge[c.edge] = ChangeView(
            c.value,
            key_of[c.producer],
            key_of[c.consumer],
            graph.nodes[c.producer].name,
            graph.nodes[c.consumer].name,
            c.operand,
            format_nd_sbp(c.src),
            format_nd_sbp(c.dst),
            str(c.tensor),
            describe_change(c, graph.hierarchy, cost_model),
            c.bytes,
            c.time,
        )
    edges: list[ViewEdge] = []
    plain: list[tuple[tuple[str, str], list[int]]] = []
    merged: dict[tuple[str, str], list[int]] = {}  # next to a repeat box
    for edge in graph.edges:
        src, dst = key_of[edge.src], key_of[edge.dst]
        if src == dst:
            continue  # inside a collapsed repeat
        if src.startswith("repeat") or dst.startswith("repeat"):
            merged.setdefault((src, dst), []).append(edge.id)
        else:
            plain.append(((src, dst), [edge.id]))
    for (src, dst), ids in [*plain, *merged.items()]:
        first = graph.edges[ids[0]]
        edges.append(
            ViewEdge(
                src,
                dst,
                graph.values[first.value].name,
                str(graph.tensor(first)),
                tuple(changes_by_edge[e] for e in ids if e in changes_by_edge),
                len(ids),
            )
        )
    changes = sorted(
        changes_by_edge.values(),
        key=lambda c: (-c.time, -(c.bytes or 0.0)),
    )
    memory = memory_profile(plan)
    step_names = [op.name for op in ops] or [""]
    return PlanView(
        title=title,
        strategy=plan.strategy,
        hierarchy=graph.hierarchy,
        nodes=nodes,
        edges=edges,
        changes=changes,
        memory=memory,
        step_names=step_names,
        peak=plan.peak_memory,
        budget=memory_budget if memory_budget else None,
        totals={**plan_totals(plan), "ops": len(ops)},
        stats=jsonable_stats(plan),
        repeats=repeats,
        clusters=clusters,
    )
