"""Plan a Llama-3-70B-shaped training step on 64 devices, with and without a
pipeline, and say which the cost model prefers (docs/pipeline.md).

The model is ``examples/models/llama.py``'s Llama-3-70B (dim 8192, 64 heads,
8 key-value heads, SwiGLU 28672, vocabulary 128256, bf16 weights, f32 AdamW)
with fewer layers (``--layers``, default 4 of 80) and attention written as
plain products (``--attention plain``, what docs/pipeline.md's numbers were
taken with, from before sbpc read ``jax.nn.dot_product_attention``'s bf16
dot algorithm; ``--attention model`` plans the model's own), so its scores
are materialized: the sequence is 2048, not 8192.  Arguments are ``jax.ShapeDtypeStruct``s: nothing is allocated.
``--layout megatron`` gives the weights (and their moments) Megatron's
tensor-parallel layouts over the ``model`` axis (column-split ``wq``, ``wk``,
``wv``, ``w1``, ``w3``, embedding and head; row-split ``wo`` and ``w2``);
``free`` leaves them to the strategy.

    python bench/pipeline_llama.py --layers 4 --strategy greedy
    python bench/pipeline_llama.py --layers 80 --layout megatron
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import PartitionSpec as P

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))

from models import llama

import sbpc.jax


def attention(x, p, cfg: llama.Config):
    """Grouped-query causal attention as plain products (no fused kernel)."""
    b, t, _ = x.shape
    q = (x @ p["wq"]).reshape(b, t, cfg.heads, cfg.head_dim)
    k = (x @ p["wk"]).reshape(b, t, cfg.kv_heads, cfg.head_dim)
    v = (x @ p["wv"]).reshape(b, t, cfg.kv_heads, cfg.head_dim)
    q, k = llama.rope(q, cfg.rope_theta), llama.rope(k, cfg.rope_theta)
    rep = cfg.heads // cfg.kv_heads
    k, v = jnp.repeat(k, rep, axis=2), jnp.repeat(v, rep, axis=2)
    scores = jnp.einsum("bqhd,bkhd->bhqk", q, k) / np.sqrt(cfg.head_dim)
    causal = jnp.tril(jnp.ones((t, t), bool))
    scores = jnp.where(causal, scores.astype(jnp.float32), -1e9)
    weights = jax.nn.softmax(scores, -1).astype(x.dtype)
    out = jnp.einsum("bhqk,bkhd->bqhd", weights, v)
    return out.reshape(b, t, cfg.dim) @ p["wo"]


@contextlib.contextmanager
def plain_attention() -> Iterator[None]:
    """``llama``'s blocks with ``attention`` above while JAX traces them
    (the blocks look it up by name); the module as it was after."""
    saved = llama.attention
    llama.attention = attention
    try:
        yield
    finally:
        llama.attention = saved


def model(cfg: llama.Config) -> tuple[object, tuple]:
    """The step and its abstract arguments (trace it under ``plain_attention``)."""
    return llama.train_step(cfg), llama.abstract_train_args(cfg)


def mesh(pipeline: sbpc.jax.Pipeline | None, devices: int = 64) -> tuple:
    """8-way tensor parallelism inside a node; the rest data (and stages)."""
    if pipeline is None:
        return ((devices // 8, 8), ("data", "model"))
    data = devices // 8 // pipeline.stages
    return ((pipeline.stages, data, 8), ("stage", "data", "model"))


COLUMN, ROW = P(None, "model"), P("model", None)


def megatron(cfg: llama.Config) -> tuple:
    """``in_layouts`` of ``(params, opt, tokens, targets)``: Megatron's
    tensor-parallel weights (their moments alike), the batch over ``data``."""
    layer = {"attn_norm": P(), "wq": COLUMN, "wk": COLUMN, "wv": COLUMN}
    layer |= {"wo": ROW, "mlp_norm": P(), "w1": COLUMN, "w3": COLUMN, "w2": ROW}
    params = {
        "embed": COLUMN,
        "layers": [dict(layer) for _ in range(cfg.layers)],
        "norm": P(),
        "head": COLUMN,
    }
    return params, {"m": params, "v": params, "step": P()}, P("data"), P("data")


def plan(
    layers: int,
    seq: int,
    batch: int,
    strategy: str,
    pipeline: sbpc.jax.Pipeline | None,
    budget: float | None,
    layout: str = "free",
    attention: str = "plain",
) -> sbpc.jax.Planned:
    cfg = llama.LLAMA3_70B.with_(layers=layers, seq=seq, batch=batch)
    fn, args = model(cfg)
    layouts = (
        megatron(cfg) if layout == "megatron" else (None, None, P("data"), P("data"))
    )
    patched = plain_attention() if attention == "plain" else contextlib.nullcontext()
    with patched:
        return sbpc.jax.plan(
            fn,
            *args,
            mesh=mesh(pipeline),
            in_layouts=layouts,
            strategy=strategy,
            cost_model="h100-sxm",
            memory_budget=budget,
            quiet=True,
            pipeline=pipeline,
        )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--seq", type=int, default=2048)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--strategy", default="greedy")
    parser.add_argument("--budget", type=float, default=1e15)
    parser.add_argument("--layout", choices=("free", "megatron"), default="free")
    parser.add_argument("--attention", choices=("plain", "model"), default="plain")
    parser.add_argument(
        "--pipelines",
        default="2x8x1f1b,4x8x1f1b,4x16x1f1b",
        help="stages x microbatches x schedule, comma-separated",
    )
    args = parser.parse_args(argv)
    rows: list[tuple[str, sbpc.jax.Pipeline | None]] = [
        ("no pipeline (8x8: data x model)", None)
    ]
    for item in args.pipelines.split(","):
        s, m, schedule = item.split("x")
        pipe = sbpc.jax.Pipeline(stages=int(s), microbatches=int(m), schedule=schedule)
        rows.append((f"{s} stages x {m} microbatches, {schedule}", pipe))
    results = []
    for name, pipe in rows:
        start = time.perf_counter()
        planned = plan(
            args.layers,
            args.seq,
            args.batch,
            args.strategy,
            pipe,
            args.budget,
            args.layout,
            args.attention,
        )
        took = time.perf_counter() - start
        results.append((name, planned.step_time, planned.peak_memory, took))
        capacity = planned.memory_capacity
        fits = "" if capacity is None or planned.peak_memory <= capacity else " (>HBM)"
        print(
            f"{name:40} step {planned.step_time * 1e3:9.1f} ms   peak "
            f"{planned.peak_memory / 2**30:7.1f} GiB/device{fits}   "
            f"planned in {took:5.1f} s",
            flush=True,
        )
        if planned.pipeline is not None:
            print(planned.pipeline.text())
    best = min(results, key=lambda r: r[1])
    flat = results[0]
    print(
        f"\nthe cost model prefers: {best[0]} ({flat[1] / best[1]:.2f}x the "
        f"unpipelined step's speed, {best[2] / 2**30:.1f} GiB against "
        f"{flat[2] / 2**30:.1f} GiB per device)"
    )


if __name__ == "__main__":
    main()
