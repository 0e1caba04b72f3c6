"""Llama-3- and Mixtral-shaped decoders in plain JAX, as torchtitan and MaxText
train them: bf16 parameters and activations, f32 AdamW state, a full
training step (forward, backward, AdamW update).

The shapes are the published ones (``LLAMA3_8B``, ``LLAMA3_70B``,
``MIXTRAL_8X7B``); ``Config.tiny()`` keeps a configuration's structure
(grouped-query attention, SwiGLU, experts) at a size that runs on a laptop.
Real sizes are planned with ``abstract_train_args``: ``jax.ShapeDtypeStruct``
arguments, nothing allocated.

Pieces: token embedding (a gather), RMSNorm, rotary position embedding,
grouped-query causal attention through ``jax.nn.dot_product_attention`` (JAX
writes bf16 products with an ``algorithm``), a SwiGLU MLP or a top-k routed
mixture of SwiGLU experts (GShard's one-hot dispatch and combine einsums,
with an expert capacity), a language-model head and softmax cross-entropy.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import jax
import jax.numpy as jnp
import numpy as np


@dataclass(frozen=True)
class Config:
    """A decoder's shape; ``experts`` 0 is a dense model."""

    vocab: int
    dim: int
    layers: int
    heads: int
    kv_heads: int
    hidden: int
    seq: int
    batch: int
    experts: int = 0
    top_k: int = 2
    capacity_factor: float = 1.25
    # Tokens routed together (one capacity per group, GShard's groups); 0:
    # each sequence, as MaxText routes.  One group of the whole batch makes
    # the dispatch [tokens, experts, capacity] grow with the batch squared.
    route_group: int = 0
    rope_theta: float = 500000.0
    dtype: str = "bfloat16"
    # MaxText's ``scan_layers``: the layers' weights stacked ``[layers, ...]``
    # and the blocks run by ``lax.scan``, each recomputed in the backward
    # pass (``jax.checkpoint``, MaxText's ``remat_policy: full``), so the
    # program holds one block whatever the depth.
    scan_layers: bool = False

    @property
    def head_dim(self) -> int:
        return self.dim // self.heads

    def tiny(self, layers: int = 2, batch: int = 8) -> Config:
        """The same structure at a size that runs on CPU devices: head and
        expert counts kept where small, every width shrunk."""
        return dataclasses.replace(
            self,
            vocab=256,
            dim=64,
            layers=layers,
            heads=min(self.heads, 8),
            kv_heads=min(self.kv_heads, 8) * min(self.heads, 8) // self.heads or 1,
            hidden=128,
            seq=16,
            batch=batch,
            experts=min(self.experts, 4),
        )

    def with_(self, **changes: object) -> Config:
        return dataclasses.replace(self, **changes)


# Llama 3 (Meta's model card): batch is per step, as torchtitan's configs.
LLAMA3_8B = Config(
    vocab=128256, dim=4096, layers=32, heads=32, kv_heads=8, hidden=14336,
    seq=8192, batch=8,
)  # fmt: skip
LLAMA3_70B = Config(
    vocab=128256, dim=8192, layers=80, heads=64, kv_heads=8, hidden=28672,
    seq=8192, batch=64,
)  # fmt: skip
# Mixtral 8x7B (Mistral AI's release): 8 experts, 2 per token.
MIXTRAL_8X7B = Config(
    vocab=32000, dim=4096, layers=32, heads=32, kv_heads=8, hidden=14336,
    seq=4096, batch=64, experts=8, top_k=2, rope_theta=1e6,
)  # fmt: skip

CONFIGS = {
    "llama3-8b": LLAMA3_8B,
    "llama3-70b": LLAMA3_70B,
    "mixtral-8x7b": MIXTRAL_8X7B,
}


# ------------------------------------------------------------------ model
def rms_norm(x, g, eps: float = 1e-5):
    x32 = x.astype(jnp.float32)
    scale = jax.lax.rsqrt(jnp.mean(x32 * x32, -1, keepdims=True) + eps)
    return (x32 * scale).astype(x.dtype) * g


