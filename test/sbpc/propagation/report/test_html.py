"""The dot and HTML reports: Graphviz's SVG has a node per argument, op and
result and an edge per use, boxing edges say their collectives; the page is
self-contained."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import graphviz
import pytest

from sbpc.algebra.sbp import B, S
from sbpc.algebra.tensor_type import TensorType
from sbpc.propagation.driver import propagate
from sbpc.propagation.graph import SbpGraph
from sbpc.propagation.report.dot import (
    BOXING_COLOUR,
    ReportError,
    format_dot,
    plan_graph,
    render_svg,
)
from sbpc.propagation.report.html import format_html, memory_svg
from sbpc.propagation.report.view import plan_view

from .test_view import matmul_plan, transformer_plan

SVG = "{http://www.w3.org/2000/svg}"


def svg_groups(svg: str) -> dict[str, list[ET.Element]]:
    """The SVG's node and edge groups by their class words."""
    root = ET.fromstring(svg)
    out: dict[str, list[ET.Element]] = {}
    for g in root.iter(f"{SVG}g"):
        for word in (g.get("class") or "").split():
            out.setdefault(word, []).append(g)
    return out


def test_svg_has_every_node_and_edge() -> None:
    plan = matmul_plan()
    view = plan_view(plan, "f")
    groups = svg_groups(render_svg(plan_graph(view, "f0-")))
    assert len(groups["node"]) == len(plan.graph.nodes)
    assert len(groups["op"]) == 2 and len(groups["arg"]) == 2
    assert len(groups["result"]) == 1
    assert len(groups["edge"]) == len(plan.graph.edges)
    assert len(groups["boxing"]) == len(plan.changes)
    ids = {g.get("id") for g in groups["node"]}
    assert ids == {"f0-arg0", "f0-arg1", "f0-op2", "f0-op3", "f0-result4"}
    (reduce,) = [
        g for g in groups["boxing"] if "reduce_scatter(sum) d0" in "".join(g.itertext())
    ]
    assert "192 B" in "".join(reduce.itertext())
    paths = [p for p in reduce.iter(f"{SVG}path")]
    assert paths and paths[0].get("stroke") == BOXING_COLOUR


def test_ops_are_coloured_by_output_layout() -> None:
    view = plan_view(transformer_plan(2))
    groups = svg_groups(render_svg(plan_graph(view)))
    fill_of: dict[str, set[str]] = {}
    by_key = {n.key: n for n in view.nodes}
    for g in groups["op"]:
        shape = next(g.iter(f"{SVG}polygon"))
        fill_of.setdefault(by_key[g.get("id")].layout, set()).add(shape.get("fill"))
    assert all(len(fills) == 1 for fills in fill_of.values())
    assert len({f for fills in fill_of.values() for f in fills}) == len(fill_of)


def test_dot_text_names_every_node() -> None:
    plan = matmul_plan()
    text = format_dot([plan_view(plan, "f")])
    assert text.startswith("digraph f {")
    for key in ("arg0", "arg1", "op2", "op3", "result4"):
        assert re.search(rf"^\s*{key} \[", text, re.M), key
    assert re.search(r'op3 -> result4 \[.*label="reduce_scatter\(sum\) d0', text)
    # the text is Graphviz's own: it lays it out again
    assert "<svg" in graphviz.Source(text).pipe(format="svg", encoding="utf-8")


def test_collapsed_layers_are_one_box_and_a_cluster() -> None:
    view = plan_view(transformer_plan(6), collapse_above=10)
    groups = svg_groups(render_svg(plan_graph(view)))
    assert len(groups["repeat"]) == 1
    assert len(groups["cluster"]) == 1
    assert len(groups["op"]) == sum(n.kind == "op" for n in view.nodes)


def test_memory_plot_marks_peak_and_budget() -> None:
    view = plan_view(matmul_plan(), memory_budget=4096)
    svg = memory_svg(view)
    # arguments x (64 B) and w (256 B), the output (64 B), and at step 1
    # the matmul's partial result and neg's (256 B each); the output's
    # allocation, written after neg, holds one of the boxed copies of x and w
    assert "peak 896 B at step 1 (neg)" in svg and "budget 4 KiB" in svg
    ET.fromstring(svg)  # well formed


def test_page_is_self_contained() -> None:
    page = format_html([plan_view(matmul_plan(), "@f on cpu, [0, 1, 2, 3]")])
    assert page.startswith("<!DOCTYPE html>")
    assert 'id="search"' in page and "<script>" in page
    assert "@f on cpu" in page
    # nothing is fetched: no external scripts, styles, images or fonts
    assert not re.search(r"""(src|href)\s*=\s*["'](https?:)?//""", page)
    assert "<link" not in page and "@import" not in page
    urls = set(re.findall(r"https?://[^\"' )]+", page))
    assert urls <= {"http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink"}
    # the table lists the change, most expensive first
    table = page[page.index('<table class="changes">') :]
    assert table.index("reduce_scatter(sum) d0") < table.index("local_slice d0")


def test_missing_graphviz_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(ReportError, match="needs Graphviz's 'dot' program"):
        format_html([plan_view(matmul_plan())])


def test_several_functions_share_a_page_with_unique_ids() -> None:
    views = [plan_view(matmul_plan(), "@f"), plan_view(transformer_plan(2), "@g")]
    page = format_html(views)
    ids = re.findall(r'<g id="([^"]+)" class="node', page)
    assert len(ids) == len(set(ids)) == sum(len(v.nodes) for v in views)
    assert {i.split("&#45;")[0] for i in ids} == {"f0", "f1"}
    assert page.count('<section class="function"') == 2
    dot = format_dot(views)
    assert dot.count("digraph ") == 2


def test_a_function_without_ops() -> None:
    g = SbpGraph((2,))
    x = g.add_argument("x", TensorType((4, 4)), layout=(S(0),))
    g.add_result("y", x, (B,))
    plan = propagate(g, lambda s, d, t: 1e-6, "greedy", edge_bytes=lambda s, d, t: 32.0)
    view = plan_view(plan, "@id")
    groups = svg_groups(render_svg(plan_graph(view)))
    assert len(groups["arg"]) == 1 and len(groups["result"]) == 1
    assert "op" not in groups and len(groups["boxing"]) == 1
    assert "<svg" in format_html([view])


def test_memory_plot_is_stable_and_leaves_matplotlib_settings_alone() -> None:
    import matplotlib

    before = dict(matplotlib.rcParams)
    view = plan_view(matmul_plan())
    first = memory_svg(view)
    assert memory_svg(view) == first  # the same plan, the same picture
    assert "<text" in first  # text stays text (svg.fonttype none)
    assert dict(matplotlib.rcParams) == before
