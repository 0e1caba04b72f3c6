"""Numerical proof that a signature is legal: run it on virtual devices.

``check_signature`` cuts the inputs into the pieces the signature's operand
layouts imply (partials as random pieces, ``sbpc.algebra.pieces``), evaluates
the local op (``sbpc.ops.registry.local_op``) on every device, puts the results
back together per the result layouts and compares with the op evaluated on
the whole inputs.  A wrong rule (a signature that is not legal) fails it, so
another compiler can check the rules it registers the same way.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from sbpc.algebra.pieces import all_coords, assemble, distribute
from sbpc.algebra.signature import Signature
from sbpc.ops.evaluate import evaluate
from sbpc.ops.halo import exchange
from sbpc.ops.registry import local_op
from sbpc.ops.spec import OpSpec, is_bool, is_float, numpy_dtype


class SignatureCheckError(AssertionError):
    """The distributed run of a signature does not give the op's result."""


def random_inputs(op: OpSpec, rng: np.random.Generator) -> list[np.ndarray]:
    """Plain random operands: normal floats, small integers, random booleans.

    Ops with domain constraints (indices in range, positive logs) need
    inputs of their own.
    """
    out = []
    for t in op.operands:
        dtype = numpy_dtype(t.element)
        if is_float(t.element):
            out.append(rng.standard_normal(t.shape).astype(dtype))
        elif is_bool(t.element):
            out.append(rng.random(t.shape) < 0.5)
        else:
            out.append(rng.integers(-8, 8, t.shape).astype(dtype))
    return out


def run_distributed(
    op: OpSpec,
    sig: Signature,
    hierarchy: Sequence[int],
    inputs: Sequence[np.ndarray],
    rng: np.random.Generator | None = None,
) -> list[np.ndarray]:
    """The logical results of running ``op`` under ``sig`` on virtual devices."""
    rng = rng or np.random.default_rng(0)
    pieces = [
        distribute(np.asarray(x), nd, hierarchy, rng)
        for x, nd in zip(inputs, sig.inputs, strict=True)
    ]
    pieces = exchange(op, sig, hierarchy, pieces)  # neighbours' rows, if any
    per_device = {
        coord: evaluate(local_op(op, sig, hierarchy, coord), [p[coord] for p in pieces])
        for coord in all_coords(hierarchy)
    }
    return [
        assemble({c: outs[k] for c, outs in per_device.items()}, nd, hierarchy)
        for k, nd in enumerate(sig.outputs)
    ]


def check_signature(
    op: OpSpec,
    sig: Signature,
    hierarchy: Sequence[int],
    inputs: Sequence[np.ndarray],
    rng: np.random.Generator | None = None,
    rtol: float | None = None,
    atol: float | None = None,
) -> None:
    """Raise ``SignatureCheckError`` unless ``sig`` computes ``op`` on ``inputs``.

    Float results compare with ``rtol`` and ``atol`` scaled by the largest
    magnitude of the expected result (partial pieces are random, so sums
    reorder); integer and boolean results must match exactly.  Default
    tolerances: 1e-4, or 1e-2 where a 16-bit float is involved (its random
    partial pieces already round).
    """
    low = any(t.element in ("f16", "bf16") for t in (*op.operands, *op.results))
    rtol = rtol if rtol is not None else 1e-2 if low else 1e-4
    atol = atol if atol is not None else 1e-2 if low else 1e-4
    expected = evaluate(op, inputs)
    try:
        got = run_distributed(op, sig, hierarchy, inputs, rng)
    except ValueError as err:  # broadcast copies that differ, shape errors
        raise SignatureCheckError(
            f"{op.name} {sig} on {tuple(hierarchy)}: {err}"
        ) from err
    for k, (g, e) in enumerate(zip(got, expected, strict=True)):
        if g.shape != e.shape:
            raise SignatureCheckError(
                f"{op.name} {sig} on {tuple(hierarchy)}: result {k} has shape "
                f"{g.shape}, expected {e.shape}"
            )
        # complex results compare as complex128 (both parts), others as float64
        wide = np.complex128 if np.iscomplexobj(e) else np.float64
        if np.issubdtype(e.dtype, np.inexact):
            finite = np.abs(e[np.isfinite(e)]).astype(np.float64)
            scale = max(1.0, float(finite.max())) if finite.size else 1.0
            ok = np.allclose(
                g.astype(wide),
                e.astype(wide),
                rtol=rtol,
                atol=atol * scale,
                equal_nan=True,
            )
        else:
            ok = np.array_equal(g, e)
        if not ok:
            bad = np.argwhere(~np.isclose(g.astype(wide), e.astype(wide)))[:1]
            where = tuple(int(i) for i in bad[0]) if len(bad) else ()
            raise SignatureCheckError(
                f"{op.name} {sig} on {tuple(hierarchy)}: result {k} differs"
                + (f" at {where}: got {g[where]}, expected {e[where]}" if where else "")
            )
