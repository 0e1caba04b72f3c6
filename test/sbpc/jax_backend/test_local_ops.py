"""device_local_ops gives every device the local op local_op gives it."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import sbpc.jax_backend.ops  # noqa: F401 (registers the JAX local functions)
from sbpc.algebra.tensor_type import TensorType
from sbpc.jax_backend.local_ops import device_local_ops
from sbpc.ops.registry import local_op, nd_signatures
from sbpc.ops.spec import OpSpec

HIERARCHIES = [(2, 4), (2, 2, 2), (8,)]

# Ops whose kind registers a per-device local function (the ones where the
# coordinate matters), plus one without.
OPS = [
    OpSpec(
        "stablehlo.constant",
        [],
        [TensorType((8, 16), "f32")],
        {"value": np.arange(128, dtype=np.float32).reshape(8, 16)},
    ),
    OpSpec("stablehlo.iota", [], [TensorType((16, 8), "i32")], {"iota_dimension": 0}),
    OpSpec(
        "stablehlo.slice",
        [TensorType((16, 24), "f32")],
        [TensorType((16, 16), "f32")],
        {"start_indices": (0, 8), "limit_indices": (16, 24), "strides": (1, 1)},
    ),
    OpSpec(
        "stablehlo.add",
        [TensorType((8, 16), "f32"), TensorType((8, 16), "f32")],
        [TensorType((8, 16), "f32")],
    ),
]


def same(a: OpSpec, b: OpSpec) -> bool:
    if (a.name, a.operands, a.results) != (b.name, b.operands, b.results):
        return False
    if a.attrs.keys() != b.attrs.keys():
        return False
    return all(np.array_equal(a.attrs[k], b.attrs[k]) for k in a.attrs)


@pytest.mark.parametrize("hierarchy", HIERARCHIES, ids=str)
@pytest.mark.parametrize("op", OPS, ids=lambda op: op.name)
@pytest.mark.parametrize("padded", [False, True])
def test_every_device_gets_its_own_local_op(
    op: OpSpec, hierarchy: tuple[int, ...], padded: bool
) -> None:
    coords = list(itertools.product(*(range(n) for n in hierarchy)))
    sigs = nd_signatures(op, hierarchy)
    assert sigs
    for sig in sigs:
        shared = device_local_ops(op, sig, hierarchy, coords, padded=padded)
        each = [local_op(op, sig, hierarchy, c, padded=padded) for c in coords]
        assert len(shared) == len(coords)
        for got, want in zip(shared, each, strict=True):
            assert same(got, want), (sig, got, want)
