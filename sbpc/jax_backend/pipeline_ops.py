"""JAX forms of the microbatch ops (``sbpc.ops.microbatch``).

``sbp.microbatch`` and ``sbp.accumulate`` are written as one microbatch of
the loop (the first; the pipeline's driver slices the others and sums), as
their evaluators are.  ``sbp.pieces`` turns a value carried between a
pipeline's tasks as its partial pieces stacked on leading axes (one per
partial hierarchy dim, how a program returns a partial result) back into
the partial value: on a device its one piece, globally their sum.
"""

from __future__ import annotations

from sbpc.jax_backend.ops import emits, py_tuple
from sbpc.ops.spec import OpSpec


@emits("sbp.microbatch")
def _microbatch(op: OpSpec, args: list[str]) -> str:
    dim = int(op.attr("dim"))
    count = op.operands[0].shape[dim] // op.results[0].shape[dim]
    return f"lax.slice_in_dim({args[0]}, 0, None, {count}, axis={dim})"


@emits("sbp.accumulate")
def _accumulate(op: OpSpec, args: list[str]) -> str:
    return args[0]


@emits("sbp.pieces")
def _pieces(op: OpSpec, args: list[str]) -> str:
    lead = op.operands[0].rank - op.results[0].rank
    return f"jnp.sum({args[0]}, axis={py_tuple(range(lead))}).astype({args[0]}.dtype)"
