"""The op SBP rule registry: OneFlow's GetSbpFn, open to any dialect.

A *rule* is a function ``OpSpec -> Iterable[Signature]`` yielding 1-D
signatures (one SBP per operand and per result).  ``signatures_1d`` unions
the rules registered for an op, always adds the all-``B`` signature, and
removes repeats; ``nd_signatures`` builds N-D signatures as the direct product
of 1-D ones over the hierarchy dims (OneFlow's ``DfsGetNdSbpSignature``) and
keeps those whose splits exist, are even on every operand and result or fall
on an op exact on unequal pieces (``sbpc.ops.uneven``), and whose halos fit.

The direct product is sound under the hierarchical reading of an nd_sbp
(``sbpc.algebra.layout``): hierarchy dim 0 runs the op on level-0 pieces as its 1-D
signature says, and each level-0 device then runs the *same* op kind on its
piece (``local_op``), which hierarchy dim 1 distributes by its own 1-D
signature, and so on.  So each 1-D signature must hold for every value and
every (evenly split) shape of the op kind -- rules never yield one whose
soundness depends on concrete values or on the device count -- and ``local_op``
must compute device-dependent attributes (an iota offset, the holder of a
partial constant) from the full coordinate.  ``test/sbpc/test_op_rules.py``
checks this numerically on 1-D, 2-D and 3-D meshes.

A *local* function fixes the op a device runs where the op carries shapes
or positions in attributes (``register_local``); without one, ``local_op``
only replaces the types by local shapes.

Another compiler registers its ops the same way::

    @register_rule("mydialect.scale")
    def _scale(op):
        return [sig1d([S(k)], [S(k)]) for k in range(op.results[0].rank)]

Every facet of an op kind lives in one record (``sbpc.ops.kind``); this
module is the rules-and-locals face of it.  Built-in rules for ``stablehlo``,
``chlo``, ``linalg`` and ``arith`` are merged in on first use (``sbpc.ops.builtins``).
``signatures_1d`` drops two kinds of signature whatever the rule says:
``P(sum)`` on an ``i1`` tensor (a sum of booleans has no faithful
collective: ``psum`` would count) and splits of size-1 dims (never even).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from typing import Any, overload

import numpy as np

from sbpc.algebra.layout import check_axes, local_shape, piece_shape
from sbpc.algebra.placement import Coord
from sbpc.algebra.sbp import NdSbp, Partial, Split
from sbpc.algebra.signature import Signature
from sbpc.algebra.tensor_type import TensorType
from sbpc.ops.builtins import op_kinds
from sbpc.ops.derive import all_broadcast, dedupe
from sbpc.ops.halo import halo_fits
from sbpc.ops.kind import OP_KINDS, LocalFn, RuleFn
from sbpc.ops.spec import OpSpec, is_bool
from sbpc.ops.uneven import fits_uneven

__all__ = [
    "LocalFn",
    "RuleFn",
    "has_rule",
    "local_op",
    "nd_signatures",
    "register_local",
    "register_rule",
    "registered_ops",
    "rules_for",
    "signatures_1d",
    "unregister_rule",
]


@overload
def register_rule(op_name: str, fn: RuleFn) -> RuleFn: ...
@overload
def register_rule(op_name: str, fn: None = None) -> Callable[[RuleFn], RuleFn]: ...
def register_rule(
    op_name: str, fn: RuleFn | None = None
) -> RuleFn | Callable[[RuleFn], RuleFn]:
    """Add a rule for ``op_name``; usable as ``@register_rule("d.op")``.

    Several rules for one op are unioned (a compiler may add signatures to a
    built-in op).
    """

    def add(f: RuleFn) -> RuleFn:
        return OP_KINDS.add_rule(op_name, f)

    return add if fn is None else add(fn)


def unregister_rule(op_name: str, fn: RuleFn | None = None) -> None:
    """Remove ``fn`` (None: every rule) from ``op_name``; for tests and overrides."""
    op_kinds().remove_rule(op_name, fn)


def register_local(
    op_name: str, fn: LocalFn | None = None
) -> LocalFn | Callable[[LocalFn], LocalFn]:
    """Set how ``op_name``'s attributes change on a device; usable as a decorator.

    Replaces an earlier registration; the built-ins, merged in on first use,
    never replace one made before them.
    """
    return OP_KINDS.registrar(op_name, "local", fn)


def _name(op: OpSpec | str) -> str:
    return op if isinstance(op, str) else op.name


def rules_for(op: OpSpec | str) -> list[RuleFn]:
    """The rules registered for an op (empty when it has none)."""
    kind = op_kinds().get(_name(op))
    return [] if kind is None else list(kind.rules)


def has_rule(op: OpSpec | str) -> bool:
    """Whether any rule knows the op; without one only all-``B`` is offered."""
    return bool(rules_for(op))


def registered_ops() -> list[str]:
    """Names of every op with a rule, sorted."""
    return op_kinds().names("rules")


def _bool_sum(op: OpSpec, sig: Signature) -> bool:
    pairs = zip((*op.operands, *op.results), (*sig.inputs, *sig.outputs), strict=True)
    return any(
        is_bool(t.element) and any(s == Partial("sum") for s in nd) for t, nd in pairs
    )


def _splits_unit(op: OpSpec, sig: Signature) -> bool:
    """A split of a size-1 dim (never even over >1 devices); raises if out of range."""
    pairs = zip((*op.operands, *op.results), (*sig.inputs, *sig.outputs), strict=True)
    unit = False
    for t, nd in pairs:
        for s in nd:
            if isinstance(s, Split):
                if not 0 <= s.axis < t.rank:
                    raise ValueError(
                        f"rule for '{op.name}' gave {sig}: split axis {s.axis} "
                        f"of a rank-{t.rank} tensor"
                    )
                unit = unit or t.shape[s.axis] == 1
    return unit


def signatures_1d(op: OpSpec) -> list[Signature]:
    """The op's 1-D signatures: every rule's, then all-``B``; no repeats."""
    sigs: list[Signature] = []
    for rule in rules_for(op):
        for s in rule(op):
            if len(s.inputs) != len(op.operands) or len(s.outputs) != len(op.results):
                raise ValueError(
                    f"rule for '{op.name}' gave {s} for an op with "
                    f"{len(op.operands)} operands and {len(op.results)} results"
                )
            if s.ndim not in (0, 1):
                raise ValueError(f"rule for '{op.name}' gave a non-1-D signature {s}")
            sigs.append(s)
    sigs.append(all_broadcast(len(op.operands), len(op.results)))
    return [s for s in dedupe(sigs) if not _bool_sum(op, s) and not _splits_unit(op, s)]


def fits(op: OpSpec, sig: Signature, hierarchy: Sequence[int]) -> bool:
    """Every split of ``sig`` names an existing dimension and divides it evenly,
    or the op is exact on unequal pieces (``sbpc.ops.uneven``)."""
    return fits_uneven(op, sig, hierarchy) and halo_fits(op, sig, hierarchy)


def nd_signatures(op: OpSpec, hierarchy: Sequence[int]) -> list[Signature]:
    """Direct product of 1-D signatures over ``hierarchy``, even splits only.

    Entry k of each nd_sbp comes from one 1-D signature for hierarchy dim k.
    Order: row-major over the product of ``signatures_1d`` order.  Results are
    memoized on the op's name, types and attributes: a real model repeats the
    same few ops thousands of times.
    """
    return list(nd_signature_tuple(op, hierarchy))


def nd_signature_tuple(op: OpSpec, hierarchy: Sequence[int]) -> tuple[Signature, ...]:
    """``nd_signatures`` as the memoized tuple itself: equal ops get the very
    same object, so the strategies can memoize per candidate list by identity."""
    global _nd_cache_version
    version = op_kinds().version
    if version != _nd_cache_version or len(_ND_CACHE) > 4096:
        _ND_CACHE.clear()  # a rule changed since, or too many
        _nd_cache_version = version
    key = (op_key(op), tuple(hierarchy))
    cached = _ND_CACHE.get(key)
    if cached is None:
        cached = _ND_CACHE[key] = tuple(_nd_signatures(op, hierarchy))
    return cached


_ND_CACHE: dict[tuple[Any, ...], tuple[Signature, ...]] = {}
_nd_cache_version = -1


def _freeze_value(v: Any) -> Any:
    if isinstance(v, np.ndarray):
        return ("ndarray", v.shape, str(v.dtype), v.tobytes())
    if isinstance(v, list | tuple):
        return tuple(_freeze_value(x) for x in v)
    if isinstance(v, dict):
        return tuple(sorted((k, _freeze_value(x)) for k, x in v.items()))
    return v


def op_key(op: OpSpec) -> tuple[Any, ...]:
    """A hashable key of the op's name, types and attributes (for memos)."""
    attrs = tuple(sorted((k, _freeze_value(v)) for k, v in op.attrs.items()))
    return (op.name, op.operands, op.results, attrs)


