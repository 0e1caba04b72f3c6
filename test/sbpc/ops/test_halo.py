"""Halo exchange (``sbpc.ops.halo``): which spatial splits get one, that the
checker proves them on 1-D and 2-D meshes, what is refused, the local op and
the priced halo."""

from __future__ import annotations

import flax.linen as nn
import jax
import numpy as np
import pytest
from jax import lax

from sbpc.algebra.sbp import B, S
from sbpc.boxing.cost_model import CostModel
from sbpc.jax import _parse
from sbpc.ops.check import check_signature, random_inputs
from sbpc.ops.cost import compute_costs
from sbpc.ops.derive import sig1d
from sbpc.ops.halo import halos
from sbpc.ops.registry import local_op, nd_signatures
from sbpc.ops.spec import OpSpec
from sbpc.passes.bridge.ops import op_spec_of


def _op(x_shape, w_shape, strides=(1, 1), rhs_d=(1, 1), padding="SAME") -> OpSpec:
    dims = ("NHWC", "HWIO", "NHWC") if len(x_shape) == 4 else ("NWC", "WIO", "NWC")

    def f(x, w):
        return lax.conv_general_dilated(
            x, w, strides, padding, rhs_dilation=rhs_d, dimension_numbers=dims
        )

    args = [np.zeros(x_shape, np.float32), np.zeros(w_shape, np.float32)]
    module = _parse(jax.jit(f).lower(*args).as_text(), "t")
    (op,) = [o for o in module.walk() if o.name == "stablehlo.convolution"]
    return op_spec_of(op)


IMG, K = (2, 16, 16, 4), (3, 3, 4, 8)
OPS = {
    "same": _op(IMG, K),
    "strided": _op(IMG, K, (2, 2)),
    "dilated": _op(IMG, K, rhs_d=(2, 2)),
    "sequence": _op((2, 64, 4), (5, 4, 8), (1,), (1,)),
    "5x5": _op(IMG, (5, 5, 4, 8)),
}


def _spatial_split(sig, op: OpSpec) -> bool:
    return any(s in (S(1), S(2)) for s in sig.inputs[0]) and op.operands[0].rank > 3


@pytest.mark.parametrize("name", sorted(OPS))
@pytest.mark.parametrize("hierarchy", [(2,), (4,), (2, 2), (2, 4)])
def test_halo_signatures_are_legal(name: str, hierarchy: tuple[int, ...]) -> None:
    """Every signature with a halo is proven numerically (uses neighbours'
    rows, edge devices the padding)."""
    op = OPS[name]
    rng = np.random.default_rng(0)
    inputs = random_inputs(op, rng)
    with_halo = [s for s in nd_signatures(op, hierarchy) if halos(op, s, hierarchy)]
    assert with_halo
    for sig in with_halo:
        check_signature(op, sig, hierarchy, inputs, rng)


def test_halo_widths() -> None:
    (h,) = halos(OPS["same"], sig1d([S(1), B], [S(1)]), (4,))
    assert (h.dim, h.mesh_dim, h.size, h.low, h.high) == (1, 0, 4, 1, 1)
    (h,) = halos(OPS["strided"], sig1d([S(2), B], [S(2)]), (2,))
    assert (h.low, h.high) == (0, 1)  # SAME with stride 2 pads (0, 1)
    (h,) = halos(OPS["dilated"], sig1d([S(1), B], [S(1)]), (4,))
    assert (h.low, h.high) == (2, 2)


def test_local_op_runs_unpadded_on_the_extended_piece() -> None:
    op = OPS["same"]
    local = local_op(op, sig1d([S(1), B], [S(1)]), (4,), (2,))
    assert local.operands[0].shape == (2, 6, 16, 4)
    assert [tuple(p) for p in local.attr("padding")] == [(0, 0), (1, 1)]
    assert local.results[0].shape == (2, 4, 16, 8)


def test_refused_splits() -> None:
    """No candidate where one exchange with the direct neighbours is not exact."""
    # a halo of 2 rows is wider than pieces of 1 row (16 rows on 16 devices)
    dilated = OPS["dilated"]
    assert any(halos(dilated, s, (4,)) for s in nd_signatures(dilated, (4,)))
    assert not any(_spatial_split(s, dilated) for s in nd_signatures(dilated, (16,)))
    # rows split by two mesh dims at once
    same = OPS["same"]
    assert not any(s.inputs[0] == (S(1), S(1)) for s in nd_signatures(same, (2, 2)))
    # uneven pieces (15 rows)
    uneven = _op((2, 15, 16, 4), K)
    assert not any(s.inputs[0] == (S(1),) for s in nd_signatures(uneven, (2,)))
    # VALID 3x3: output rows are not input rows / stride
    valid = _op(IMG, K, padding="VALID")
    assert not any(s.inputs[0] == (S(1),) for s in nd_signatures(valid, (2,)))


def test_the_halo_is_priced() -> None:
    """Splitting rows costs the halo's bytes and latency on top of the same
    work as splitting the batch (no exchange)."""
    op = OPS["same"]
    rows, batch = sig1d([S(1), B], [S(1)]), sig1d([S(0), B], [S(0)])
    model = CostModel()
    t_rows, t_batch = compute_costs(op, [rows, batch], (2,), model)
    assert t_batch < t_rows
    link = model.link(0, 1)
    halo_bytes = 2 * 2 * 16 * 4 * 4  # batch x (1 + 1 rows) x width x channels x f32
    # a launch per direction (the default links' fixed cost per collective)
    launches = 2 * link.overhead
    assert t_rows - t_batch == pytest.approx(
        launches + link.latency + halo_bytes / link.bandwidth
    )


def _pool(fn) -> OpSpec:
    module = _parse(jax.jit(fn).lower(np.zeros(IMG, np.float32)).as_text(), "t")
    (op,) = [o for o in module.walk() if o.name == "stablehlo.reduce_window"]
    return op_spec_of(op)


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: nn.max_pool(x, (3, 3), (2, 2), padding="SAME"),
        lambda x: nn.avg_pool(x, (3, 3), (1, 1), padding="SAME"),
    ],
    ids=["maxpool", "avgpool"],
)
@pytest.mark.parametrize("hierarchy", [(2,), (4,), (2, 2)])
def test_overlapping_pools_split_with_a_halo(fn, hierarchy) -> None:
    """Edge devices pad with the init value (-inf for max), proven."""
    op = _pool(fn)
    rng = np.random.default_rng(1)
    x = rng.standard_normal(IMG).astype(np.float32)
    init = np.array(-np.inf if op.attr("kind") == "max" else 0, np.float32)
    with_halo = [s for s in nd_signatures(op, hierarchy) if halos(op, s, hierarchy)]
    assert with_halo
    for sig in with_halo:
        check_signature(op, sig, hierarchy, [x, init], rng)
