"""Which results of a step are the next step's arguments: state ties.

A training step ``(params, opt_state, batch) -> (loss, params, opt_state)``
is called in a loop: its new parameters and optimizer state are the next
call's arguments.  If a result came back in another layout than its
argument came in, every call would begin by resharding the state (the
Megatron SGD step on a 2x4 mesh took ``W1`` as ``[B, S(1)]`` and returned
``[S(0), S(1)]``), a cost no plan counts.  So ``sbpc.jax`` ties such a
result to its argument (``sbp.tied_to``) and every strategy returns it in
the argument's layout.

A result is the state of an argument when a top-level element of the
results (the whole result if it is not a tuple or list) has the same pytree
structure as a positional argument, leaf by leaf the same shape and dtype.
Arguments and results of one such *kind* pair up in order when there are as
many of each.  Otherwise the kind is ambiguous (a step returning the
gradients and the parameters, both shaped like the parameters), and only
donated arguments are tied there, to the last results of the kind, in order
(state is returned after what is computed from it).  Scalars are not tied:
they have one layout.  ``sbpc.jax`` ties no result to an argument laid out
partial (``[P]``): a partial result comes back as its pieces, which the
next call would not take (it takes the whole array).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax


def _kind(tree: Any) -> tuple[Any, tuple[tuple[tuple[int, ...], str], ...]]:
    """A pytree's structure and its leaves' shapes and dtypes."""
    leaves, treedef = jax.tree_util.tree_flatten(tree)
    return treedef, tuple((tuple(x.shape), str(x.dtype)) for x in leaves)


def _parts(tree: Any) -> list[Any]:
    """The top-level elements of a result tree (itself when not a sequence)."""
    return list(tree) if isinstance(tree, tuple | list) else [tree]


def state_ties(
    args_info: Sequence[Any], out_info: Any, donated: Sequence[int] = ()
) -> dict[int, int]:
    """Flat result leaf -> flat argument leaf, for every tied pair.

    ``args_info``: the positional arguments' abstract values (their leaves
    come first among the flat arguments, as ``jax.jit`` flattens
    ``(args, kwargs)``); ``out_info``: the results'; ``donated``: the
    positional arguments donated (``donate_argnums``).
    """
    arg_start = [0]
    for a in args_info:
        arg_start.append(arg_start[-1] + len(jax.tree_util.tree_leaves(a)))
    parts = _parts(out_info)
    out_start = [0]
    for p in parts:
        out_start.append(out_start[-1] + len(jax.tree_util.tree_leaves(p)))
    kinds: dict[Any, tuple[list[int], list[int]]] = {}
    for i, a in enumerate(args_info):
        if jax.tree_util.tree_leaves(a):
            kinds.setdefault(_kind(a), ([], []))[0].append(i)
    for j, p in enumerate(parts):
        kind = _kind(p)
        if kind in kinds:
            kinds[kind][1].append(j)
    ties: dict[int, int] = {}
    for (_, leaves), (args, outs) in kinds.items():
        if not outs:
            continue
        if len(args) == len(outs):
            pairs = list(zip(args, outs, strict=True))
        else:
            giving = [i for i in args if i in donated]
            if not giving or len(giving) > len(outs):
                continue
            pairs = list(zip(giving, outs[len(outs) - len(giving) :], strict=True))
        for i, j in pairs:
            for k, (shape, _) in enumerate(leaves):
                if shape:  # a scalar has one layout
                    ties[out_start[j] + k] = arg_start[i] + k
    return ties
