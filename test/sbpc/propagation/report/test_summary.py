"""Reports: every op's signature, the changes it causes, the totals."""

from __future__ import annotations

import json

import pytest

from sbpc.algebra.sbp import B, NdSbp, P, S
from sbpc.algebra.signature import Signature
from sbpc.algebra.tensor_type import TensorType
from sbpc.propagation.driver import propagate
from sbpc.propagation.graph import SbpGraph
from sbpc.propagation.report.summary import format_bytes, format_report, format_time

T = TensorType((8, 8))


def cost(src: NdSbp, dst: NdSbp, tensor: TensorType) -> float:
    return 1e-6 if src[0] == P else 0.0


def nbytes(src: NdSbp, dst: NdSbp, tensor: TensorType) -> float:
    return 3 / 4 * tensor.nbytes


def plan():
    g = SbpGraph((4,))
    x = g.add_argument("x", T, layout=(S(0),))
    w = g.add_argument("w", T)
    cands = [Signature(((S(1),), (S(0),)), ((P,),))]
    (y,) = g.add_op("matmul", [x, w], [T], cands, compute_costs=[2e-6])
    g.add_result("y", y, (S(0),))
    return propagate(g, cost, "greedy", edge_bytes=nbytes)


def test_text_report() -> None:
    text = format_report(plan())
    assert text == (
        "propagation plan (strategy=greedy) on hierarchy [4]\n"
        "arguments:\n"
        "  x: [S(0)] (given)  read as [S(1)] by 1 change: 192 B  0 s\n"
        "  w: [B]  read as [S(0)] by 1 change: 192 B  0 s\n"
        "ops:\n"
        "  matmul  ([S(1)], [S(0)]) -> ([P(sum)])\n"
        "      operand 0 (x): [S(0)] -> [S(1)]  192 B  0 s\n"
        "      operand 1 (w): [B] -> [S(0)]  192 B  0 s\n"
        "results:\n"
        "  y: [S(0)]\n"
        "      operand 0 (matmul): [P(sum)] -> [S(0)]  192 B  1 us\n"
        "total: 3 us (communication 1 us, compute 2 us), 3 layout changes moving "
        "576 B, peak memory 704 B per device\n"
    )


def test_json_report() -> None:
    data = json.loads(format_report(plan(), fmt="json"))
    assert data["ops"][0]["signature"] == "([S(1)], [S(0)]) -> ([P(sum)])"
    assert data["ops"][0]["changes"][1] == {
        "operand": 1,
        "value": "w",
        "from": "w",
        "src": "[B]",
        "dst": "[S(0)]",
        "bytes": 192.0,
        "time": 0.0,
    }
    assert data["results"][0]["changes"][0]["time"] == 1e-6
    assert data["totals"]["time"] == pytest.approx(3e-6)
    # arguments x (64 B) and w (256 B), the output y (64 B), and at step 0
    # the partial product (256 B) with x's and w's boxed copies (64 B each),
    # one of which y's allocation holds (y is written after the step)
    assert data["totals"]["peak_memory_per_device"] == 320 + 64 + 256 + 64
    with pytest.raises(ValueError, match="unknown report format"):
        format_report(plan(), fmt="xml")  # type: ignore[arg-type]


def test_a_split_parameter_names_its_gathers() -> None:
    """A parameter stored split (ZeRO/FSDP storage) and read whole by two
    products: the report names its storage layout and its two gathers'
    bytes and time (each use gathers its own copy in the time model)."""
    g = SbpGraph((4,))
    x = g.add_argument("x", T, layout=(B,))
    w = g.add_argument("w", T, layout=(S(0),))
    whole = [Signature(((B,), (B,)), ((B,),))]
    (y,) = g.add_op("matmul", [x, w], [T], whole)
    (z,) = g.add_op("matmul", [y, w], [T], whole)
    g.add_result("z", z, (B,))
    data = json.loads(
        format_report(propagate(g, cost, "greedy", edge_bytes=nbytes), fmt="json")
    )
    reads = data["arguments"][1]["reads"]
    assert reads == {
        "layouts": ["[B]"],
        "changes": 2,
        "bytes": 384.0,
        "time": 0.0,
        "per_use": False,  # no budget: gathered once
    }
    assert data["arguments"][0]["reads"] is None  # read as it is stored
    text = format_report(propagate(g, cost, "greedy", edge_bytes=nbytes))
    assert "  w: [S(0)] (given)  read as [B] by 2 changes: 384 B  0 s\n" in text


def test_units() -> None:
    assert format_time(0.5e-3) == "500 us"
    assert format_time(2.0) == "2 s"
    assert format_time(3e-9) == "3 ns"
    assert format_bytes(3 * 2**20) == "3 MiB"
    assert format_bytes(None) == "? B"


def test_the_lower_bound_says_how_far_the_plan_is_from_the_best() -> None:
    p = plan()
    asked = []

    def bound() -> float:
        asked.append(1)
        return 2e-6

    p.bound = bound
    text = format_report(p)
    assert "\nlower bound: 2 us (plan is 50.0% above)\n" in text
    assert json.loads(format_report(p, "json"))["totals"]["lower_bound"] == 2e-6
    assert asked == [1]  # computed once, when first read
    p.bound = 3e-6
    assert "lower bound: 3 us (plan is 0% above)" in format_report(p)
    p.bound = None
    assert "lower bound" not in format_report(p)


def test_a_tied_result_says_so() -> None:
    g = SbpGraph((4,))
    w = g.add_argument("w", T)
    (y,) = g.add_op("neg", [w], [T], [Signature(((S(0),),), ((S(0),),))])
    g.add_result("w'", y, tied_to=w)
    text = format_report(propagate(g, cost, "greedy"))
    assert "  w: [B]\n" in text
    assert "  w': [B] (tied to w)\n" in text
    assert (
        json.loads(format_report(propagate(g, cost, "greedy"), "json"))["results"][0][
            "tied_to"
        ]
        == "w"
    )
