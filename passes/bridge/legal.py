"""Whether an op's ``sbp.sig`` is one of its legal signatures.

A signature written by hand (not by ``sbp-propagate``) may be wrong:
``exp`` of a partial sum is not the sum of the exps.  The program would
compute wrong numbers, so ``sbp-lower-boxing`` and the JAX target (which may
run without it) both refuse it, located at the op.
"""

from __future__ import annotations

from xdsl.ir import Operation

from sbpc.algebra.placement import Placement
from sbpc.algebra.signature import Signature
from sbpc.dialects.diagnostics import LocatedError
from sbpc.dialects.stablehlo import OptimizationBarrierOp
from sbpc.ops.builtins import op_kinds
from sbpc.ops.registry import nd_signature_tuple
from sbpc.ops.spec import OpSpec

from .ops import op_spec_of


def check_legal(op: Operation, sig: Signature, placement: Placement) -> None:
    """``LocatedError`` unless ``sig`` is a legal signature of the tensor op
    ``op`` on ``placement`` (ops with regions, whose signatures come from
    their bodies, and optimization barriers pass)."""
    if op.regions or isinstance(op, OptimizationBarrierOp):
        return
    if sig not in _legal(op_spec_of(op), placement.hierarchy):
        raise LocatedError(
            op,
            f"sbp.sig {sig} is not a legal signature of '{op.name}' "
            "(sbp-propagate lists the legal ones)",
        )


_LEGAL: dict[int, tuple[tuple[Signature, ...], frozenset[Signature]]] = {}


# Per spec object: ops with equal content share one spec (``spec_memo``), and
# finding the candidate tuple again would rebuild the op's key each time.
_LEGAL_OF_SPEC: dict[
    int, tuple[OpSpec, tuple[int, ...], int, frozenset[Signature]]
] = {}


def _legal(spec: OpSpec, hierarchy: tuple[int, ...]) -> frozenset[Signature]:
    """The legal signatures as a set, made once per memoized candidate tuple
    (a membership test in the tuple compares signatures one by one), and found
    once per spec object and hierarchy while no rule changes."""
    version = op_kinds().version
    hit = _LEGAL_OF_SPEC.get(id(spec))
    if hit is not None and hit[0] is spec and hit[1:3] == (hierarchy, version):
        return hit[3]
    legal = _legal_of_candidates(spec, hierarchy)
    if len(_LEGAL_OF_SPEC) > 4096:
        _LEGAL_OF_SPEC.clear()
    _LEGAL_OF_SPEC[id(spec)] = (spec, hierarchy, version, legal)
    return legal


def _legal_of_candidates(
    spec: OpSpec, hierarchy: tuple[int, ...]
) -> frozenset[Signature]:
    sigs = nd_signature_tuple(spec, hierarchy)
    hit = _LEGAL.get(id(sigs))
    if hit is None or hit[0] is not sigs:
        if len(_LEGAL) > 4096:
            _LEGAL.clear()
        hit = _LEGAL[id(sigs)] = (sigs, frozenset(sigs))
    return hit[1]
