"""Convolution, windows, sorting: the numpy references equal JAX, and every
signature the rules give is proven numerically on 1-D, 2-D and 3-D meshes.

The ops come from real JAX programs (``jax.jit(f).lower``), read through
sbpc's parser and IR bridge, so their attributes are what sbpc sees.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

from sbpc.algebra.sbp import B, P, S
from sbpc.jax import _parse
from sbpc.ops.check import SignatureCheckError, check_signature
from sbpc.ops.derive import sig1d
from sbpc.ops.registry import local_op, nd_signatures, signatures_1d
from sbpc.ops.spec import OpSpec
from sbpc.passes.bridge.ops import op_spec_of

NAMES = (
    "stablehlo.convolution",
    "stablehlo.reduce_window",
    "stablehlo.select_and_scatter",
    "stablehlo.sort",
    "stablehlo.reduce",
    "chlo.top_k",
)


def specs(fn: Callable[..., object], *args: np.ndarray) -> list[OpSpec]:
    """The OpSpecs of the interesting ops of ``fn``'s lowered program."""
    text = jax.jit(fn).lower(*args).as_text()
    module = _parse(text, "t")
    return [op_spec_of(op) for op in module.walk() if op.name in NAMES]


def _x(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def _conv(strides=(1, 1), padding="SAME", lhs_d=(1, 1), rhs_d=(1, 1), groups=1):
    def f(x, w):
        return lax.conv_general_dilated(
            x,
            w,
            strides,
            padding,
            lhs_dilation=lhs_d,
            rhs_dilation=rhs_d,
            dimension_numbers=("NHWC", "HWIO", "NHWC"),
            feature_group_count=groups,
            precision=lax.Precision.HIGHEST,
        )

    return f


X = _x(4, 8, 8, 4)
W = _x(3, 3, 4, 8, seed=1)
DW = _x(3, 3, 1, 4, seed=2)
V = _x(8, 8, seed=3)
# Ties, signed zeros, infinities and NaNs: where orders and arg-reductions differ.
SPECIAL = np.array(
    [[np.nan, 1.0, -0.0, 0.0, np.inf, 1.0, -np.inf, np.nan]] * 2
    + [[0.0, -0.0, 2.0, 2.0, np.nan, -1.0, 5.0, 5.0]] * 2,
    np.float32,
)

# (id, function, arguments): every op of each program is checked.
PROGRAMS: list[tuple[str, Callable[..., object], tuple[np.ndarray, ...]]] = [
    ("conv-same", _conv(), (X, W)),
    ("conv-strided-dilated", _conv((2, 1), ((1, 0), (2, 1)), (1, 2), (2, 1)), (X, W)),
    (
        "conv-grads",
        jax.grad(lambda x, w: jnp.sum(_conv((2, 2), "SAME")(x, w) ** 2), (0, 1)),
        (X, W),
    ),
    ("depthwise", _conv(groups=4), (X, DW)),
    (
        "depthwise-grads",
        jax.grad(lambda x, w: jnp.sum(_conv(groups=4)(x, w) ** 2), (0, 1)),
        (X, DW),
    ),
    ("patch", _conv((2, 2), "VALID"), (X, _x(2, 2, 4, 8, seed=4))),
    ("maxpool", lambda x: nn.max_pool(x, (2, 2), (2, 2)), (X,)),
    ("avgpool-same", lambda x: nn.avg_pool(x, (3, 3), (1, 1), padding="SAME"), (X,)),
    (
        "maxpool-grad",
        jax.grad(lambda x: jnp.sum(nn.max_pool(x, (2, 2), (2, 2)) ** 2)),
        (X,),
    ),
    ("cumsum", lambda v: jnp.cumsum(v, axis=1), (V,)),
    ("cummax", lambda v: lax.cummax(v, axis=0), (V,)),
    ("sort", lambda v: jnp.sort(v, axis=1), (V,)),
    ("argsort", lambda v: jnp.argsort(v, axis=0), (V,)),
    ("sort-2-keys", lambda v: lax.sort((v, -v), num_keys=2), (V,)),
    ("top_k", lambda v: lax.top_k(v, 3), (V,)),
    ("argmax", lambda v: jnp.argmax(v, axis=1), (V,)),
    ("argmin", lambda v: jnp.argmin(v, axis=0), (V,)),
    ("special-sort", lambda v: jnp.sort(v, axis=1), (SPECIAL,)),
    ("special-argsort", lambda v: jnp.argsort(v, axis=1), (SPECIAL,)),
    ("special-top_k", lambda v: lax.top_k(v, 5), (SPECIAL,)),
    ("special-argmax", lambda v: jnp.argmax(v, axis=1), (SPECIAL,)),
    ("special-argmin", lambda v: jnp.argmin(v, axis=1), (SPECIAL,)),
]
IDS = [p[0] for p in PROGRAMS]


def _cases() -> list[tuple[str, OpSpec]]:
    out = []
    for pid, fn, args in PROGRAMS:
        for k, op in enumerate(specs(fn, *args)):
            out.append((f"{pid}-{k}", op))
    return out


CASES = _cases()


def _inputs(op: OpSpec, seed: int) -> list[np.ndarray]:
    """Random operands; integer operands (iotas, inits) as in the program."""
    rng = np.random.default_rng(seed)
    out = []
    for t in op.operands:
        if t.element.startswith("f"):
            out.append(rng.standard_normal(t.shape).astype(np.float32))
        elif t.rank == 0:
            out.append(np.zeros((), np.int32))
        else:
            out.append(rng.permutation(np.arange(np.prod(t.shape))).reshape(t.shape))
            out[-1] = out[-1].astype(np.int32)
    if op.name == "stablehlo.reduce_window" and op.attr("kind") == "max":
        out[1] = np.array(-np.inf, np.float32)
    return out


@pytest.mark.parametrize(("pid", "fn", "args"), PROGRAMS, ids=IDS)
def test_references_equal_jax(pid, fn, args, references) -> None:
    """The numpy reference of each op gives JAX's numbers on the same inputs."""
    got = references(fn, args, pid)
    want = jax.tree.leaves(jax.jit(fn)(*args))
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, np.asarray(w), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize(("cid", "op"), CASES, ids=[c[0] for c in CASES])
def test_every_signature_is_legal(cid: str, op: OpSpec) -> None:
    inputs = _inputs(op, seed=len(cid))
    rng = np.random.default_rng(7)
    for hierarchy in ((2,), (4,), (2, 2)):
        for sig in nd_signatures(op, hierarchy):
            check_signature(op, sig, hierarchy, inputs, rng)
    for hierarchy in ((4, 2), (2, 2, 2)):
        sigs = nd_signatures(op, hierarchy)
        for sig in random.Random(cid).sample(sigs, min(8, len(sigs))):
            check_signature(op, sig, hierarchy, inputs, rng)


def _one(fn, *args) -> OpSpec:
    (op,) = [o for o in specs(fn, *args) if o.name != "stablehlo.reduce"] or specs(
        fn, *args
    )
    return op


def test_convolution_factors() -> None:
    """Batch split, output-feature split, input feature -> P(sum), partials."""
    sigs = set(signatures_1d(_one(_conv(), X, W)))
    assert sig1d([S(0), B], [S(0)]) in sigs  # data parallel
    assert sig1d([B, S(3)], [S(3)]) in sigs  # output channels
    assert sig1d([S(3), S(2)], [P]) in sigs  # input channels: partial sums
    assert sig1d([P, B], [P]) in sigs and sig1d([B, P], [P]) in sigs
    # overlapping 3x3 windows: spatial splits with a halo exchange
    assert sig1d([S(1), B], [S(1)]) in sigs and sig1d([S(2), B], [S(2)]) in sigs


def test_depthwise_and_patch_splits() -> None:
    depthwise = _one(_conv(groups=4), X, DW)
    assert sig1d([S(3), S(3)], [S(3)]) in signatures_1d(depthwise)
    local = local_op(depthwise, sig1d([S(3), S(3)], [S(3)]), (2,), (1,))
    assert local.attr("feature_group_count") == 2
    patch = _one(_conv((2, 2), "VALID"), X, _x(2, 2, 4, 8))
    assert sig1d([S(1), B], [S(1)]) in signatures_1d(patch)
    assert sig1d([S(2), B], [S(2)]) in signatures_1d(patch)


def test_pool_and_sort_splits() -> None:
    pool = _one(lambda x: nn.max_pool(x, (2, 2), (2, 2)), X)
    got = set(signatures_1d(pool))
    assert {sig1d([S(d), B], [S(d)]) for d in range(4)} <= got
    sort = _one(lambda v: jnp.sort(v, axis=1), V)
    assert signatures_1d(sort) == [sig1d([S(0)], [S(0)]), sig1d([B], [B])]


def test_the_checker_rejects_a_spatial_split_of_overlapping_windows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A 3x3 'SAME' convolution split along its rows needs a halo: without
    the exchange the signature is wrong."""
    op = _one(_conv(), X, W)
    inputs = _inputs(op, 0)
    check_signature(op, sig1d([S(1), B], [S(1)]), (2,), inputs)
    monkeypatch.setattr("sbpc.ops.check.exchange", lambda op, sig, h, pieces: pieces)
    with pytest.raises(SignatureCheckError):
        check_signature(op, sig1d([S(1), B], [S(1)]), (2,), inputs)
