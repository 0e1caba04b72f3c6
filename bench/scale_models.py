"""Real models at real size, planned without their devices (issue 33, item 4).

    python bench/scale_models.py                       # the three models, full depth
    python bench/scale_models.py --layers 2 --budget   # shallower, under mem=
    python bench/scale_models.py --budget --remat auto --config sbpc
    python bench/scale_models.py --layers 2 --remat all --remat-policy dots
    python bench/scale_models.py --scan-layers --budget  # MaxText's scan_layers

Llama-3-8B on 8 H100s (one node), Llama-3-70B and Mixtral-8x7B on 64 (8
nodes): a bf16 training step (forward, backward, AdamW with f32 moments;
``examples/models/llama.py``) given as ``jax.ShapeDtypeStruct`` arguments and
planned by ``sbpc.jax.plan`` under the ``h100-sxm`` preset, the parameters and
optimizer state donated (``donate_argnums=(0, 1)``: updated in place, as
torchtitan's optimizer and MaxText's jitted step do).  Beside sbpc's own
plan (parameters free, the batch split over ``data``), the configurations
practitioners run are pinned as argument layouts and priced by the same cost
model:

- ``fsdp``: every parameter and moment split over all devices on its first
  dimension (ZeRO-3 storage; torchtitan's 8B recipe: FSDP over 8);
- ``tp x fsdp`` (64 devices): Megatron's tensor parallelism over ``model``
  (8 GPUs of a node: query/key/value/gate/up projections by columns, output
  and down projections by rows, embedding and head by vocabulary) and FSDP
  over ``data`` on the other dimension (torchtitan's and MaxText's 70B);
- on Mixtral, ``tp x fsdp`` splits the experts over ``model`` (expert
  parallelism), the rest as above; ``ep``: the experts split over
  ``model``, every other parameter replicated (GShard's and Switch's data
  plus expert parallelism).

Per row: planning seconds, per-device peak memory (the plan's model; the
device has 80 GB), modelled step seconds, MFU (6 x active parameters but
the embedding x tokens plus attention, over step time x devices x 989
Tflop/s), the optimal strategy's proven gap (of its own plan under the
plain model when the search that sees combining kept an improvement of
it; of a memory price's plan, to the unbudgeted optimum, which bounds
every plan that fits: a bound, not a proof of optimality), how many layers are recomputed (``--remat``) with which policy
(``--remat-policy``: ``full`` or ``dots``) and the layout in
words.  Without ``--budget`` the device memory is lifted (``mem=1e15``)
so that every configuration plans and its memory can be read; with it a
plan must fit 80 GB, and a row that cannot says the smallest budget sbpc
found.  ``--scan-layers`` plans the step as MaxText writes it by default
(``Config.scan_layers``: the layers' weights stacked, the blocks run by
``lax.scan`` and each recomputed in the backward pass): the program holds
one block whatever the depth, and every configuration's layouts are the
per-layer ones with the stacked layer dimension whole.  Planning only:
nothing is allocated.
"""

from __future__ import annotations

import os

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

import jax
from jax.sharding import PartitionSpec as P

import sbpc.jax

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
from models import llama

BF16_PEAK = 989e12  # h100-sxm's flops_bf16
MESHES = {8: {"data": 8}, 64: {"data": 8, "model": 8}}
ROWS = (("llama3-8b", 8), ("llama3-70b", 64), ("mixtral-8x7b", 64))

# Megatron's split of each weight over the tensor-parallel axis: by columns
# (1) for projections into a wider space, by rows (0) for the way back;
# experts (3-D weights) by their expert dimension (0).
_TP_DIM = {"wq": 1, "wk": 1, "wv": 1, "w1": 1, "w3": 1, "wo": 0, "w2": 0}
_TP_DIM |= {"embed": 0, "head": 1}


def _leaf_name(path: tuple) -> str:
    return str(getattr(path[-1], "key", getattr(path[-1], "idx", "")))


def _fsdp(path: tuple, leaf: jax.ShapeDtypeStruct, axes: tuple[str, ...]) -> P:
    """Split on the first dimension over every device (ZeRO-3)."""
    if not leaf.shape:
        return P()
    return P(axes if len(axes) > 1 else axes[0])


