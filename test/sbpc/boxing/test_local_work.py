"""The local work of a boxing step is priced like an elementwise op.

A ``local_to_partial`` writes the full partial piece on every device, and a
reduce-scatter along a dim that is not the piece's outermost one needs a
transposing copy: one flop per element written, on the cost model's device.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from sbpc.algebra.sbp import B, P, Partial, S
from sbpc.algebra.tensor_type import TensorType
from sbpc.boxing.collective_kind import CollectiveKind
from sbpc.boxing.cost_model import CostModel, Device, Link
from sbpc.boxing.local_work import local_elements
from sbpc.boxing.planner import single_step

T = TensorType((64, 16), "f32")
# No latency, slow device: a step's time is its bytes' time plus its work.
MODEL = CostModel(
    links=(Link(1e9, 0.0),), device=Device(flops=1e6, memory_bandwidth=1e9)
)


@pytest.mark.parametrize(
    ("src", "dst"), [(B, P), (B, Partial("max")), (S(0), P), (S(1), P)]
)
def test_to_partial_costs_one_flop_per_element_of_the_partial_piece(src, dst):
    step = single_step((src,), (dst,), (0,), T, (8,), MODEL)
    assert step is not None and step.kind == CollectiveKind.LOCAL_TO_PARTIAL
    assert step.exact_bytes == 0
    assert step.exact_time == Fraction(MODEL.compute_time(64 * 16, 0.0))
    assert step.time > 0


def test_to_partial_price_follows_the_device_and_the_piece():
    fast = CostModel(links=MODEL.links, device=Device(1e9, 1e9))
    slow = single_step((B,), (P,), (0,), T, (8,), MODEL)
    quick = single_step((B,), (P,), (0,), T, (8,), fast)
    assert slow is not None and quick is not None
    assert quick.time == pytest.approx(slow.time / 1000)
    # On a 2x4 mesh the piece is split by the other dim: a quarter of it.
    step = single_step((S(0), B), (S(0), P), (1,), T, (2, 4), MODEL)
    assert step is not None
    assert step.time == pytest.approx(32 * 16 / 1e6)


@pytest.mark.parametrize(
    ("src", "dst", "work"),
    [
        ((P,), (S(0),), 0),  # the outermost dim: pieces are contiguous
        ((P,), (S(1),), 64 * 16),  # pieces interleave: a transposing copy
        ((Partial("max"),), (S(1),), 0),  # a reduction, then a slice
        ((S(0),), (B,), 0),
        ((S(1),), (B,), 0),  # its layout fuses into producer and consumer
        ((P,), (B,), 0),  # an all-reduce keeps its layout
        ((S(0),), (S(1),), 0),
        ((B,), (S(1),), 0),  # a slice is fused into its consumer
    ],
)
def test_scatters_off_the_outer_dim_transpose(src, dst, work):
    step = single_step(src, dst, (0,), T, (8,), MODEL)
    assert step is not None
    assert local_elements(step.kind, step.dims, src, dst, T, (8,)) == work
    assert step.exact_time == Fraction(step.exact_bytes) / Fraction(
        MODEL.links[0].bandwidth
    ) + Fraction(MODEL.compute_time(work, 0.0) if work else 0)


def test_outer_dims_of_size_one_do_not_transpose():
    row = TensorType((1, 64), "f32")
    step = single_step((P,), (S(1),), (0,), row, (8,), MODEL)
    assert step is not None
    assert local_elements(step.kind, step.dims, (P,), (S(1),), row, (8,)) == 0
