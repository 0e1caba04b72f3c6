"""A plan as one self-contained HTML page (``report_format=html``).

Per function: the totals, the dataflow graph as an inline SVG laid out by
Graphviz (``dot``), a legend of the layout colours, the per-device
memory at every step plotted by matplotlib (peak and budget marked), the
most expensive layout changes, every op's signature, and the strategy's
statistics.  A search box highlights the nodes whose name, layout or
signature contains the text (also ``page.html#search=TEXT``).  No script,
style or font is fetched from the network.
"""

from __future__ import annotations

import html
import io
import math
import re
from collections.abc import Sequence

from sbpc.propagation.report.dot import colours, plan_graph, render_svg
from sbpc.propagation.report.summary import format_bytes, format_time
from sbpc.propagation.report.view import PlanView

# Rows of the most expensive layout changes table.
TOP_CHANGES = 20


def memory_svg(view: PlanView) -> str:
    """Live bytes per device over the op steps, with the peak and the budget.

    matplotlib's SVG backend on a bare ``Figure`` (no pyplot state), text
    kept as text so the page stays small and searchable.
    """
    import matplotlib
    from matplotlib.figure import Figure
    from matplotlib.ticker import MultipleLocator

    memory = view.memory or [0.0]
    fig = Figure(figsize=(12, 3), layout="constrained")
    ax = fig.add_subplot()
    # step k runs over [k, k + 1): what is live while the k-th op runs
    edges = list(range(len(memory) + 1))
    ax.stairs(memory, edges, fill=True, color="#1f77b4", alpha=0.15)
    ax.stairs(memory, edges, color="#1f77b4", linewidth=1.2)
    peak_step = max(range(len(memory)), key=memory.__getitem__)
    ax.axhline(view.peak, color="#d62728", linestyle="--", linewidth=1)
    ax.annotate(
        f"peak {format_bytes(view.peak)} at step {peak_step} "
        f"({view.step_names[min(peak_step, len(view.step_names) - 1)]})",
        (peak_step, view.peak),
        xytext=(4, 4),
        textcoords="offset points",
        color="#d62728",
        fontsize=8,
    )
    if view.budget is not None:
        ax.axhline(view.budget, color="#2ca02c", linestyle=":", linewidth=1.2)
        ax.annotate(
            f"budget {format_bytes(view.budget)}",
            (0, view.budget),
            xytext=(4, -10),
            textcoords="offset points",
            color="#2ca02c",
            fontsize=8,
        )
    top = max(view.peak, view.budget or 0.0) * 1.15 or 1.0
    ax.set_ylim(0, top)
    ax.set_xlim(0, len(memory))
    ax.set_xlabel("op step (program order)", fontsize=8)
    ax.set_ylabel("live bytes per device", fontsize=8)
    # ticks at powers of two times 1, 2 or 4: round numbers of KiB/MiB
    ax.yaxis.set_major_locator(MultipleLocator(2 ** math.floor(math.log2(top / 4))))
    ax.yaxis.set_major_formatter(lambda y, _: format_bytes(y))
    ax.tick_params(labelsize=7)
    ax.grid(axis="y", alpha=0.3)
    out = io.StringIO()
    # no date or creator: the same plan gives the same page
    # text kept as text, ids stable across runs; the user's settings untouched
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "sbpc"}):
        fig.savefig(out, format="svg", metadata={"Date": None, "Creator": None})
    svg = out.getvalue()
    # its RDF metadata names vocabularies by URL: nothing a page needs
    svg = re.sub(r"<metadata>.*?</metadata>", "", svg, flags=re.S)
    return svg[svg.index("<svg") :]


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _changes_table(view: PlanView, prefix: str) -> str:
    if not view.changes:
        return (
            "<p>No layout changes: every value is used in the layout it is made in.</p>"
        )
    rows = []
    for c in view.changes[:TOP_CHANGES]:
        into = "" if c.consumer.startswith("result") else f" #{c.operand}"
        rows.append(
            f'<tr data-node="{_e(prefix + c.consumer)}">'
            f"<td>{_e(c.value)}</td><td>{_e(c.producer_name)}</td>"
            f"<td>{_e(c.consumer_name)}{into}</td><td>{_e(c.tensor)}</td>"
            f"<td>{_e(c.src)} &rarr; {_e(c.dst)}</td>"
            f"<td>{_e(' + '.join(c.collectives) or 'none')}</td>"
            f'<td class="num">{_e(format_bytes(c.bytes))}</td>'
            f'<td class="num">{_e(format_time(c.time))}</td></tr>'
        )
    more = len(view.changes) - TOP_CHANGES
    tail = f"<p>{more} cheaper changes not listed.</p>" if more > 0 else ""
    return (
        '<table class="changes"><thead><tr><th>value</th><th>from</th><th>into</th>'
        "<th>tensor</th><th>layouts</th><th>collectives</th><th>bytes/device</th>"
        "<th>time</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table>" + tail
    )