def _tp_fsdp(path: tuple, leaf: jax.ShapeDtypeStruct, axes: tuple[str, ...]) -> P:
    """Tensor parallel over ``model`` where Megatron splits (an expert
    weight: its experts, expert parallelism), FSDP over ``data`` on another
    dimension; vectors over ``data`` alone."""
    rank = len(leaf.shape)
    if rank == 3:  # [experts, in, out]
        return P("model", "data", None)
    if rank < 2:
        return P("data") if rank else P()
    tp = _TP_DIM.get(_leaf_name(path))
    if tp is None:  # the router: FSDP only
        return P("data", None)
    return P("model", "data") if tp == 0 else P("data", "model")


def _ep(path: tuple, leaf: jax.ShapeDtypeStruct, axes: tuple[str, ...]) -> P:
    """GShard's and Switch's expert parallelism: each expert weight split by
    its experts over ``model`` (the GPUs of a node), everything else
    replicated (data parallel)."""
    return P("model", None, None) if len(leaf.shape) == 3 else P()


CONFIGS: dict[str, Callable[..., P]] = {
    "fsdp": _fsdp,
    "tp x fsdp": _tp_fsdp,
    "ep": _ep,
}


def _stacked(path: tuple) -> bool:
    """Whether ``path`` is a stacked layer weight (``scan_layers``:
    ``layers/<name>``, not ``layers/<index>/<name>``)."""
    keys = [getattr(k, "key", None) for k in path]
    return "layers" in keys and keys.index("layers") == len(path) - 2


def _spec(make: Callable[..., P], path: tuple, leaf, axes: tuple[str, ...]) -> P:
    """``make``'s layout of ``leaf``; a stacked layer weight gets its one
    layer's layout with the layer dimension whole."""
    if not _stacked(path):
        return make(path, leaf, axes)
    layer = jax.ShapeDtypeStruct(leaf.shape[1:], leaf.dtype)
    return P(None, *make(path, layer, axes))


def _layouts(args: tuple, make: Callable[..., P] | None, axes: tuple[str, ...]):
    """Pinned layouts of ``(params, opt, tokens, targets)``; free where None."""
    batch = P("data")
    if make is None:
        return (None, None, batch, batch)
    params, opt = (
        jax.tree_util.tree_map_with_path(lambda p, x: _spec(make, p, x, axes), tree)
        for tree in args[:2]
    )
    return (params, opt, batch, batch)


def model_flops(cfg: llama.Config) -> float:
    """Flops of one training step: 6 per active parameter and token (the
    embedding is a lookup, not a product: left out, as MFU is usually
    counted), plus attention's scores and values (12 x layers x seq x dim
    per token)."""
    total = llama.parameter_count(cfg) - cfg.vocab * cfg.dim
    if cfg.experts:
        expert = 3 * cfg.dim * cfg.hidden * cfg.experts * cfg.layers
        total += expert * (cfg.top_k / cfg.experts - 1)
    tokens = cfg.batch * cfg.seq
    return 6 * total * tokens + 12 * cfg.layers * cfg.seq * cfg.dim * tokens


def _words(planned: sbpc.jax.Planned, n_params: int, stacked: bool = False) -> str:
    """Which mesh axes carry the batch, and over which the parameters are
    stored split (FSDP) or split for their products (tensor/expert);
    ``stacked``: expert weights are ``[layers, experts, in, out]``."""
    ins, _ = planned.shardings()
    tokens = ins[-2]
    parts = [f"batch over {tokens[0] if tokens and tokens[0] else 'nothing'}"]
    params = ins[:n_params]
    for axis in planned.program.MESH_AXES:
        split = sum(1 for s in params if any(axis in str(d) for d in s if d))
        parts.append(f"{split}/{n_params} parameters split over {axis}")
    rank, at = (4, 1) if stacked else (3, 0)
    experts = {str(s[at]) for s in params if len(s) == rank and s[at]}
    if experts:  # [experts, in, out] weights split by their experts
        parts.append(f"experts over {', '.join(sorted(experts))}")
    return "; ".join(parts)


def gap_text(planned: sbpc.jax.Planned) -> str:
    """The optimal strategy's proven gap: of the plan kept (a memory
    price's: to the unbudgeted optimum), or, when the search that sees
    combining kept a local improvement of it, of the strategy's own plan
    under the plain model (``strategy_gap``)."""
    stats = planned.plans[0].plan.stats if planned.plans else {}
    gap = stats.get("gap", stats.get("strategy_gap"))
    return "-" if gap is None else f"{100 * gap:.2g}%"


