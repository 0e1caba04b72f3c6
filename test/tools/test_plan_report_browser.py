"""The HTML plan report as a browser shows it: headless Chromium loads the
page sbpc-opt wrote and its DOM must hold one SVG node per argument, op and
result of the plan, one red edge per layout change, and the search box must
find the ops it is asked for."""

from __future__ import annotations

import json
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from sbpc.testing.browser import dump_dom, screenshot

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "mlp_annotated.mlir"
SBPC_OPT = [sys.executable, "-m", "sbpc.tools.sbpc_opt"]


class _Elements(HTMLParser):
    """Every element's tag, id, classes and text (text of its subtree)."""

    def __init__(self) -> None:
        super().__init__()
        self.elements: list[dict] = []
        self._open: list[dict] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        element = {
            "tag": tag,
            "id": a.get("id") or "",
            "class": (a.get("class") or "").split(),
            "text": "",
            "title": a.get("xlink:title") or "",
        }
        self.elements.append(element)
        if tag not in ("input", "meta", "br"):
            self._open.append(element)

    def handle_endtag(self, tag: str) -> None:
        if any(e["tag"] == tag for e in self._open):
            while self._open.pop()["tag"] != tag:
                pass

    def handle_data(self, data: str) -> None:
        for e in self._open:
            e["text"] += data


def elements(dom: str) -> list[dict]:
    parser = _Elements()
    parser.feed(dom)
    return parser.elements


def run_pipeline(report: Path, fmt: str) -> None:
    done = subprocess.run(
        [
            *SBPC_OPT,
            str(EXAMPLE),
            "-p",
            "sbp-inline,sbp-propagate{strategy=optimal "
            f'report="{report}" report_format={fmt}}},sbp-lower-boxing',
            "-o",
            str(report.with_suffix(".out.mlir")),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    tmp = tmp_path_factory.mktemp("report")
    run_pipeline(tmp / "plan.html", "html")
    run_pipeline(tmp / "plan.json", "json")
    return tmp / "plan.html", json.loads((tmp / "plan.json").read_text())


def test_svg_in_the_browser_has_the_plans_ops_and_edges(page) -> None:
    path, plan = page
    found = elements(dump_dom(path))
    nodes = [e for e in found if e["tag"] == "g" and "node" in e["class"]]
    ops = [e for e in nodes if "op" in e["class"]]
    args = [e for e in nodes if "arg" in e["class"]]
    results = [e for e in nodes if "result" in e["class"]]
    assert len(ops) == len(plan["ops"]) > 40
    assert len(args) == len(plan["arguments"])
    assert len(results) == len(plan["results"])
    assert len(nodes) == len(ops) + len(args) + len(results)
    # each op box reads the op's name and the layout of its result, in order
    for box, op in zip(
        sorted(ops, key=lambda e: int(e["id"].removeprefix("f0-op"))),
        plan["ops"],
        strict=True,
    ):
        output = op["signature"].split(" -> ")[1][1:-1]
        assert op["name"] in box["text"] and output in box["text"], (box, op)
    edges = [e for e in found if e["tag"] == "g" and "edge" in e["class"]]
    boxing = [e for e in edges if "boxing" in e["class"]]
    assert len(boxing) == plan["totals"]["layout_changes"] >= 1
    # one edge per use: every operand of every op, and every result
    operands = sum(op["signature"].split(" -> ")[0].count("[") for op in plan["ops"])
    for change in (c for op in plan["ops"] for c in op["changes"]):
        layouts = f"{change['src']} -> {change['dst']}"
        assert any(layouts in e["title"] or layouts in e["text"] for e in found), change
    assert len(edges) == operands + len(plan["results"])


def test_search_box_highlights_matching_ops(page) -> None:
    path, plan = page
    found = elements(dump_dom(path, fragment="search=dot_general"))
    hits = [
        e
        for e in found
        if e["tag"] == "g" and "node" in e["class"] and "hit" in e["class"]
    ]
    wanted = [op for op in plan["ops"] if "dot_general" in op["name"]]
    assert len(hits) == len(wanted) >= 3  # the MLP's three dense layers
    (count,) = [e for e in found if e["id"] == "count"]
    assert count["text"] == f"{len(wanted)} node(s)"


def test_screenshot(page, tmp_path: Path) -> None:
    path, _ = page
    out = tmp_path / "plan.png"
    screenshot(path, out, size=(800, 600))
    data = out.read_bytes()
    assert data.startswith(b"\x89PNG") and len(data) > 10_000
