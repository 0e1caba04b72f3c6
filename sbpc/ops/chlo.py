"""SBP rules and reference evaluation of the CHLO elementwise ops.

Every op here is elementwise: a split per dimension, plus the partial facts
of its kind in ``sbpc.ops.elementwise`` (``erf``, ``sinh``, ``atan``,
``asinh`` increasing, ``erfc`` decreasing, none for the others).  No op has
attributes.

Left out (they parse, see ``sbpc.dialects.chlo``, but get no rule, so
propagation keeps them broadcast and ``-t jax`` reports them): ``digamma``,
``bessel_i1e``, ``polygamma`` and ``zeta``, which have no implementation in
numpy or Python's standard library to serve as the reference evaluator
(``sbpc.ops.evaluate`` evaluates with plain numpy, never through JAX); and
``mulhi``, because jaxlib 0.10.2 cannot compile ``lax.mulhi`` inside a
``shard_map`` ("failed to legalize operation 'mhlo.unknown'"), so the JAX
target could not run it.
"""

from __future__ import annotations

from sbpc.ops.elementwise import KINDS, register_elementwise
from sbpc.ops.kind import OpKinds

# This module's op kinds, merged into the registry on first use
# (``sbpc.ops.builtins``).
BUILTINS = OpKinds()

# chlo op name -> elementwise kind (``sbpc.ops.elementwise.KINDS``); the JAX emitter reads it too.
CHLO_ELEMENTWISE: dict[str, str] = {
    name: name
    for name in (
        *("square", "erf", "erfc", "erf_inv", "sinh", "cosh", "asin", "acos"),
        *("atan", "asinh", "acosh", "atanh", "lgamma", "next_after"),
    )
}

for _name, _kind in CHLO_ELEMENTWISE.items():
    register_elementwise(f"chlo.{_name}", KINDS[_kind], BUILTINS)
