"""Op rules on uneven splits: every candidate with unequal pieces is proved
numerically (``check_signature`` runs each device's exact, unequal piece),
and ops that move elements across positions refuse uneven splits."""

from __future__ import annotations

import numpy as np
import pytest

from sbpc.algebra.layout import is_even
from sbpc.algebra.sbp import S
from sbpc.algebra.tensor_type import TensorType
from sbpc.ops.check import check_signature, random_inputs
from sbpc.ops.registry import nd_signatures
from sbpc.ops.spec import OpSpec
from sbpc.ops.uneven import consumed_dims, uneven_ok

HLO = "stablehlo."
HIERARCHIES = [(3,), (4,), (2, 2), (2, 4)]


def T(*shape: int) -> TensorType:
    return TensorType(tuple(shape), "f32")


DOT = {
    "lhs_batching_dimensions": (),
    "rhs_batching_dimensions": (),
    "lhs_contracting_dimensions": (1,),
    "rhs_contracting_dimensions": (0,),
}
CASES = {
    "add": OpSpec(HLO + "add", [T(7, 5)] * 2, [T(7, 5)]),
    "exponential": OpSpec(HLO + "exponential", [T(3, 10)], [T(3, 10)]),
    "maximum": OpSpec(HLO + "maximum", [T(5, 2)] * 2, [T(5, 2)]),
    "dot_general": OpSpec(HLO + "dot_general", [T(6, 7), T(7, 5)], [T(6, 5)], DOT),
    "reduce_add": OpSpec(
        HLO + "reduce", [T(7, 5), T()], [T(5)], {"dimensions": (0,), "kind": "add"}
    ),
    "reduce_max": OpSpec(
        HLO + "reduce", [T(3, 10), T()], [T(3)], {"dimensions": (1,), "kind": "max"}
    ),
    "broadcast_in_dim": OpSpec(
        HLO + "broadcast_in_dim", [T(7)], [T(7, 5)], {"broadcast_dimensions": (0,)}
    ),
    "transpose": OpSpec(
        HLO + "transpose", [T(7, 5)], [T(5, 7)], {"permutation": (1, 0)}
    ),
}


def _uneven(op: OpSpec, sig, hierarchy) -> bool:
    pairs = zip((*op.operands, *op.results), (*sig.inputs, *sig.outputs), strict=True)
    return any(not is_even(t.shape, nd, hierarchy) for t, nd in pairs)


@pytest.mark.parametrize("hierarchy", HIERARCHIES, ids=str)
@pytest.mark.parametrize("name", list(CASES))
def test_uneven_signatures_are_exact(name: str, hierarchy) -> None:
    op = CASES[name]
    rng = np.random.default_rng(len(name))
    inputs = random_inputs(op, rng)
    sigs = [s for s in nd_signatures(op, hierarchy) if _uneven(op, s, hierarchy)]
    assert sigs, "the shapes must give uneven candidates"
    for sig in sigs:
        check_signature(op, sig, hierarchy, inputs, rng)


def test_reduction_over_an_uneven_split_is_partial() -> None:
    sigs = nd_signatures(CASES["reduce_add"], (4,))
    assert any(s.inputs[0] == (S(0),) for s in sigs)
    assert consumed_dims(CASES["reduce_add"]) == [(0, (0,), 1)]


@pytest.mark.parametrize(
    "op",
    [
        OpSpec(HLO + "reshape", [T(6, 4)], [T(24)]),
        OpSpec(HLO + "concatenate", [T(6, 4)] * 2, [T(12, 4)], {"dimension": 0}),
    ],
    ids=["reshape", "concatenate"],
)
def test_position_moving_ops_refuse_uneven_splits(op: OpSpec) -> None:
    assert not uneven_ok(op.name)
    for sig in nd_signatures(op, (4,)):
        assert not _uneven(op, sig, (4,)), sig


def test_argmax_style_reductions_keep_even_splits() -> None:
    op = OpSpec(
        HLO + "reduce",
        [T(6, 5), TensorType((6, 5), "i32"), T(), TensorType((), "i32")],
        [T(5), TensorType((5,), "i32")],
        {"dimensions": (0,), "kind": "argmax"},
    )
    assert all(not _uneven(op, s, (4,)) for s in nd_signatures(op, (4,)))
