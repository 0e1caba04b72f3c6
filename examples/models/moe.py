"""A mixture-of-experts layer with its experts split: expert parallelism.

Top-k routing with an expert capacity, as ``llama.experts`` (Mixtral's
layer) has it, written two ways a user writes it:

* ``"einsum"``: GShard's one-hot dispatch and combine einsums
  (``llama.experts`` itself);
* ``"gather"``: each expert slot gathers its token (``tokens[index]``) and
  the outputs are scatter-added back (``.at[index].add``), as sort- and
  index-based implementations dispatch.

Both compute the same numbers.  ``layer_args`` makes parameters and tokens
of a given width; ``train_step`` is one SGD step of the squared output, so
the backward pass's dispatch (the transposed collectives) is planned too.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .example import Example, PinnedExample
from .llama import Config, experts, routing

EXPERTS = 8
DISPATCHES = ("einsum", "gather")


def config(dim: int, seq: int, batch: int = 8) -> Config:
    """An f32 layer of ``EXPERTS`` SwiGLU experts, hidden width ``2 * dim``,
    routing the whole batch as one group (index dispatch gathers from it)."""
    return Config(
        vocab=256, dim=dim, layers=1, heads=4, kv_heads=4, hidden=2 * dim,
        seq=seq, batch=batch, experts=EXPERTS, dtype="float32",
        route_group=seq * batch,
    )  # fmt: skip


def experts_gather(x, p, cfg: Config):
    """``llama.experts`` with index dispatch: slot ``(e, c)`` gathers its
    token, and each token sums its slots' gated outputs by scatter-add."""
    b, t, d = x.shape
    tokens = x.reshape(b * t, d)
    dispatch, combine = (r[0] for r in routing(tokens[None], p["router"], cfg))
    index = jnp.argmax(dispatch, axis=0)  # [e, c]: the slot's token (0: empty)
    filled = jnp.max(dispatch, axis=0)[..., None]  # [e, c, 1]
    inputs = tokens[index] * filled
    h = jax.nn.silu(jnp.einsum("ecd,edh->ech", inputs, p["w1"]))
    h = h * jnp.einsum("ecd,edh->ech", inputs, p["w3"])
    out = jnp.einsum("ech,ehd->ecd", h, p["w2"])
    gate = jnp.sum(combine, axis=0)[..., None]  # [e, c, 1]: the slot's gate
    y = jnp.zeros_like(tokens).at[index].add(out * gate * filled)
    return y.reshape(b, t, d)


def routed(dispatch: str, cfg: Config) -> tuple[str, Config]:
    """``"sequence"`` is the einsums routing each sequence as one group
    (Mixtral's layer as MaxText routes it); the others route the batch."""
    if dispatch == "sequence":
        return "einsum", cfg.with_(route_group=0)
    return dispatch, cfg


def layer(dispatch: str, cfg: Config):
    """The layer ``(params, x) -> y`` written with ``dispatch``."""
    body = {"einsum": experts, "gather": experts_gather}[dispatch]
    return lambda p, x: body(x, p, cfg)


def train_step(dispatch: str, cfg: Config, lr: float = 0.1):
    """``(params, x) -> (loss, params)``: SGD on the mean squared output."""
    forward = layer(dispatch, cfg)

    def step(p, x):
        loss, grads = jax.value_and_grad(lambda q: jnp.mean(forward(q, x) ** 2))(p)
        return loss, jax.tree.map(lambda w, g: w - lr * g, p, grads)

    return step


def layer_args(cfg: Config, seed: int = 0) -> tuple[dict, jax.Array]:
    """Parameters (router and the experts' SwiGLU weights) and tokens."""
    rng = np.random.default_rng(seed)
    e, d, h = cfg.experts, cfg.dim, cfg.hidden

    def normal(*shape: int, scale: float = 0.1) -> jax.Array:
        return jnp.asarray(rng.normal(size=shape) * scale, jnp.float32)

    params = {
        "router": normal(d, e),
        "w1": normal(e, d, h),
        "w3": normal(e, d, h),
        "w2": normal(e, h, d),
    }
    return params, normal(cfg.batch, cfg.seq, d, scale=1.0)


def expert_layouts(scheme: str) -> tuple[dict, str]:
    """(parameter layouts, token layout): experts split over the expert
    axis (all of ``tp``'s and ``dp``'s mesh, the inner axis of ``2d``'s),
    tokens over the data axis (``dp``, ``2d``'s outer) or replicated."""
    split, tokens = {
        "dp": ("[S(0)]", "[S(0)]"),
        "tp": ("[S(0)]", "[B]"),
        "2d": ("[B, S(0)]", "[S(0), B]"),
    }[scheme]
    router = "[B, B]" if scheme == "2d" else "[B]"
    return {"router": router, "w1": split, "w3": split, "w2": split}, tokens


def train_example(dispatch: str, dim: int) -> Example:
    """The SGD step of a width-``dim`` layer (sequences of ``dim / 8``
    tokens, batch 8) with its experts split (``expert_layouts``)."""
    name, cfg = routed(dispatch, config(dim, seq=dim // 8))
    return PinnedExample(
        train_step(name, cfg), layer_args(cfg), in_roles=None, pinned=expert_layouts
    )