def _ops_table(view: PlanView, prefix: str) -> str:
    rows = "".join(
        f'<tr data-node="{_e(prefix + n.key)}"><td>{_e(n.kind)}</td>'
        f"<td>{_e(n.name)}</td><td>{_e(n.layout or '')}</td><td>{_e(n.detail)}</td></tr>"
        for n in view.nodes
    )
    return (
        f"<details><summary>every node ({len(view.nodes)})</summary>"
        '<table class="ops"><thead><tr><th>kind</th><th>name</th><th>layout</th>'
        f"<th>signature / detail</th></tr></thead><tbody>{rows}</tbody></table></details>"
    )


def _legend(view: PlanView) -> str:
    items = "".join(
        f'<span class="swatch" style="background:{colour}"></span>{_e(layout)} '
        for layout, colour in colours(view).items()
    )
    return (
        f'<p class="legend">op fill = output layout: {items}'
        '<span class="boxing-key"></span>layout change (collectives, bytes per device)'
        "</p>"
    )


def _totals(view: PlanView) -> str:
    t = view.totals
    parts = [
        f"strategy <b>{_e(view.strategy)}</b> on hierarchy {_e(list(view.hierarchy))}",
        f"{t['ops']} ops",
        f"modeled time {_e(format_time(t['time']))} (communication "
        f"{_e(format_time(t['comm_time']))}, compute {_e(format_time(t['compute_time']))})",
        f"{t['layout_changes']} layout changes moving {_e(format_bytes(t['bytes']))}",
        f"peak memory {_e(format_bytes(t['peak_memory_per_device']))} per device",
    ]
    if view.repeats:
        parts.append(
            f"{len(view.repeats)} repeated layer(s) collapsed ("
            + ", ".join(f"{r.count}x{r.period} ops" for r in view.repeats)
            + ")"
        )
    return '<p class="totals">' + " &middot; ".join(parts) + "</p>"


def _stats(view: PlanView) -> str:
    if not view.stats:
        return ""
    rows = "".join(
        f"<tr><td>{_e(k)}</td><td>{_e(f'{v:.4g}' if isinstance(v, float) else v)}</td></tr>"
        for k, v in view.stats.items()
    )
    return (
        "<details><summary>strategy statistics</summary>"
        f'<table class="stats">{rows}</table></details>'
    )


def function_section(view: PlanView, index: int) -> str:
    prefix = f"f{index}-"
    svg = render_svg(plan_graph(view, prefix))
    return (
        f'<section class="function" id="{prefix}section">'
        f"<h2>{_e(view.title or 'plan')}</h2>"
        + _totals(view)
        + _legend(view)
        + f'<p class="zoom" data-graph="{prefix}graph">zoom '
        + "".join(
            f'<button type="button" data-zoom="{z}">{label}</button>'
            for z, label in (
                ("fit", "fit"),
                ("out", "&minus;"),
                ("in", "+"),
                ("1", "1:1"),
            )
        )
        + "</p>"
        + f'<div class="graph" id="{prefix}graph">{svg}</div>'
        + "<h3>Memory per device over time</h3>"
        + f'<div class="memory">{memory_svg(view)}</div>'
        + "<h3>Most expensive layout changes</h3>"
        + _changes_table(view, prefix)
        + _ops_table(view, prefix)
        + _stats(view)
        + "</section>"
    )


def format_html(
    views: Sequence[PlanView], title: str = "sbpc plan", timing: str | None = None
) -> str:
    """The whole page: one section per function's plan, then ``timing`` (the
    wall time per phase, as ``--timing`` prints it) when given."""
    sections = "".join(function_section(v, i) for i, v in enumerate(views))
    if timing:
        sections += (
            '<section class="timing"><h2>Timing</h2>'
            f"<pre>{_e(timing)}</pre></section>\n"
        )
    return _PAGE.format(
        title=_e(title), style=_STYLE, script=_SCRIPT, sections=sections
    )