def row(
    name: str,
    devices: int,
    config: str,
    layers: int | None,
    budget: bool,
    remat: str = "none",
    policy: str = "full",
    timing: bool = False,
    scan_layers: bool = False,
):
    cfg = llama.CONFIGS[name].with_(scan_layers=scan_layers)
    if layers:
        cfg = cfg.with_(layers=layers)
    args = llama.abstract_train_args(cfg)
    mesh = MESHES[devices]
    make = None if config == "sbpc" else CONFIGS[config]
    cost = "h100-sxm" if budget else "h100-sxm,mem=1e15"
    start = time.perf_counter()
    try:
        planned = sbpc.jax.plan(
            llama.train_step(cfg),
            *args,
            mesh=mesh,
            in_layouts=_layouts(args, make, tuple(mesh)),
            cost_model=cost,
            remat=(remat, policy),
            donate_argnums=(0, 1),
            quiet=True,
        )
    except sbpc.jax.SbpcError as e:
        seconds = time.perf_counter() - start
        reason = str(e).splitlines()[0].split("error: ")[-1]
        print(f"{name:13} {devices:3} {config:10} {seconds:7.1f}  {reason[:150]}")
        return
    seconds = time.perf_counter() - start
    mfu = model_flops(cfg) / (planned.step_time * devices * BF16_PEAK)
    n_params = len(jax.tree.leaves(args[0]))
    recomputed = len(planned.recomputed_layers)
    policies = "/".join(sorted(set(planned.remat_policies)))
    print(
        f"{name:13} {devices:3} {config:10} {seconds:7.1f} "
        f"{planned.peak_memory / 2**30:9.1f} {planned.step_time:8.4f} "
        f"{100 * mfu:5.1f}% {gap_text(planned):>7} {recomputed:2} {policies:9}  "
        f"{_words(planned, n_params, scan_layers)}",
        flush=True,
    )
    if timing:  # where the seconds went, and how the strategy solved
        print(planned.timing.format(f"{name} {config}"))
        stats = planned.plans[0].plan.stats if planned.plans else {}
        print({k: v for k, v in stats.items() if not isinstance(v, list | dict)})


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=None, help="depth override")
    parser.add_argument("--model", choices=[r[0] for r in ROWS], action="append")
    parser.add_argument(
        "--budget", action="store_true", help="plans must fit the 80 GB (mem=)"
    )
    parser.add_argument(
        "--remat",
        default="none",
        help="layers recomputed in the backward pass: none, all, auto (with "
        "--budget: the fewest that fit) or indices",
    )
    parser.add_argument(
        "--remat-policy",
        choices=["full", "dots"],
        default="full",
        help="what a recomputed layer recomputes: full (the whole layer) or "
        "dots (all but its weight products: attention scores, softmax, norms; "
        "with --remat auto, dots on more layers before any is whole)",
    )
    parser.add_argument(
        "--config", action="append", help="only these rows (sbpc, fsdp, ...)"
    )
    parser.add_argument(
        "--timing", action="store_true", help="print each row's phases and stats"
    )
    parser.add_argument(
        "--scan-layers",
        action="store_true",
        help="the blocks run by lax.scan over stacked weights, each recomputed "
        "(MaxText's scan_layers)",
    )
    opts = parser.parse_args(argv)
    print(
        f"{'model':13} {'dev':>3} {'config':10} {'plan s':>7} {'peak GiB':>9} "
        f"{'step s':>8} {'MFU':>6} {'gap':>7} {'remat':12}  layout"
    )
    for name, devices in ROWS:
        if opts.model and name not in opts.model:
            continue
        configs = ["sbpc", "fsdp"] + (["tp x fsdp"] if devices == 64 else [])
        configs += ["ep"] if llama.CONFIGS[name].experts else []
        for config in configs:
            if opts.config and config not in opts.config:
                continue
            row(
                name,
                devices,
                config,
                opts.layers,
                opts.budget,
                opts.remat,
                opts.remat_policy,
                opts.timing,
                opts.scan_layers,
            )


if __name__ == "__main__":
    main()
