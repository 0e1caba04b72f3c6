"""Compute costs: local work under each signature, priced by the device roofline."""

from __future__ import annotations

import math

import pytest

from sbpc.algebra.sbp import B, P, S
from sbpc.algebra.signature import Signature
from sbpc.algebra.tensor_type import TensorType
from sbpc.boxing.cost_model import CostModel
from sbpc.ops.cost import compute_costs, local_work
from sbpc.ops.dot_algorithm import DotAlgorithm
from sbpc.ops.registry import nd_signatures
from sbpc.ops.spec import OpSpec

DOT = OpSpec(
    "stablehlo.dot_general",
    (TensorType((8, 16), "f32"), TensorType((16, 24), "f32")),
    (TensorType((8, 24), "f32"),),
    {
        "lhs_batching_dimensions": (),
        "rhs_batching_dimensions": (),
        "lhs_contracting_dimensions": (1,),
        "rhs_contracting_dimensions": (0,),
    },
)
ADD = OpSpec(
    "stablehlo.add",
    (TensorType((8, 16), "f32"), TensorType((8, 16), "f32")),
    (TensorType((8, 16), "f32"),),
)


def sig(ins, outs) -> Signature:
    return Signature(tuple((x,) for x in ins), tuple((x,) for x in outs))


def test_contraction_flops_and_bytes_follow_the_local_shapes() -> None:
    flops, nbytes, extent = local_work(DOT, sig([B, B], [B]), (4,))
    assert flops == 2 * 8 * 24 * 16
    assert extent == 8  # rows 8, columns 24, contracted 16
    assert nbytes == 4 * (8 * 16 + 16 * 24 + 8 * 24)
    # rows split: a quarter of the work; contracted dim split: a quarter too
    assert local_work(DOT, sig([S(0), B], [S(0)]), (4,))[0] == flops / 4
    assert local_work(DOT, sig([S(1), S(0)], [P]), (4,))[0] == flops / 4


def test_other_ops_cost_one_flop_per_local_result_element_and_no_traffic() -> None:
    assert local_work(ADD, sig([B, B], [B]), (4,)) == (128.0, 0.0, math.inf)
    assert local_work(ADD, sig([S(1), S(1)], [S(1)]), (4,)) == (32.0, 0.0, math.inf)


def test_roofline_and_replicated_work_costs_more() -> None:
    model = CostModel.parse("flops=1e9,hbm=1e9")
    candidates = nd_signatures(DOT, (2, 2))
    costs = compute_costs(DOT, candidates, (2, 2), model)
    assert len(costs) == len(candidates)
    replicated = candidates.index(Signature(((B, B), (B, B)), ((B, B),)))
    assert costs[replicated] == pytest.approx(
        max(2 * 8 * 24 * 16 / 1e9, 4 * (8 * 16 + 16 * 24 + 8 * 24) / 1e9)
    )
    assert min(costs) < costs[replicated]
    # memoized: the same op on the same hierarchy is priced once
    assert compute_costs(DOT, candidates, (2, 2), model) is costs


def test_uneven_signatures_cost_their_largest_piece() -> None:
    """8 rows over 3 are pieces of 3, 3, 2: priced as 3 rows, like 9 over 3."""
    model = CostModel()
    costs = compute_costs(ADD, [sig([S(0), S(0)], [S(0)])], (3,), model)
    t9 = TensorType((9, 16), "f32")
    add9 = OpSpec("stablehlo.add", (t9, t9), (t9,))
    assert costs == compute_costs(add9, [sig([S(0), S(0)], [S(0)])], (3,), model)
    assert math.isfinite(costs[0])


def test_a_products_extent_is_its_smallest_local_dimension() -> None:
    """Rows split over 4 leave 2 rows; the contracted dim split leaves 4."""
    assert local_work(DOT, sig([S(0), B], [S(0)]), (4,)).extent == 2
    assert local_work(DOT, sig([B, S(1)], [S(1)]), (4,)).extent == 6
    assert local_work(DOT, sig([S(1), S(0)], [P]), (4,)).extent == 4