_STYLE = """
body { font: 14px/1.4 Helvetica, Arial, sans-serif; margin: 0; color: #222; }
header { position: sticky; top: 0; background: #fafafa; border-bottom: 1px solid #ddd;
  padding: 8px 16px; z-index: 2; display: flex; gap: 12px; align-items: center; }
header h1 { font-size: 16px; margin: 0 12px 0 0; }
#search { width: 24em; padding: 3px 6px; }
section.function { padding: 0 16px 16px; }
.graph { overflow: auto; max-height: 80vh; border: 1px solid #ddd; background: white; }
.graph svg { display: block; }
p.zoom { margin: 4px 0; font-size: 12px; }
p.zoom button { font-size: 12px; min-width: 2.2em; }
.memory svg { max-width: 100%; height: auto; }
table { border-collapse: collapse; margin: 6px 0; font-size: 12px; }
td, th { border: 1px solid #ddd; padding: 2px 6px; text-align: left; }
td.num { text-align: right; }
tbody tr { cursor: pointer; }
.swatch { display: inline-block; width: 12px; height: 12px; border: 1px solid #888;
  margin: 0 3px 0 8px; vertical-align: middle; }
.boxing-key { display: inline-block; width: 24px; height: 0; border-top: 3px solid #d62728;
  margin: 0 4px 0 12px; vertical-align: middle; }
.searching g.node:not(.hit), .searching g.edge { opacity: 0.25; }
g.node.hit polygon, g.node.hit ellipse, g.node.hit path { stroke: #ff00ff; stroke-width: 3; }
tr.hit { background: #ffe4ff; }
"""

_SCRIPT = """
(function () {
  var box = document.getElementById('search');
  var count = document.getElementById('count');
  var hits = [], at = -1;
  function text(node) {
    var t = node.textContent;
    node.querySelectorAll('a').forEach(function (a) {
      t += ' ' + (a.getAttribute('xlink:title') || a.getAttribute('title') || '');
    });
    return t.toLowerCase();
  }
  function search(q) {
    q = q.trim().toLowerCase();
    hits = []; at = -1;
    document.querySelectorAll('.hit').forEach(function (e) { e.classList.remove('hit'); });
    document.querySelectorAll('.graph').forEach(function (g) {
      g.classList.toggle('searching', q !== '');
    });
    if (q === '') { count.textContent = ''; return; }
    document.querySelectorAll('g.node').forEach(function (n) {
      if (text(n).indexOf(q) >= 0) { n.classList.add('hit'); hits.push(n); }
    });
    document.querySelectorAll('tr[data-node]').forEach(function (r) {
      if (r.textContent.toLowerCase().indexOf(q) >= 0) r.classList.add('hit');
    });
    count.textContent = hits.length + ' node(s)';
  }
  function next() {
    if (!hits.length) return;
    at = (at + 1) % hits.length;
    hits[at].scrollIntoView({block: 'center', inline: 'center'});
  }
  box.addEventListener('input', function () { search(box.value); });
  box.addEventListener('keydown', function (e) { if (e.key === 'Enter') next(); });
  document.getElementById('next').addEventListener('click', next);
  document.querySelectorAll('tr[data-node]').forEach(function (r) {
    r.addEventListener('click', function () {
      var n = document.getElementById(r.getAttribute('data-node'));
      if (n) { n.scrollIntoView({block: 'center', inline: 'center'}); }
    });
  });
  // zoom: the SVG's own size times a factor; "fit" shows the whole width
  document.querySelectorAll('p.zoom').forEach(function (bar) {
    var graph = document.getElementById(bar.getAttribute('data-graph'));
    var svg = graph.querySelector('svg');
    var w = svg.width.baseVal.value, h = svg.height.baseVal.value, z = 1;
    function set(f) {
      z = Math.max(0.02, Math.min(4, f));
      svg.style.width = (w * z) + 'px'; svg.style.height = (h * z) + 'px';
      graph.setAttribute('data-zoom', z.toFixed(3));
    }
    bar.querySelectorAll('button').forEach(function (b) {
      b.addEventListener('click', function () {
        var k = b.getAttribute('data-zoom');
        if (k === 'fit') set((graph.clientWidth - 4) / w);
        else if (k === 'in') set(z * 1.25);
        else if (k === 'out') set(z / 1.25);
        else set(1);
      });
    });
    // a graph wider than its box opens on its first node, not on blank space
    var first = null, top = Infinity;
    graph.querySelectorAll('g.node').forEach(function (n) {
      var r = n.getBoundingClientRect();
      if (r.top < top) { top = r.top; first = n; }
    });
    if (first && w > graph.clientWidth) {
      var r = first.getBoundingClientRect(), g = graph.getBoundingClientRect();
      graph.scrollLeft += r.left - g.left - 40;
    }
  });
  var m = /[#&]search=([^&]*)/.exec(location.hash);
  if (m) { box.value = decodeURIComponent(m[1]); search(box.value); next(); }
})();
"""

_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>{title}</title>
<style>{style}</style></head>
<body>
<header><h1>{title}</h1>
<input id="search" type="search" placeholder="search ops, layouts, signatures">
<button id="next" type="button">next</button><span id="count"></span></header>
{sections}
<script>{script}</script>
</body></html>
"""
