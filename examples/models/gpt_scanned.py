"""The GPT example with its decoder blocks run by ``lax.scan`` over stacked weights.

The blocks, embeddings, head, loss and Adam step of ``gpt.py``; only the
spelling of the stack differs.  ``gpt.py`` loops in Python over ``layers``
parameter dicts (JAX unrolls it: a copy of every op per layer, forward and
backward); here one dict of ``[layers, ...]`` weights is scanned (one copy
of the block in a ``stablehlo.while`` body, forward and backward).  The
stacked weights are the unrolled ones, so both compute the same numbers.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import jax
import numpy as np
from jax import lax

from . import gpt
from .example import Example, Model, stacked_role
from .optim import adam_step, cross_entropy


def forward(params, tokens):
    """Logits ``[batch, seq, vocab]``, the blocks scanned."""
    x = params["wte"][tokens] + params["wpe"][: tokens.shape[1]]
    x, _ = lax.scan(lambda h, p: (gpt.block(h, p), None), x, params["blocks"])
    return gpt.layer_norm(x, params["lnf_g"], params["lnf_b"]) @ params["head"]


def loss_fn(params, tokens, targets):
    """Mean next-token cross-entropy (as ``gpt.loss_fn``)."""
    return cross_entropy(forward(params, tokens), targets, gpt.VOCAB)


# (params, opt, tokens, targets) -> (loss, params, opt)
train_step = adam_step(loss_fn)


def stack(tree: dict[str, Any], leaf: Callable[..., Any]) -> dict[str, Any]:
    """``tree`` (gpt's parameters or roles) with its list of blocks made one
    block whose leaves are ``leaf`` of the layers' leaves."""
    return {**tree, "blocks": jax.tree.map(leaf, *tree["blocks"])}


def _one_role(*roles: str) -> str:
    """The stacked role of a parameter whose role every layer shares."""
    assert len(set(roles)) == 1, roles
    return stacked_role(roles[0])


def init_params(layers: int, seed: int = 0) -> dict[str, Any]:
    """gpt's parameters at ``layers`` blocks, the blocks stacked."""
    with gpt.Depth(layers):
        return stack(gpt.init_params(seed), lambda *xs: np.stack(xs))


def param_roles() -> dict[str, Any]:
    """gpt's Megatron roles with each block split one dim further in (the
    layer axis whole): a column split ``S(1)`` of ``[layers, d, h]`` is ``S(2)``."""
    return stack(gpt.param_roles(), _one_role)


def model(layers: int) -> Model:
    """The scanned GPT at ``layers`` blocks."""
    return Model(
        forward, train_step, partial(init_params, layers), gpt.batch, param_roles
    )


def train_example(layers: int = gpt.LAYERS) -> Example:
    """The Adam training step of the scanned GPT at ``layers`` blocks."""
    return model(layers).train_example()
