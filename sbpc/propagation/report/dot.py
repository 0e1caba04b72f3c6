"""A plan as a Graphviz graph (``report_format=dot``, and the layout of the
HTML report's picture).

Built with the ``graphviz`` package, which writes the DOT text and runs
Graphviz's ``dot`` for the layout; sbpc lays nothing out itself.  Ops are
boxes filled with the colour of their output layout, arguments and results
are ellipses and double octagons with their layouts, an edge whose value
changes layout is red, thicker the more bytes it moves, and labelled with
its collectives and bytes.  Every node and edge carries an ``id`` and a
``class`` (``op``, ``arg``, ``result``, ``repeat``; ``boxing``) so the HTML
page can search and highlight them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import graphviz

from sbpc.propagation.report.summary import format_bytes, format_time
from sbpc.propagation.report.view import PlanView, ViewEdge

# Colour-blind-friendly fills (Okabe-Ito and Tol's light palette), one per
# output layout in order of frequency; rarer layouts share the last one.
PALETTE = (
    "#a6cee3",
    "#fdbf6f",
    "#b2df8a",
    "#cab2d6",
    "#fb9a99",
    "#ffff99",
    "#8dd3c7",
    "#bebada",
    "#80b1d3",
    "#fccde5",
    "#d9d9d9",
    "#ccebc5",
)
OTHER_COLOUR = "#eeeeee"
BOXING_COLOUR = "#d62728"
# Past this many nodes, Graphviz's crossing minimisation is bounded and edge
# labels are external, so that a large plan is laid out in seconds, not
# minutes (a 1,300-node training step: 320 s with inline labels, 6 s so).
_BIG_GRAPH = 400


class ReportError(RuntimeError):
    """A report that cannot be made (Graphviz missing or failing)."""


def _clip(text: str, limit: int = 2000) -> str:
    """Graphviz refuses quoted strings over 16 KiB; tooltips need far less."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def colours(view: PlanView) -> dict[str, str]:
    """Fill colour of each output layout (most frequent layouts first)."""
    layouts = view.layouts()
    return {
        layout: PALETTE[i] if i < len(PALETTE) else OTHER_COLOUR
        for i, layout in enumerate(layouts)
    }


def edge_label(edge: ViewEdge) -> str:
    """Collectives and bytes of a boxing edge (several changes: their count)."""
    if not edge.changes:
        return ""
    if len(edge.changes) == 1:
        words = list(edge.changes[0].collectives)
    else:
        words = [f"{len(edge.changes)} layout changes"]
    return "\\n".join([*words, format_bytes(edge.bytes)])


def plan_graph(view: PlanView, prefix: str = "") -> graphviz.Digraph:
    """The Graphviz graph of one function's plan; ``prefix`` keeps the SVG
    ids unique when several functions share a page."""
    fill = colours(view)
    big = len(view.nodes) > _BIG_GRAPH
    graph_attr = {
        "rankdir": "TB",
        "label": view.title,
        "labelloc": "t",
        "fontname": "Helvetica",
        "nodesep": "0.25",
        "ranksep": "0.35",
        "tooltip": view.title or "plan",
    }
    if big:
        # bounded crossing minimisation; edge labels placed after layout
        # (xlabel) instead of as virtual nodes: minutes become seconds
        graph_attr.update(
            {"nslimit": "2", "nslimit1": "2", "mclimit": "0.2", "forcelabels": "true"}
        )
    g = graphviz.Digraph(
        name=view.title or "plan",
        graph_attr=graph_attr,
        node_attr={"fontname": "Helvetica", "fontsize": "10", "style": "filled"},
        edge_attr={"fontname": "Helvetica", "fontsize": "9", "color": "#555555"},
    )
    cluster_of = {
        key: r for r, keys in view.clusters.items() for key in keys
    }  # first instance of a repeated layer
    subgraphs: dict[int, graphviz.Digraph] = {}
    for r in view.clusters:
        rep = view.repeats[r]
        subgraphs[r] = graphviz.Digraph(
            name=f"cluster_repeat{r}",
            graph_attr={
                "label": f"layer of {rep.period} ops, repeated {rep.count} times",
                "style": "dashed",
                "color": "#888888",
                "id": f"{prefix}cluster-repeat{r}",
            },
        )
    for node in view.nodes:
        attrs = {
            "id": f"{prefix}{node.key}",
            "class": node.kind,
            "tooltip": _clip(node.tooltip),
        }
        if node.kind == "op":
            label = f"{node.name}\\n{node.layout or '()'}"
            attrs.update(shape="box", fillcolor=fill.get(node.layout or "", "white"))
            if "(fixed)" in node.tooltip:
                attrs.update(penwidth="2.5")
        elif node.kind == "arg":
            label = f"{node.name}\\n{node.layout} {node.detail}"
            attrs.update(
                shape="ellipse", fillcolor=fill.get(node.layout or "", "white")
            )
        elif node.kind == "result":
            label = f"{node.name}\\n{node.layout or 'any'}"
            attrs.update(shape="doubleoctagon", fillcolor="white")
        else:
            label = f"{node.name}\\n" + node.detail.replace("; ", "\\n")
            attrs.update(shape="box3d", fillcolor="#f5f5f5", style="filled,dashed")
        target = subgraphs.get(cluster_of[node.key]) if node.key in cluster_of else g
        assert target is not None
        target.node(node.key, label=label, **attrs)
    for sub in subgraphs.values():
        g.subgraph(sub)
    biggest = max((e.bytes or 0.0 for e in view.edges if e.changes), default=0.0)
    for i, edge in enumerate(view.edges):
        attrs = {"id": f"{prefix}edge{i}"}
        tip = f"{edge.value}: {edge.tensor}"
        if edge.uses > 1:
            tip += f" ({edge.uses} uses)"
        if edge.changes:
            tip += "; " + "; ".join(
                f"{c.src} -> {c.dst}: {' + '.join(c.collectives) or 'none'}, "
                f"{format_bytes(c.bytes)}, {format_time(c.time)}"
                for c in edge.changes
            )
            width = (
                1.5 + 3.5 * math.sqrt((edge.bytes or 0.0) / biggest) if biggest else 1.5
            )
            attrs.update(
                {
                    "class": "boxing",
                    "color": BOXING_COLOUR,
                    "fontcolor": BOXING_COLOUR,
                    "penwidth": f"{width:.2f}",
                    "xlabel" if big else "label": edge_label(edge),
                }
            )
        else:
            attrs["class"] = "use"
        attrs["tooltip"] = _clip(tip)
        g.edge(edge.src, edge.dst, **attrs)
    return g


def format_dot(views: Sequence[PlanView]) -> str:
    """DOT text of every function's plan (one ``digraph`` each)."""
    return "\n".join(plan_graph(v, prefix=f"f{i}-").source for i, v in enumerate(views))


def render_svg(graph: graphviz.Digraph) -> str:
    """The SVG element Graphviz lays ``graph`` out as (no XML prolog)."""
    try:
        svg = graph.pipe(format="svg", engine="dot", encoding="utf-8")
    except graphviz.ExecutableNotFound as e:
        raise ReportError(
            "report_format=html needs Graphviz's 'dot' program on PATH "
            "(Debian: apt-get install graphviz; `make setup` installs it)"
        ) from e
    except graphviz.CalledProcessError as e:
        raise ReportError(f"Graphviz failed to lay out the plan: {e}") from e
    return svg[svg.index("<svg") :]
