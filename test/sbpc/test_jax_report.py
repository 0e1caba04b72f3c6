"""``Distributed.report_html`` and ``distribute``'s progress lines."""

from __future__ import annotations

import io
import json
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import sbpc.jax as sj

SVG = "{http://www.w3.org/2000/svg}"


def ffn(x: jax.Array, w1: jax.Array, w2: jax.Array) -> jax.Array:
    return x + jax.nn.gelu(x @ w1) @ w2


def _args() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((16, 32)).astype(np.float32)
    w1 = rng.standard_normal((32, 64)).astype(np.float32)
    w2 = rng.standard_normal((64, 32)).astype(np.float32)
    return x, w1, w2


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_report_html_pictures_the_plan(tmp_path: Path) -> None:
    dist = sj.distribute(
        ffn,
        *_args(),
        mesh=(2, 4),
        in_layouts=("[S(0), B]", "[B, S(1)]", "[B, S(0)]"),
        memory_budget=1 << 20,
    )
    page = dist.report_html(str(tmp_path / "plan.html"))
    assert (tmp_path / "plan.html").read_text() == page
    plan = json.loads(dist.plan_json)
    svg = page[page.index("<svg") : page.index("</svg>") + 6]
    groups: dict[str, int] = {}
    for g in ET.fromstring(svg).iter(f"{SVG}g"):
        for word in (g.get("class") or "").split():
            groups[word] = groups.get(word, 0) + 1
    assert groups["op"] == len(plan["ops"])
    assert groups["arg"] == len(plan["arguments"]) == 3
    assert groups["result"] == len(plan["results"])
    assert groups.get("boxing", 0) == plan["totals"]["layout_changes"]
    assert "budget 1 MiB" in page  # the budget distribute was given
    # distribute's wall time per phase, as --timing prints it
    timing = page[page.index('<section class="timing">') :]
    assert "sbpc.jax.distribute ffn" in timing
    for name in ("sbp-propagate", "sbp-lower-boxing", "emit (jax)"):
        assert name in timing
    # the program it pictures computes the function
    x, w1, w2 = _args()
    np.testing.assert_allclose(
        np.asarray(dist(x, w1, w2)),
        np.asarray(jax.jit(ffn)(x, w1, w2)),
        rtol=1e-4,
        atol=1e-4,
    )


def test_distribute_shows_its_phases_on_a_terminal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    err = Terminal()
    monkeypatch.setattr(sys, "stderr", err)
    sj.distribute(jnp.tanh, np.ones((8, 8), np.float32), mesh=4, in_layouts="S(0)")
    text = err.getvalue()
    done = [m.group(1) for m in re.finditer(r"sbpc: ([^\r\n]+?) +[\d.]+ s\n", text)]
    names = [d.split(" (")[0] if d.startswith("optimal") else d for d in done]
    assert names == [
        "jax lowering and layouts",
        "sbp-inline",
        "optimal: pairwise problem",
        "optimal: shrink",
        "sbp-propagate (optimal)",
        "sbp-lower-boxing",
        "jax emission",
        "loading the program",
    ], text


def test_distribute_is_quiet_when_asked_or_not_on_a_terminal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    err = Terminal()
    monkeypatch.setattr(sys, "stderr", err)
    sj.distribute(jnp.tanh, np.ones((8, 8), np.float32), mesh=4, quiet=True)
    assert err.getvalue() == ""
    pipe = io.StringIO()
    monkeypatch.setattr(sys, "stderr", pipe)
    sj.distribute(jnp.tanh, np.ones((8, 8), np.float32), mesh=4)
    assert pipe.getvalue() == ""