def _nd_signatures(op: OpSpec, hierarchy: Sequence[int]) -> list[Signature]:
    """Direct product of 1-D signatures over ``hierarchy``, even splits only.

    Entry k of each nd_sbp comes from one 1-D signature for hierarchy dim k.
    Order: row-major over the product of ``signatures_1d`` order.
    """
    ones = signatures_1d(op)
    out: dict[Signature, None] = {}
    for combo in itertools.product(ones, repeat=len(hierarchy)):
        sig = Signature(
            tuple(_concat(s.inputs[i] for s in combo) for i in range(len(op.operands))),
            tuple(_concat(s.outputs[i] for s in combo) for i in range(len(op.results))),
        )
        if fits(op, sig, hierarchy) and not _mixes_infinite_pieces(op, sig):
            out.setdefault(sig, None)
    return list(out)


# Arithmetic that turns two infinities into NaN (inf - inf, -inf + inf, 0 * inf).
ARITHMETIC_OPS = frozenset(
    {
        "stablehlo.add",
        "stablehlo.subtract",
        "stablehlo.multiply",
        "stablehlo.divide",
        "stablehlo.remainder",
        "stablehlo.power",
        "stablehlo.atan2",
        "arith.addf",
        "arith.subf",
        "arith.mulf",
        "arith.divf",
        "linalg.add",
        "linalg.sub",
        "linalg.mul",
        "linalg.div",
    }
)