def test_batched_products_take_their_extent_per_batch() -> None:
    """A batch dim is neither rows nor columns: 3 products of 5x7 by 7x2."""
    batched = OpSpec(
        "stablehlo.dot_general",
        (TensorType((3, 5, 7), "f32"), TensorType((3, 7, 2), "f32")),
        (TensorType((3, 5, 2), "f32"),),
        {
            "lhs_batching_dimensions": (0,),
            "rhs_batching_dimensions": (0,),
            "lhs_contracting_dimensions": (2,),
            "rhs_contracting_dimensions": (1,),
        },
    )
    work = local_work(batched, sig([B, B], [B]), (2,))
    assert work.flops == 2 * 3 * 5 * 2 * 7 and work.extent == 2


def test_linalg_matmul_and_convolution_extents() -> None:
    mm = OpSpec(
        "linalg.matmul",
        (TensorType((4, 32), "f32"), TensorType((32, 16), "f32")),
        (TensorType((4, 16), "f32"),),
    )
    assert local_work(mm, sig([B, B], [B]), (2,)) == (
        2 * 4 * 16 * 32,
        4 * (128 + 512 + 64),
        4,
    )
    # NHWC 1x8x8x3 by HWIO 3x3x3x16, 'SAME': 64 output pixels as rows, 16
    # output features as columns, 3 x 9 contracted
    conv = OpSpec(
        "stablehlo.convolution",
        (TensorType((1, 8, 8, 3), "f32"), TensorType((3, 3, 3, 16), "f32")),
        (TensorType((1, 8, 8, 16), "f32"),),
        {
            "input_batch_dimension": 0,
            "input_feature_dimension": 3,
            "input_spatial_dimensions": (1, 2),
            "kernel_input_feature_dimension": 2,
            "kernel_output_feature_dimension": 3,
            "kernel_spatial_dimensions": (0, 1),
            "output_batch_dimension": 0,
            "output_feature_dimension": 3,
            "output_spatial_dimensions": (1, 2),
            "feature_group_count": 1,
            "batch_group_count": 1,
        },
    )
    work = local_work(conv, sig([B, B], [B]), (2,))
    assert work.flops == 2 * 64 * 16 * 27 and work.extent == 16


def test_flops_half_slows_products_with_few_rows() -> None:
    """Hockney's n-half: 2 rows at half extent 6 run at a quarter of the rate;
    the full-rate model and work that is no product are unchanged."""
    slow = CostModel.parse("flops=1e9,hbm=1e12,flops_half=6")
    full = CostModel.parse("flops=1e9,hbm=1e12")
    rows_split = sig([S(0), B], [S(0)])
    work = local_work(DOT, rows_split, (4,))
    assert full.compute_time(*work) == pytest.approx(work.flops / 1e9)
    assert slow.compute_time(*work) == pytest.approx(4 * work.flops / 1e9)
    add = local_work(ADD, sig([B, B], [B]), (4,))
    assert slow.compute_time(*add) == full.compute_time(*add)
    # the search sees it: splitting rows is no longer as good as splitting columns
    candidates = [rows_split, sig([B, S(1)], [S(1)])]
    assert compute_costs(DOT, candidates, (4,), full)[0] == pytest.approx(
        compute_costs(DOT, candidates, (4,), full)[1]
    )
    rows, cols = compute_costs(DOT, candidates, (4,), slow)
    assert rows > cols


def _dot(element: str) -> OpSpec:
    """``DOT`` with operands and result of ``element``."""
    return DOT.replace(
        [TensorType(t.shape, element) for t in DOT.operands],
        [TensorType(t.shape, element) for t in DOT.results],
    )


