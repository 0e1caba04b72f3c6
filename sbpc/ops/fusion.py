"""Which op results a compiler keeps in memory: XLA's fusion, per op kind.

The memory model (``sbpc.propagation.memory``) counts the buffers the
compiled program allocates.  XLA fuses chains of elementwise ops into loops
that never store their intermediates, so only some op results become
buffers.  The rules, as XLA's ``InstructionFusion`` applies them on CPU
(measured against ``memory_analysis`` in ``bench/memory_model.py``):

- ``FUSED``: cheap elementwise and data-movement ops (add, multiply,
  broadcast, transpose, slice, compare, select ...) are recomputed inside
  each consumer that can fuse them, even several;
- ``NOT_DUPLICATED``: expensive elementwise ops (exp, log, tanh, divide,
  sqrt ...) are fused only into their one consumer: with several they are
  stored once (XLA's "expensive producer would be duplicated"); a division
  by a broadcast is a product by its reciprocal (XLA's simplifier), cheap
  (``divides_cheaply``);
- ``VIEW``: a reshape of a stored value is a bitcast of its buffer (no bytes
  of its own); of a fused one, it is fused like an elementwise op;
- ``REDUCE``: a reduction stores its result and absorbs the elementwise ops
  that feed only it (``reduce(square(x - m))`` reads a buffer of ``x - m``);
- ``IN_PLACE``: a scatter or dynamic update writes into its first
  operand's buffer when nothing else reads that operand;
- ``STORED``: everything else (products, reductions, gathers, scatters,
  sorts, loops, custom calls, collectives) stores its result, and reads its
  operands from buffers: an operand fused elsewhere is stored for it.

An op kind nobody names here is ``STORED``: the conservative choice (it
counts a buffer that fusion might have saved, never the reverse).
"""

from __future__ import annotations

from enum import Enum
from functools import cache


class Fusion(Enum):
    """How the compiler treats an op's result (see the module docstring)."""

    FUSED = "fused"
    NOT_DUPLICATED = "not duplicated"
    VIEW = "view"
    REDUCE = "reduce"
    IN_PLACE = "in place"
    STORED = "stored"


# Elementwise kinds (``sbpc.ops.elementwise.KINDS`` names) that XLA's
# ``IsExpensive`` calls expensive for floats: transcendental and division.
EXPENSIVE_KINDS = frozenset(
    {
        *("divide", "remainder", "power", "atan2", "reciprocal"),
        *("exponential", "exponential_minus_one", "log", "log_plus_one"),
        *("tanh", "logistic", "sqrt", "rsqrt", "cbrt"),
        *("erf", "erfc", "erf_inv", "sinh", "cosh", "asin", "acos", "atan"),
        *("asinh", "acosh", "atanh", "lgamma"),
    }
)

# Data movement and creation that fuses into its consumers like an
# elementwise op (full op names).
_MOVEMENT = frozenset(
    f"stablehlo.{name}"
    for name in (
        "broadcast_in_dim",
        "broadcast",
        "transpose",
        "slice",
        "dynamic_slice",
        "pad",
        "concatenate",
        "reverse",
        "iota",
        "constant",
        "compare",
        "bitcast_convert",
        "round_nearest_even",
        "round_nearest_afz",
        "real",
        "imag",
    )
) | {"arith.constant", "linalg.broadcast", "linalg.transpose", "linalg.fill"}

_VIEWS = frozenset({"stablehlo.reshape", "linalg.reshape"})
_REDUCTIONS = frozenset({"stablehlo.reduce", "linalg.reduce"})
_IN_PLACE = frozenset({"stablehlo.scatter", "stablehlo.dynamic_update_slice"})


@cache
def _elementwise_kinds() -> dict[str, str]:
    """Full op name -> elementwise kind, from the rule modules' own tables."""
    from sbpc.ops.arith import ARITH_ELEMENTWISE
    from sbpc.ops.chlo import CHLO_ELEMENTWISE
    from sbpc.ops.linalg import LINALG_ELEMENTWISE
    from sbpc.ops.stablehlo import ELEMENTWISE

    kinds = {f"stablehlo.{k}": k for k in ELEMENTWISE}
    kinds.update({f"chlo.{n}": k for n, k in CHLO_ELEMENTWISE.items()})
    kinds.update({f"arith.{n}": k for n, k in ARITH_ELEMENTWISE.items()})
    kinds.update({f"linalg.{n}": k for n, k in LINALG_ELEMENTWISE.items()})
    return kinds


@cache
def fusion_of(op_name: str) -> Fusion:
    """How the compiler treats results of ``op_name`` (``STORED`` if unknown)."""
    if op_name in _VIEWS:
        return Fusion.VIEW
    if op_name in _REDUCTIONS:
        return Fusion.REDUCE
    if op_name in _IN_PLACE:
        return Fusion.IN_PLACE
    if op_name in _MOVEMENT:
        return Fusion.FUSED
    kind = _elementwise_kinds().get(op_name)
    if kind is None:
        return Fusion.STORED
    return Fusion.NOT_DUPLICATED if kind in EXPENSIVE_KINDS else Fusion.FUSED


DIVISIONS = frozenset({"stablehlo.divide", "arith.divf", "linalg.div"})
# Ops whose result repeats a smaller operand (or a constant): an operand made
# by one does not count as a tensor of its own (XLA's "effectively unary").
SPREAD = frozenset(
    {
        "stablehlo.broadcast_in_dim",
        "stablehlo.broadcast",
        "stablehlo.constant",
        "stablehlo.iota",
        "arith.constant",
        "linalg.broadcast",
        "linalg.fill",
    }
)


def divides_cheaply(op_name: str, divisor_op_name: str) -> bool:
    """Whether ``op_name`` divides by a broadcast or constant (made by
    ``divisor_op_name``), which XLA turns into a cheap product."""
    return op_name in DIVISIONS and divisor_op_name in SPREAD