def _mixes_infinite_pieces(op: OpSpec, sig: Signature) -> bool:
    """Two operands in ``P(max)``/``P(min)`` under an arithmetic op.

    Such pieces may hold -inf / +inf where the logical value is finite (the
    identity a reduction or a ``local_to_partial`` fills in).  A product of
    1-D signatures can pair a piece of one operand with a piece of the other
    from another hierarchy dim (``a_i - b_j``); that is exact for finite
    values but gives NaN for ``-inf - -inf``.  Such products are dropped.
    """
    if op.name not in ARITHMETIC_OPS:
        return False
    inputs = sig.inputs
    if op.name.startswith("linalg."):  # ``outs`` only carry the result's shape
        inputs = inputs[: len(inputs) - len(sig.outputs)]
    holders = sum(
        any(isinstance(s, Partial) and s.kind != "sum" for s in nd) for nd in inputs
    )
    return holders >= 2


def _concat(parts: Iterable[NdSbp]) -> NdSbp:
    return tuple(itertools.chain.from_iterable(parts))


def localize_type(
    t: TensorType,
    nd_sbp: NdSbp,
    hierarchy: Sequence[int],
    coord: Coord | None = None,
) -> TensorType:
    """``t`` as a device holds it: the padded (largest) piece, or the exact
    piece at ``coord`` when given."""
    if coord is None:
        try:
            return _padded_type(t, tuple(nd_sbp), tuple(hierarchy))
        except TypeError:  # unhashable (a type built with a list shape): as is
            return TensorType(local_shape(t.shape, nd_sbp, hierarchy), t.element)
    check_axes(t.shape, nd_sbp)
    return TensorType(piece_shape(t.shape, nd_sbp, hierarchy, coord), t.element)


@lru_cache(maxsize=65536)
def _padded_type(
    t: TensorType, nd_sbp: NdSbp, hierarchy: tuple[int, ...]
) -> TensorType:
    """``localize_type``'s padded piece, once per (type, layout, mesh): every
    signature of every op prices its operands' pieces (a scanned decoder's
    bodies, whose ops repeat no other op: 44,000 pieces, 2,900 distinct)."""
    return TensorType(local_shape(t.shape, nd_sbp, hierarchy), t.element)


def local_op_varies(name: str) -> bool:
    """Whether ``local_op`` of op ``name`` may differ between devices (its
    kind registers a local function); otherwise every device runs one op."""
    kind = op_kinds().get(name)
    return kind is not None and kind.local is not None


def local_op(
    op: OpSpec,
    sig: Signature,
    hierarchy: Sequence[int],
    coord: Coord,
    padded: bool = False,
) -> OpSpec:
    """The op device ``coord`` runs on its local pieces under ``sig``.

    Types become local shapes (``sbpc.algebra.layout``): the exact piece, or
    with ``padded`` the largest piece (a padded back end); a registered local function
    then fixes attributes holding shapes or positions.  Raises
    ``UnevenSplitError`` for a signature that does not fit the shapes.
    """
    kind = op_kinds().get(op.name)
    at = None if padded else tuple(coord)
    local = op.replace(
        operands=[
            localize_type(t, nd, hierarchy, at)
            for t, nd in zip(op.operands, sig.inputs, strict=True)
        ],
        results=[
            localize_type(t, nd, hierarchy, at)
            for t, nd in zip(op.results, sig.outputs, strict=True)
        ],
    )
    fix = None if kind is None else kind.local
    return local if fix is None else fix(op, local, sig, hierarchy, tuple(coord))