def test_products_are_priced_by_their_operand_dtype() -> None:
    """Under h100-sxm a bf16 product runs on the tensor cores (989 Tflop/s)
    and an exact f32 one on the CUDA cores (67 Tflop/s): the same flops cost
    less in bf16.  Elementwise work keeps the device's one rate."""
    hierarchy = (2,)
    model = CostModel.parse("h100-sxm,hbm=1e21")  # the flops term alone
    bf16, f32 = _dot("bf16"), _dot("f32").replace(precision=("HIGHEST", "HIGHEST"))
    sigs = [sig([B, B], [B])]
    (cost_bf16,) = compute_costs(bf16, sigs, hierarchy, model)
    (cost_f32,) = compute_costs(f32, sigs, hierarchy, model)
    flops = 2 * 8 * 24 * 16
    assert cost_bf16 == pytest.approx(flops / 989e12)
    assert cost_f32 == pytest.approx(flops / 67e12)
    assert cost_bf16 < cost_f32
    add_bf16 = OpSpec(
        "stablehlo.add",
        tuple(TensorType(t.shape, "bf16") for t in ADD.operands),
        (TensorType((8, 16), "bf16"),),
    )
    assert compute_costs(add_bf16, sigs, hierarchy, model) == compute_costs(
        ADD, sigs, hierarchy, model
    )


@pytest.mark.parametrize(
    ("machine", "precision", "rate"),
    [
        # An H100 runs f32 products below HIGHEST as tf32 (measured: 366
        # Tflop/s at DEFAULT and HIGH, 50 at HIGHEST; docs/machines.md).
        ("h100-sxm", None, 494.7e12),
        ("h100-sxm", ("DEFAULT", "DEFAULT"), 494.7e12),
        ("h100-sxm", ("DEFAULT", "HIGH"), 494.7e12),
        ("h100-sxm", ("HIGHEST", "DEFAULT"), 67e12),  # the higher operand's
        # A TPU: one bf16 pass at DEFAULT, three at HIGH, six at HIGHEST.
        ("tpu-v5p", None, 459e12),
        ("tpu-v5p", ("HIGH", "HIGH"), 153e12),
        ("tpu-v5p", ("HIGHEST", "HIGHEST"), 76.5e12),
        # A model without the precision classes prices every f32 product
        # at flops_f32, then at flops.
        ("flops_f32=7e12,flops=3e12", ("DEFAULT", "DEFAULT"), 7e12),
        ("flops=3e12", ("HIGH", "HIGH"), 3e12),
    ],
)
def test_f32_products_are_priced_by_their_precision(
    machine: str, precision: tuple[str, str] | None, rate: float
) -> None:
    model = CostModel.parse(f"{machine},hbm=1e21")
    op = _dot("f32")
    if precision is not None:
        op = op.replace(precision=precision)
    sigs = [sig([B, B], [B])]
    (cost,) = compute_costs(op, sigs, (2,), model)
    assert cost == pytest.approx(2 * 8 * 24 * 16 / rate)


@pytest.mark.parametrize(
    ("algorithm", "rate", "passes"),
    [
        (DotAlgorithm("bf16", "bf16", "f32"), 989e12, 1),
        (DotAlgorithm("bf16", "bf16", "f32", num_primitive_operations=3), 989e12, 3),
        (DotAlgorithm("f32", "f32", "f32"), 67e12, 1),
        (DotAlgorithm("tf32", "tf32", "f32"), 494.7e12, 1),
        (DotAlgorithm("f8E4M3FN", "f8E5M2", "f32"), 1979e12, 1),
    ],
)
def test_products_with_an_algorithm_are_priced_by_its_precision_types(
    algorithm: DotAlgorithm, rate: float, passes: int
) -> None:
    """An f32 product whose algorithm rounds to bf16 runs at the bf16 rate,
    once per primitive operation (bf16 x3 emulates f32 in three passes)."""
    model = CostModel.parse("h100-sxm,hbm=1e21")
    op = _dot("f32").replace(algorithm=algorithm)
    (cost,) = compute_costs(op, [sig([B, B], [B])], (2,), model)
    assert cost == pytest.approx(passes * 2 * 8 * 24 * 16 / rate)
    assert local_work(op, sig([B, B], [B]), (2,)).flops == passes * 2 * 8 * 24 * 16


@pytest.mark.parametrize("text", ["flops=1e9", "bw=1e9", "flops_half=8"])
def test_models_without_dtype_rates_price_every_dtype_alike(text: str) -> None:
    """The flops term (memory made free): one rate whatever the dtype."""
    model = CostModel.parse(text + ",hbm=1e21")
    sigs = [sig([B, B], [B])]
    assert compute_costs(_dot("bf16"), sigs, (2,), model) == compute_costs(
        _dot("f32"), sigs, (2,), model
    )
