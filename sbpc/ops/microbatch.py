"""The two ops of a microbatched step: ``sbp.microbatch`` and ``sbp.accumulate``.

``sbp-pipeline`` turns a training step into the program of *one microbatch*
(docs/pipeline.md): ``sbp.microbatch`` takes the current microbatch of a
value computed before the loop (a batch argument), ``sbp.accumulate`` sums a
per-microbatch value (a gradient contribution, ``P(sum)`` over time) over all
microbatches.  Their rules here are the layouts they keep on the *mesh*:

- ``sbp.microbatch`` (attribute ``dim``, the batch dim; ``count``, the number
  of microbatches): microbatch ``i`` is ``x[i::count]`` along ``dim`` (every
  ``count``-th row).  That partition does not depend on the layout, and it is
  local under every split: a device holding a contiguous block of rows whose
  length is a multiple of ``count`` holds its share of every microbatch, in
  order.  So every ``S(k)`` and ``B`` pass through; a partial does not (a
  microbatch of pieces is not taken before a batch exists).
- ``sbp.accumulate``: a sum over time, piece by piece, so ``S(k)``, ``B``
  and ``P(sum)`` pass through (accumulating partial pieces and reducing once
  after the last microbatch is the point).

Evaluators give the reference of one microbatch (the first) and of one
contribution (itself): the loop around them is the pipeline's, not the op's.
``sbp.pieces`` (no rules: the pipeline's emitter writes it with its
signature) reads a partial value carried as its pieces stacked on leading
axes, one per partial hierarchy dim: globally, their sum.
"""

from __future__ import annotations

import numpy as np

from sbpc.algebra.sbp import B, Partial, Split
from sbpc.algebra.signature import Signature
from sbpc.ops.derive import sig1d
from sbpc.ops.kind import OpKinds
from sbpc.ops.spec import OpSpec

MICROBATCH = "sbp.microbatch"
ACCUMULATE = "sbp.accumulate"

BUILTINS = OpKinds()


def _through(op: OpSpec, partial: bool) -> list[Signature]:
    sigs = [sig1d([Split(k)], [Split(k)]) for k in range(op.operands[0].rank)]
    sigs.append(sig1d([B], [B]))
    if partial:
        sigs.append(sig1d([Partial("sum")], [Partial("sum")]))
    return sigs


@BUILTINS.rule(MICROBATCH)
def microbatch_rule(op: OpSpec) -> list[Signature]:
    """Splits and broadcasts pass: the strided microbatch is local."""
    return _through(op, partial=False)


@BUILTINS.rule(ACCUMULATE)
def accumulate_rule(op: OpSpec) -> list[Signature]:
    """Splits, broadcasts and sums pass: a sum over time, piece by piece."""
    return _through(op, partial=True)


def microbatch_count(op: OpSpec) -> int:
    """How many microbatches ``op`` (an ``sbp.microbatch``) takes one of."""
    dim = int(op.attr("dim"))
    return op.operands[0].shape[dim] // op.results[0].shape[dim]


@BUILTINS.evaluator(MICROBATCH)
def _microbatch(op: OpSpec, xs: list[np.ndarray]) -> list[np.ndarray]:
    """The first microbatch: every ``count``-th row from row 0."""
    dim, count = int(op.attr("dim")), microbatch_count(op)
    index = [slice(None)] * xs[0].ndim
    index[dim] = slice(0, None, count)
    return [xs[0][tuple(index)]]


@BUILTINS.evaluator(ACCUMULATE)
def _accumulate(op: OpSpec, xs: list[np.ndarray]) -> list[np.ndarray]:
    """One contribution, summed over one microbatch: itself."""
    return [xs[0]]


PIECES = "sbp.pieces"


@BUILTINS.evaluator(PIECES)
def _pieces(op: OpSpec, xs: list[np.ndarray]) -> list[np.ndarray]:
    """Partial pieces stacked on leading axes, summed: the value."""
    lead = op.operands[0].rank - op.results[0].rank
    return [xs[0].sum(axis=tuple(range(lead))).astype(xs[0].dtype)]
