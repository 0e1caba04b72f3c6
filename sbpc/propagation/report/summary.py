"""Human and machine readable reports of a plan: what each op runs as, what
layout changes it causes, and what they cost in total."""

from __future__ import annotations

import json
import math
from typing import Any, Literal

from sbpc.algebra.sbp import NdSbp, format_nd_sbp
from sbpc.propagation.graph import OpNode, SinkNode, SourceNode
from sbpc.propagation.plan import LayoutChange, Plan, resolved_stats
from sbpc.propagation.report.padding import padding_rows


def format_report(plan: Plan, fmt: Literal["text", "json"] = "text") -> str:
    data = report_data(plan)
    if fmt == "json":
        return json.dumps(data, indent=2)
    if fmt != "text":
        raise ValueError(f"unknown report format '{fmt}', expected 'text' or 'json'")
    return _text(data)


def report_data(plan: Plan) -> dict[str, Any]:
    """The report as plain JSON-able data (node order, names, totals)."""
    graph = plan.graph
    by_consumer: dict[int, list[LayoutChange]] = {}
    for change in plan.changes:
        by_consumer.setdefault(change.consumer, []).append(change)

    def changes_of(node_id: int) -> list[dict[str, Any]]:
        return [
            {
                "operand": c.operand,
                "value": c.value,
                "from": graph.nodes[c.producer].name,
                "src": format_nd_sbp(c.src),
                "dst": format_nd_sbp(c.dst),
                "bytes": c.bytes,
                "time": c.time,
            }
            for c in by_consumer.get(node_id, [])
        ]

    reads: dict[int, list[LayoutChange]] = {}  # argument -> its layout changes
    for change in plan.changes:
        reads.setdefault(change.producer, []).append(change)

    arguments, ops, results = [], [], []
    for node in graph.nodes:
        if isinstance(node, SourceNode):
            arguments.append(
                {
                    "name": node.name,
                    "nd_sbp": format_nd_sbp(plan.sources[node.id]),
                    "given": node.fixed,
                    "reads": _reads(
                        reads.get(node.id, []),
                        node.result in graph.gathered_per_use,
                    ),
                }
            )
        elif isinstance(node, OpNode):
            ops.append(
                {
                    "name": node.name,
                    "signature": str(plan.signatures[node.id]),
                    "fixed": node.fixed is not None,
                    "changes": changes_of(node.id),
                }
            )
        elif isinstance(node, SinkNode):
            delivered: NdSbp | None = plan.sinks[node.id]
            results.append(
                {
                    "name": node.name,
                    "nd_sbp": None if delivered is None else format_nd_sbp(delivered),
                    "tied_to": None
                    if node.tied_to is None
                    else graph.nodes[node.tied_to].name,
                    "changes": changes_of(node.id),
                }
            )
    return {
        "strategy": plan.strategy,
        "hierarchy": list(graph.hierarchy),
        "arguments": arguments,
        "ops": ops,
        "results": results,
        "totals": plan_totals(plan),
        "stats": jsonable_stats(plan),
        "padding": padding_rows(plan),
    }


def _reads(changes: list[LayoutChange], per_use: bool) -> dict[str, Any] | None:
    """An argument's storage seen from its uses: the layouts its readers
    take it in (a split parameter gathered, ZeRO/FSDP), how many layout
    changes (one per reading operand: each use gathers its own copy in the
    time model), their bytes and time, and whether its gathers are made per
    use (``per_use``: FSDP, each copy live only around its reader) or once
    (the copy lives from its first reader to its last); None when every use
    reads it as stored (or slices it, which moves nothing)."""
    changes = [c for c in changes if c.time > 0 or (c.bytes or 0.0) > 0]
    if not changes:
        return None
    moved = [c.bytes for c in changes]
    return {
        "layouts": sorted({format_nd_sbp(c.dst) for c in changes}),
        "changes": len(changes),
        "bytes": None if None in moved else sum(b or 0.0 for b in moved),
        "time": sum(c.time for c in changes),
        "per_use": per_use,
    }


def _argument_line(a: dict[str, Any]) -> str:
    line = f"  {a['name']}: {a['nd_sbp']}" + (" (given)" if a["given"] else "")
    r = a.get("reads")
    if r:
        line += (
            f"  read as {', '.join(r['layouts'])} by {r['changes']} "
            f"change{'s' if r['changes'] > 1 else ''}: {format_bytes(r['bytes'])}  "
            f"{format_time(r['time'])}"
        )
        if r.get("per_use"):
            line += "  gathered per use"
    return line


