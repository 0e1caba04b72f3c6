"""Deriving an op's 1-D SBP signatures from its structure, not by listing them.

Two sources of signatures, as in Shardy / MLIR's ShardingInterface:

* **Factors** (einsum-like).  An op is described by factors, each mapped to
  at most one dimension of each operand and result.  Splitting a factor over
  the devices splits every dimension it maps to.  A *parallel* factor
  (present in the results) gives ``S`` on its dimensions and ``B`` on tensors
  without it; a *reduction* factor (in no result, e.g. matmul's ``k``) gives
  ``S`` on the inputs and ``P(kind)`` on the results, where ``kind`` is the
  combine over the reduced factor (``sum`` for add, ``max`` for max).
  Dimensions that are not factors (a sliced dimension, a concatenated one)
  are never split.
* **Partial patterns**: algebraic facts about the op's function, used where
  no dimension is split.  ``linear`` (f(sum x_d) = sum f(x_d): add, negate,
  any data movement), ``linear in each argument separately`` (multiply,
  dot_general: ``(P, B) -> P`` and ``(B, P) -> P``), ``monotone`` (f(max x_d)
  = max f(x_d) for non-decreasing f: ``exp`` of a ``P(max)``, a non-increasing
  f turns ``P(max)`` into ``P(min)``) and *joint* max/min (max(max_d x_d,
  max_d y_d) = max_d max(x_d, y_d)).

Every helper returns 1-D ``Signature`` objects (nd_sbps of length 1); the
registry (``sbpc.ops.registry``) builds the N-D ones.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from sbpc.algebra.sbp import B, Partial, PartialKind, Sbp, Split
from sbpc.algebra.signature import Signature

PARTIAL_SUM = Partial("sum")
PARTIAL_MAX = Partial("max")
PARTIAL_MIN = Partial("min")


def sig1d(inputs: Sequence[Sbp], outputs: Sequence[Sbp]) -> Signature:
    """A 1-D signature from one SBP per operand and per result."""
    return Signature(tuple((s,) for s in inputs), tuple((s,) for s in outputs))


def all_broadcast(n_operands: int, n_results: int, ndim: int = 1) -> Signature:
    """Every operand and result ``B`` on each of ``ndim`` hierarchy dims."""
    nd = (B,) * ndim
    return Signature((nd,) * n_operands, (nd,) * n_results)


@dataclass(frozen=True)
class Factor:
    """One loop of the op: the dimension it indexes in each operand and result.

    ``None`` means the tensor does not vary along the factor.  ``reduction``
    is the partial kind the results take when the factor is split (None: a
    parallel factor).  ``absent`` is what operands lacking the factor hold
    while it is split: ``B`` in general, ``P(sum)`` for an accumulator such as
    a sum reduction's init value (each device adds it once otherwise n times).
    """

    operand_dims: tuple[int | None, ...]
    result_dims: tuple[int | None, ...]
    reduction: PartialKind | None = None
    absent: Sbp = B


def factor_signatures(factors: Iterable[Factor]) -> list[Signature]:
    """One signature per factor: that factor split, nothing else."""
    sigs = []
    for f in factors:
        ins = [f.absent if d is None else Split(d) for d in f.operand_dims]
        if f.reduction is None:
            outs: list[Sbp] = [B if d is None else Split(d) for d in f.result_dims]
        else:
            if any(d is not None for d in f.result_dims):
                raise ValueError("a reduction factor cannot index a result")
            outs = [Partial(f.reduction)] * len(f.result_dims)
        sigs.append(sig1d(ins, outs))
    return sigs


def elementwise_factors(
    operand_ranks: Sequence[int], result_ranks: Sequence[int]
) -> list[Factor]:
    """Factors of an elementwise op: result dim k is dim k of every same-rank operand.

    Rank-0 operands (a scalar predicate, a clamp bound) lack every factor.
    """
    rank = max(result_ranks, default=0)
    return [
        Factor(
            tuple(k if r == rank else None for r in operand_ranks),
            tuple(k if r == rank else None for r in result_ranks),
        )
        for k in range(rank)
    ]


def partial_sig(
    n_operands: int,
    n_results: int,
    operands: Mapping[int, Sbp],
    result: Sbp,
) -> Signature:
    """``operands`` (index -> SBP) as given, others ``B``; results ``result``."""
    ins = [operands.get(i, B) for i in range(n_operands)]
    return sig1d(ins, [result] * n_results)


def linear(n_operands: int, n_results: int, args: Sequence[int]) -> list[Signature]:
    """f jointly linear in ``args``: all of them ``P(sum)`` -> ``P(sum)``."""
    if not args:
        return []
    return [
        partial_sig(
            n_operands, n_results, dict.fromkeys(args, PARTIAL_SUM), PARTIAL_SUM
        )
    ]


def linear_each(
    n_operands: int, n_results: int, args: Sequence[int]
) -> list[Signature]:
    """f linear in each of ``args`` alone, the others fixed: one ``P`` at a time."""
    return [
        partial_sig(n_operands, n_results, {a: PARTIAL_SUM}, PARTIAL_SUM) for a in args
    ]


def monotone(
    n_operands: int, n_results: int, directions: Mapping[int, int]
) -> list[Signature]:
    """f monotone in each argument with a non-zero direction, the others fixed.

    Non-decreasing (+1): ``P(max)`` -> ``P(max)`` and ``P(min)`` -> ``P(min)``;
    non-increasing (-1) swaps them.  Only sound where f is monotone on *all*
    values a partial piece may take (``log`` is not: pieces of a positive
    ``P(max)`` value may be negative).
    """
    sigs = []
    for arg, direction in directions.items():
        if direction == 0:
            continue
        for kind, flipped in (("max", "min"), ("min", "max")):
            out = kind if direction > 0 else flipped
            sigs.append(
                partial_sig(n_operands, n_results, {arg: Partial(kind)}, Partial(out))
            )
    return sigs


def joint(
    n_operands: int, n_results: int, args: Sequence[int], kinds: Iterable[PartialKind]
) -> list[Signature]:
    """f commutes with the ``kind`` combine over all of ``args`` together.

    True for any data movement (each result element is one operand element)
    with every kind, for ``maximum`` with max, ``minimum`` with min.
    """
    if not args:
        return []
    return [
        partial_sig(n_operands, n_results, dict.fromkeys(args, Partial(k)), Partial(k))
        for k in kinds
    ]


def data_movement(
    n_operands: int, n_results: int, data: Sequence[int]
) -> list[Signature]:
    """Every result element is a copy of one element of the ``data`` operands.

    Such an op commutes with any elementwise combine: all data operands in
    ``P(kind)`` give results in ``P(kind)``, for each kind.
    """
    return joint(n_operands, n_results, data, ("sum", "max", "min"))


def dedupe(sigs: Iterable[Signature]) -> list[Signature]:
    """Signatures in first-seen order without repeats."""
    seen: dict[Signature, None] = {}
    for s in sigs:
        seen.setdefault(s, None)
    return list(seen)
