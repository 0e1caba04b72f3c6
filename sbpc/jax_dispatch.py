"""How a call of a distributed function reaches its compiled program.

``jax.jit``'s C++ dispatch flattens the argument pytree, checks every leaf's
type, shape, dtype and sharding against its cache and runs the compiled
executable without running Python.  Whatever Python runs around it is paid
on every step: ``isinstance(x, jax.Array)`` (an ABC check, about 0.5 us a
leaf), flattening the pytree again (10 us for 100 leaves), a context
manager.  For a training step with hundreds of parameter and optimizer
leaves that was 0.1-0.3 ms per call, more than a small step's own work on
an accelerator.  So the distributed callable's call *is* one ``jax.jit`` of
the whole signature wherever nothing needs Python around it
(``direct_call``): typed PRNG keys are unwrapped and results wrapped inside
the trace, uneven splits' padding is a jit nested in the step, and only a
program with 64-bit types needs a scope (JAX's x64 mode, which jit's cache
reads, for the call only).  Pipelines over several placements and
multi-process runs keep the checked path of ``Distributed.place``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import Any, NamedTuple

import jax
import numpy as np

# How a call is dispatched (``Distributed.call_path``).
JIT = "jit"  # the call is one jax.jit: its C++ dispatch, no Python per call
X64_JIT = "x64 jit"  # that jit inside JAX's x64 mode (a 64-bit program)
ARRAYS_JIT = "arrays jit"  # that jit once every leaf is a jax.Array (multi-process)
CHECKED = "checked"  # Python places the arguments (pipelines of placements)


class Dispatch(NamedTuple):
    """Where a distributed call goes: ``call`` (``None``: the checked path),
    how (``path``, one of the names above) and the whole-call ``jax.jit``
    it runs (``None`` on the checked path)."""

    call: Callable[..., Any] | None
    path: str
    jitted: Any = None


CHECKED_PATH = Dispatch(None, CHECKED)


def raw_keys(leaves: list[Any]) -> list[Any]:
    """Typed PRNG keys as the raw uint32 data the program takes (traceable)."""
    return [
        jax.random.key_data(x)
        if isinstance(x, jax.Array)
        and jax.dtypes.issubdtype(x.dtype, jax.dtypes.prng_key)
        else x
        for x in leaves
    ]


def whole_call(
    step: Callable[..., Any],
    unflatten: Callable[[Any], Any],
    in_tree: Any,
    arg_types: Sequence[tuple[Sequence[int], Any]],
    donate_argnums: tuple[int, ...],
) -> Callable[..., Any]:
    """``jax.jit`` of ``fn``'s signature around ``step`` (the flat program).

    Arguments of another structure, shape or dtype than the program was
    compiled for raise ``TypeError`` while tracing, so the caller can fall
    back to the checked path (which converts or explains).
    """
    types = [(tuple(s), np.dtype(d)) for s, d in arg_types]

    def call(*args: Any, **kwargs: Any) -> Any:
        leaves, tree = jax.tree_util.tree_flatten((args, kwargs))
        leaves = raw_keys(leaves)
        if (
            tree != in_tree
            or [(tuple(x.shape), np.dtype(x.dtype)) for x in leaves] != types
        ):
            raise TypeError("not the compiled arguments")
        return unflatten(step(*leaves))

    return jax.jit(call, donate_argnums=donate_argnums)


def direct_call(
    jitted: Callable[..., Any],
    x64: bool,
    x64_mode: Callable[[], AbstractContextManager[Any]],
    processes: int,
) -> Dispatch:
    """The callable a distributed call goes to, and its ``call_path``.

    One process, 32-bit program: ``jitted`` itself (numpy arrays and Python
    scalars are placed by jit as ``jax.jit(fn)`` places them).  A 64-bit
    program: ``jitted`` in x64 mode.  Several processes: ``jitted`` only
    for ``jax.Array`` leaves (a host's numpy value is not a global array;
    the checked path builds one with ``make_array_from_callback``).
    """
    if processes > 1:

        def arrays_only(*args: Any, **kwargs: Any) -> Any:
            leaves = jax.tree_util.tree_leaves((args, kwargs))
            if not all(isinstance(x, jax.Array) for x in leaves):
                raise TypeError("not global arrays")
            with x64_mode():
                return jitted(*args, **kwargs)

        return Dispatch(arrays_only, ARRAYS_JIT, jitted)
    if x64:

        def in_x64(*args: Any, **kwargs: Any) -> Any:
            with x64_mode():
                return jitted(*args, **kwargs)

        return Dispatch(in_x64, X64_JIT, jitted)
    return Dispatch(jitted, JIT, jitted)