def plan_totals(plan: Plan) -> dict[str, Any]:
    """The plan's totals, as the text, JSON and HTML reports name them."""
    return {
        "time": plan.total_time,
        "comm_time": plan.comm_time,
        "compute_time": plan.compute_time,
        "bytes": plan.total_bytes,
        "peak_memory_per_device": plan.peak_memory,
        "layout_changes": len(plan.changes),
        "lower_bound": plan.lower_bound,
    }


def jsonable_stats(plan: Plan) -> dict[str, Any]:
    """The solver's statistics, infinities written as strings (JSON has none)."""
    return {k: _jsonable(v) for k, v in resolved_stats(plan.stats).items()}


def _jsonable(v: Any) -> Any:
    if isinstance(v, float) and not math.isfinite(v):
        return str(v)
    if isinstance(v, int | float | str | bool) or v is None:
        return v
    return str(v)


def format_time(seconds: float) -> str:
    if seconds == 0:
        return "0 s"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if abs(seconds) >= scale:
            return f"{seconds / scale:.4g} {unit}"
    return f"{seconds / 1e-9:.4g} ns"


def format_bytes(n: float | None) -> str:
    if n is None:
        return "? B"
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if abs(n) >= scale:
            return f"{n / scale:.4g} {unit}"
    return f"{n:.4g} B"


def _change_lines(changes: list[dict[str, Any]], indent: str) -> list[str]:
    lines = []
    for c in changes:
        what = c["value"]
        if what != c["from"]:
            what += f" from {c['from']}"
        price = f"{format_bytes(c['bytes'])}  {format_time(c['time'])}"
        change = f"{c['src']} -> {c['dst']}"
        lines.append(f"{indent}operand {c['operand']} ({what}): {change}  {price}")
    return lines


def _bound_line(total: float, bound: float) -> str:
    """How far ``total`` is above ``bound`` (a bound at or above it: 0%)."""
    above = 0.0 if bound <= 0 or total <= bound else total / bound - 1
    share = "0%" if above < 5e-4 else f"{above:.1%}"
    return f"lower bound: {format_time(bound)} (plan is {share} above)"


def _text(data: dict[str, Any]) -> str:
    head = f"propagation plan (strategy={data['strategy']})"
    lines = [f"{head} on hierarchy {data['hierarchy']}"]
    if data["arguments"]:
        lines.append("arguments:")
        lines += [_argument_line(a) for a in data["arguments"]]
    if data["ops"]:
        lines.append("ops:")
        width = max(len(o["name"]) for o in data["ops"])
        for o in data["ops"]:
            fixed = "  (fixed)" if o["fixed"] else ""
            lines.append(f"  {o['name']:<{width}}  {o['signature']}{fixed}")
            lines += _change_lines(o["changes"], "      ")
    if data["results"]:
        lines.append("results:")
        for r in data["results"]:
            tied = f" (tied to {r['tied_to']})" if r.get("tied_to") else ""
            lines.append(f"  {r['name']}: {r['nd_sbp'] or 'any'}{tied}")
            lines += _change_lines(r["changes"], "      ")
    if data.get("padding"):
        lines.append("padding (uneven splits; every piece padded to the largest):")
        for p in data["padding"]:
            extra = p["padded_bytes"] / max(p["logical_bytes"], 1) - 1
            lines.append(
                f"  {p['value']} {p['type']} {p['nd_sbp']}: "
                f"{format_bytes(p['logical_bytes'])} logical, "
                f"{format_bytes(p['padded_bytes'])} padded (+{extra:.0%})"
            )
    t = data["totals"]
    lines.append(
        f"total: {format_time(t['time'])} "
        f"(communication {format_time(t['comm_time'])}, "
        f"compute {format_time(t['compute_time'])}), {t['layout_changes']} layout "
        f"changes moving {format_bytes(t['bytes'])}, peak memory "
        f"{format_bytes(t['peak_memory_per_device'])} per device"
    )
    if t.get("lower_bound") is not None:
        lines.append(_bound_line(t["time"], t["lower_bound"]))
    stats = dict(data["stats"])
    trade = stats.pop("trade", None)
    robust = stats.pop("robust", None)
    tolerance = stats.pop("tolerance", None)
    if stats:
        lines.append("stats: " + ", ".join(f"{k}={v}" for k, v in stats.items()))
    if trade:  # the plan moves more bytes than another it found, on purpose
        lines.append(f"trade: {trade}")
    if robust:  # not the nominal model's cheapest: safer across scenarios
        lines.append(f"robust: {robust}")
    if tolerance:  # not the cheapest: within the model's error, less work
        lines.append(f"within error: {tolerance}")
    return "\n".join(lines) + "\n"