def rope(x, theta: float):
    """Rotary embedding of ``x [batch, seq, heads, head_dim]`` (halves rotated)."""
    _, t, _, d = x.shape
    freqs = 1.0 / theta ** (np.arange(0, d, 2, dtype=np.float32) / d)
    angles = np.arange(t, dtype=np.float32)[:, None] * freqs[None, :]
    cos = jnp.asarray(np.cos(angles), x.dtype)[None, :, None, :]
    sin = jnp.asarray(np.sin(angles), x.dtype)[None, :, None, :]
    x1, x2 = x[..., : d // 2], x[..., d // 2 :]
    return jnp.concatenate([x1 * cos - x2 * sin, x2 * cos + x1 * sin], -1)


def attention(x, p, cfg: Config):
    b, t, _ = x.shape
    q = (x @ p["wq"]).reshape(b, t, cfg.heads, cfg.head_dim)
    k = (x @ p["wk"]).reshape(b, t, cfg.kv_heads, cfg.head_dim)
    v = (x @ p["wv"]).reshape(b, t, cfg.kv_heads, cfg.head_dim)
    q, k = rope(q, cfg.rope_theta), rope(k, cfg.rope_theta)
    out = jax.nn.dot_product_attention(q, k, v, is_causal=True)
    return out.reshape(b, t, cfg.dim) @ p["wo"]


def swiglu(x, w1, w3, w2):
    return (jax.nn.silu(x @ w1) * (x @ w3)) @ w2


def routing(tokens, router, cfg: Config):
    """(dispatch ``[g, s, e, c]``, combine ``[g, s, e, c]``) for ``tokens
    [g, s, d]`` in ``g`` groups of ``s``: each token goes to its k best
    experts while they have room in its group (``capacity`` slots each);
    which slot it takes, and its gate there."""
    g, s, _ = tokens.shape
    e, k = cfg.experts, cfg.top_k
    capacity = max(1, int(cfg.capacity_factor * s * k / e))
    logits = (tokens @ router).astype(jnp.float32)
    gates, chosen = jax.lax.top_k(jax.nn.softmax(logits, -1), k)
    gates = gates / jnp.sum(gates, -1, keepdims=True)
    mask = jax.nn.one_hot(chosen, e, dtype=jnp.int32)  # [g, s, k, e]
    # Each (token, choice)'s slot in its expert, choices of rank 0 first.
    order = jnp.cumsum(mask.transpose(0, 2, 1, 3).reshape(g, k * s, e), 1)
    slot = order.reshape(g, k, s, e).transpose(0, 2, 1, 3) * mask - 1
    keep = (slot >= 0) & (slot < capacity)
    where = jax.nn.one_hot(jnp.where(keep, slot, -1), capacity, dtype=tokens.dtype)
    combine = jnp.einsum("gsk,gskec->gsec", gates.astype(tokens.dtype), where)
    return jnp.sum(where, 2), combine


def route_groups(x, cfg: Config):
    """``x [b, t, d]`` as ``[groups, tokens per group, d]``."""
    _, t, d = x.shape
    return x.reshape(-1, cfg.route_group or t, d)


def experts(x, p, cfg: Config):
    """Top-k routed experts with GShard's dispatch and combine einsums, per
    routing group: with the groups split over the data axes and the experts
    over another, the dispatch is local and the combine's sum over experts
    is the one collective (or an all-to-all pair where tokens are split)."""
    tokens = route_groups(x, cfg)
    dispatch, combine = routing(tokens, p["router"], cfg)
    inputs = jnp.einsum("gsec,gsd->egcd", dispatch, tokens)
    h = jax.nn.silu(jnp.einsum("egcd,edh->egch", inputs, p["w1"]))
    h = h * jnp.einsum("egcd,edh->egch", inputs, p["w3"])
    out = jnp.einsum("egch,ehd->egcd", h, p["w2"])
    return jnp.einsum("gsec,egcd->gsd", combine, out).reshape(x.shape)


def block(x, p, cfg: Config):
    x = x + attention(rms_norm(x, p["attn_norm"]), p, cfg)
    h = rms_norm(x, p["mlp_norm"])
    if cfg.experts:
        return x + experts(h, p, cfg)
    return x + swiglu(h, p["w1"], p["w3"], p["w2"])


def forward(params, tokens, cfg: Config):
    """Logits ``[batch, seq, vocab]`` (f32) for integer ``tokens``."""
    x = params["embed"][tokens]
    if cfg.scan_layers:
        body = jax.checkpoint(lambda x, p: block(x, p, cfg))
        x, _ = jax.lax.scan(lambda x, p: (body(x, p), None), x, params["layers"])
    else:
        for p in params["layers"]:
            x = block(x, p, cfg)
    x = rms_norm(x, params["norm"])
    return (x @ params["head"]).astype(jnp.float32)


def loss_fn(params, tokens, targets, cfg: Config):
    logp = jax.nn.log_softmax(forward(params, tokens, cfg), -1)
    picked = jnp.take_along_axis(logp, targets[..., None], -1)
    return -jnp.mean(picked)


# ------------------------------------------------------------------ AdamW
LR, B1, B2, EPS, WD = 3e-4, 0.9, 0.95, 1e-8, 0.1


def adamw_init(params):
    """f32 first and second moments, as mixed-precision training keeps them."""

    def zeros(p):
        return jax.tree.map(lambda x: jnp.zeros(jnp.shape(x), jnp.float32), p)

    return {"m": zeros(params), "v": zeros(params), "step": jnp.int32(0)}


def adamw_update(params, grads, opt):
    step = opt["step"] + 1
    t = step.astype(jnp.float32)

    def one(p, g, m, v):
        g = g.astype(jnp.float32)
        m = B1 * m + (1 - B1) * g
        v = B2 * v + (1 - B2) * g * g
        update = (m / (1 - B1**t)) / (jnp.sqrt(v / (1 - B2**t)) + EPS)
        new = p.astype(jnp.float32) * (1 - LR * WD) - LR * update
        return new.astype(p.dtype), m, v

    out = jax.tree.map(one, params, grads, opt["m"], opt["v"])
    new = jax.tree.map(lambda o: o[0], out, is_leaf=lambda o: isinstance(o, tuple))
    m = jax.tree.map(lambda o: o[1], out, is_leaf=lambda o: isinstance(o, tuple))
    v = jax.tree.map(lambda o: o[2], out, is_leaf=lambda o: isinstance(o, tuple))
    return new, {"m": m, "v": v, "step": step}


def train_step(cfg: Config):
    """``step(params, opt, tokens, targets) -> (loss, params, opt)``."""

    def step(params, opt, tokens, targets):
        loss, grads = jax.value_and_grad(loss_fn)(params, tokens, targets, cfg)
        params, opt = adamw_update(params, grads, opt)
        return loss, params, opt

    return step


# ------------------------------------------------------------------ arguments
def param_shapes(cfg: Config) -> dict:
    """Every parameter's shape, as a pytree of tuples."""
    d, h, kv = cfg.dim, cfg.hidden, cfg.kv_heads * cfg.head_dim
    layer = {"attn_norm": (d,), "wq": (d, d), "wk": (d, kv), "wv": (d, kv)}
    layer |= {"wo": (d, d), "mlp_norm": (d,)}
    if cfg.experts:
        e = cfg.experts
        layer |= {"router": (d, e), "w1": (e, d, h), "w3": (e, d, h), "w2": (e, h, d)}
    else:
        layer |= {"w1": (d, h), "w3": (d, h), "w2": (h, d)}
    layers: list | dict = [dict(layer) for _ in range(cfg.layers)]
    if cfg.scan_layers:  # one stacked array per weight
        layers = {name: (cfg.layers, *shape) for name, shape in layer.items()}
    return {
        "embed": (cfg.vocab, d),
        "layers": layers,
        "norm": (d,),
        "head": (d, cfg.vocab),
    }


def is_shape(x: object) -> bool:
    """Whether ``x`` is a leaf of ``param_shapes``' tree (a shape tuple):
    the ``is_leaf`` of ``jax.tree`` calls over it."""
    return isinstance(x, tuple) and all(isinstance(n, int) for n in x)


def abstract_train_args(cfg: Config) -> tuple:
    """``(params, opt, tokens, targets)`` as ``jax.ShapeDtypeStruct``s."""
    dtype = jnp.dtype(cfg.dtype)
    shapes = param_shapes(cfg)
    params = jax.tree.map(
        lambda s: jax.ShapeDtypeStruct(s, dtype), shapes, is_leaf=is_shape
    )
    moments = jax.tree.map(
        lambda s: jax.ShapeDtypeStruct(s, jnp.float32), shapes, is_leaf=is_shape
    )
    opt = {"m": moments, "v": moments, "step": jax.ShapeDtypeStruct((), jnp.int32)}
    tokens = jax.ShapeDtypeStruct((cfg.batch, cfg.seq), jnp.int32)
    return params, opt, tokens, tokens


def train_args(cfg: Config, seed: int = 0) -> tuple:
    """Concrete ``(params, opt, tokens, targets)`` (for small configurations).
    With ``scan_layers`` the same numbers as without, the layers stacked."""
    rng = np.random.default_rng(seed)
    dtype = jnp.dtype(cfg.dtype)

    def init(shape: tuple[int, ...]):
        if len(shape) == 1:
            return jnp.ones(shape, dtype)
        fan_in = shape[-2]
        return jnp.asarray(rng.standard_normal(shape) / np.sqrt(fan_in), dtype)

    unrolled = cfg.with_(scan_layers=False)
    params = jax.tree.map(init, param_shapes(unrolled), is_leaf=is_shape)
    if cfg.scan_layers:
        params["layers"] = stack_layers(params["layers"])
    tokens = rng.integers(0, cfg.vocab, (cfg.batch, cfg.seq + 1)).astype(np.int32)
    return params, adamw_init(params), tokens[:, :-1], tokens[:, 1:]


def stack_layers(layers: list[dict]) -> dict:
    """Per-layer weights (``scan_layers`` off) as ``scan_layers``' stacked ones."""
    return {name: jnp.stack([p[name] for p in layers]) for name in layers[0]}


def parameter_count(cfg: Config) -> int:
    shapes = jax.tree.leaves(param_shapes(cfg), is_leaf=is_shape)
    return sum(int(np.prod(s)) for s in shapes)
