"""One accelerator against its machine preset, and an emitted step run on it.

    python bench/accelerator_check.py emit DIR   # here: plan, write DIR/step.py
    python bench/accelerator_check.py run DIR    # on the accelerator: JAX only

A preset (``cost_model="h100-sxm"``, sbpc/boxing/machines.py) takes its
figures from datasheets; this measures them where the chip is, and runs a
program sbpc emitted there.  ``emit`` plans a Llama-3-8B-shaped bf16 training
step (``examples/models/llama.py``: attention through
``jax.nn.dot_product_attention``, so its products carry JAX's ``algorithm``;
AdamW with f32 moments; ``--layers`` layers at the 8B's widths) for one
device under the preset, from ``jax.ShapeDtypeStruct``\\ s, and writes the
emitted module and the plan's modelled step time and peak memory.  ``run``
needs only JAX (sbpc's emitted module runs unchanged where the devices are)
and prints, beside the preset's figure:

* product rates by operand type (8192-cube products (``--cube``); f32 at JAX's default
  precision and at ``HIGHEST``), and HBM bandwidth (a 1 GiB f32 scale-and-add);
* the emitted step against ``jax.jit`` of the same function on the same
  arguments: loss and every output, per-step time (rounds alternating
  between the two), and the compiled programs' memory (argument + output -
  alias + temporaries, ``memory_analysis()``) against the plan's.

One device, so nothing is distributed: this checks the machine model, the
emitted program's numbers and speed on the accelerator, and the memory model
against XLA's GPU compiler.  docs/machines.md has a run's results.

``emit --mesh 8 --budget 0.5`` plans for 8 devices instead (batch split,
parameters and optimizer state free, strategy optimal) under half the
unbudgeted plan's peak (``--budget`` above 1: bytes): a plan that stores
parameters split and gathers them per use (FSDP, docs/memory.md) writes
barriers (``lax.optimization_barrier``) before its gathers; ``plan.json`` counts
them.  ``run`` is for one device; such a step is compiled for 8.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
from jax_only import compiled_bytes, llama, load_module, plan_facts  # bench/
from paired_timing import (  # bench/ (jax and numpy only)
    interleaved_times,
    median_seconds,
    paired_ratio,
)

ROUNDS = 10


def _config(args: argparse.Namespace) -> llama.Config:
    cfg = llama.LLAMA3_8B.with_(layers=args.layers, seq=args.seq, batch=args.batch)
    return cfg.tiny(args.layers, args.batch) if args.tiny else cfg


def emit(args: argparse.Namespace) -> None:
    """Plan the step for one device under the preset; write what ``run`` reads."""
    import sbpc.jax

    cfg = _config(args)
    step_args = llama.abstract_train_args(cfg)
    start = time.perf_counter()
    options: dict = dict(mesh=args.mesh, cost_model=args.preset, quiet=True)
    if args.mesh > 1:  # the batch split over the devices, the state free
        state = jax.tree.map(lambda _: None, step_args[:2])
        options.update(strategy="optimal", in_layouts=(*state, "[S(0)]", "[S(0)]"))
    budget = args.budget
    if budget is not None and budget <= 1:  # a fraction of the free plan's peak
        free = sbpc.jax.plan(
            llama.train_step(cfg), *step_args, memory_budget=1e300, **options
        )
        budget *= free.peak_memory
    planned = sbpc.jax.plan(
        llama.train_step(cfg), *step_args, memory_budget=budget, **options
    )
    seconds = time.perf_counter() - start
    out = Path(args.dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "step.py").write_text(planned.source)
    from sbpc.boxing.machines import PRESETS

    facts = {
        "config": {k: getattr(cfg, k) for k in cfg.__dataclass_fields__},
        "preset": args.preset,
        "preset_text": PRESETS[args.preset],
        "step_time": planned.step_time,
        "peak_memory": planned.peak_memory,
        "planning_seconds": seconds,
        "mesh": args.mesh,
        "memory_budget": budget,
        # FSDP: gathers made before each reader, behind a barrier
        "per_use_barriers": planned.source.count("# stablehlo.optimization_barrier"),
    }
    (out / "plan.json").write_text(json.dumps(facts, indent=1))
    print(
        f"planned in {seconds:.1f} s: modelled step {planned.step_time * 1e3:.1f} ms,"
        f" peak {planned.peak_memory / 2**30:.2f} GiB,"
        f" {facts['per_use_barriers']} barriers before per-use gathers -> {out}"
    )


def _preset(text: str) -> dict[str, float]:
    return {k: float(v) for k, v in (item.split("=") for item in text.split(","))}


def rates(preset: dict[str, float], cube: int) -> None:
    """Product flop/s by operand type and HBM bytes/s, beside the preset's."""
    key = jax.random.key(0)
    a32 = jax.random.normal(key, (cube, cube), jnp.float32)
    flops = 2 * cube**3
    rows = (
        ("f32 (default precision)", a32, {}, "flops_f32"),
        ("f32 (HIGHEST)", a32, {"precision": jax.lax.Precision.HIGHEST}, "flops_f32"),
        ("tf32 (HIGH)", a32, {"precision": jax.lax.Precision.HIGH}, "flops_tf32"),
        ("bf16", a32.astype(jnp.bfloat16), {}, "flops_bf16"),
        (
            "f8E4M3FN -> f32",
            a32.astype(jnp.float8_e4m3fn),
            {"preferred_element_type": jnp.float32},
            "flops_f8",
        ),
        (
            "i8 -> i32",
            (a32 * 8).astype(jnp.int8),
            {"preferred_element_type": jnp.int32},
            "flops_i8",
        ),
    )
    print(f"{'product':26} {'measured':>12} {'preset':>12} {'ratio':>6}")
    for name, a, kw, field in rows:
        try:
            f = jax.jit(lambda x, kw=kw: jnp.matmul(x, x, **kw))
            rate = flops / median_seconds(f, a, repeats=ROUNDS)
        except Exception as e:  # a type the chip or XLA does not run
            print(f"{name:26} failed: {str(e).splitlines()[0][:80]}")
            continue
        want = preset.get(field, preset["flops"])
        print(
            f"{name:26} {rate / 1e12:9.1f} TF {want / 1e12:9.1f} TF {rate / want:6.2f}"
        )
    x = jnp.ones((cube * cube * 4,), jnp.float32)
    scale = jax.jit(lambda x: x * 1.5 + 1.0)
    bw = 2 * 4 * x.size / median_seconds(scale, x, repeats=ROUNDS)
    hbm = preset["hbm"]
    print(
        f"{'HBM (scale-and-add)':26} {bw / 1e9:8.0f} GB/s {hbm / 1e9:7.0f} GB/s"
        f" {bw / hbm:6.2f}"
    )


def _arguments(cfg: llama.Config) -> tuple:
    """``(params, opt, tokens, targets)`` made on the device (numpy would take
    a minute for a billion elements)."""
    shapes = llama.param_shapes(cfg)
    leaves, tree = jax.tree.flatten(shapes, is_leaf=llama.is_shape)
    keys = jax.random.split(jax.random.key(1), len(leaves))
    dtype = jnp.dtype(cfg.dtype)

    def init(key, shape):
        if len(shape) == 1:
            return jnp.ones(shape, dtype)
        return (jax.random.normal(key, shape, jnp.float32) / np.sqrt(shape[-2])).astype(
            dtype
        )

    params = jax.tree.unflatten(
        tree, [init(k, s) for k, s in zip(keys, leaves, strict=True)]
    )
    tokens = jax.random.randint(
        jax.random.key(2), (cfg.batch, cfg.seq + 1), 0, cfg.vocab, jnp.int32
    )
    return params, llama.adamw_init(params), tokens[:, :-1], tokens[:, 1:]


def step(facts: dict, source: Path) -> None:
    """The emitted step against jax.jit: numbers, time, compiled memory."""
    cfg = llama.Config(**facts["config"])
    program = load_module(source)
    args = _arguments(cfg)
    flat = jax.tree.leaves(args)
    emitted = program.build()
    reference = jax.jit(llama.train_step(cfg))
    # jax.jit first: the first compile in a process tunes the GEMMs (on an
    # H100, 10 s of this step's), the second finds them tuned; so the
    # emitted module's compile is the fair one to compare with a warm one.
    start = time.perf_counter()
    theirs_c = reference.lower(*args).compile()
    theirs_compile = time.perf_counter() - start
    start = time.perf_counter()
    ours_c = emitted.lower(*flat).compile()
    ours_compile = time.perf_counter() - start
    got = jax.tree.leaves(ours_c(*flat))
    want = jax.tree.leaves(theirs_c(*args))
    worst = 0.0
    for g, w in zip(got, want, strict=True):
        g32, w32 = np.asarray(g, np.float64), np.asarray(w, np.float64)
        scale = max(float(np.max(np.abs(w32))), 1e-30)
        worst = max(worst, float(np.max(np.abs(g32 - w32))) / scale)
    print(
        f"loss: emitted {float(got[0]):.6f}, jax.jit {float(want[0]):.6f};"
        f" worst output difference {worst:.2e} of its largest value"
        f" ({len(got)} outputs)"
    )
    ours, theirs = interleaved_times([ours_c, theirs_c], [flat, args], ROUNDS)
    ours_t, theirs_t = float(np.median(ours)), float(np.median(theirs))
    ratio = paired_ratio(ours, theirs)
    print(
        f"step: emitted {ours_t * 1e3:.1f} ms, jax.jit {theirs_t * 1e3:.1f} ms"
        f" (paired ratio {ratio:.3f}), modelled {facts['step_time'] * 1e3:.1f} ms"
        f" (measured / modelled {ours_t / facts['step_time']:.2f})"
    )
    print(
        f"compile: jax.jit {theirs_compile:.1f} s (first in the process),"
        f" emitted {ours_compile:.1f} s"
    )
    planned = facts["peak_memory"]
    (ours_m, _), (theirs_m, _) = compiled_bytes(ours_c), compiled_bytes(theirs_c)
    print(
        f"memory: planned {planned / 2**30:.2f} GiB, emitted compiled"
        f" {ours_m / 2**30:.2f} GiB ({planned / ours_m:.2f}x), jax.jit"
        f" {theirs_m / 2**30:.2f} GiB"
    )


def run(args: argparse.Namespace) -> None:
    out, facts = plan_facts(args.dir)
    print(
        f"jax {jax.__version__} on {jax.devices()[0].device_kind};"
        f" preset {facts['preset']}; step {facts['config']}"
    )
    rates(_preset(facts["preset_text"]), args.cube)
    step(facts, out / "step.py")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=("emit", "run"))
    parser.add_argument("dir", help="where emit writes and run reads")
    parser.add_argument("--preset", default="h100-sxm")
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--seq", type=int, default=4096)
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--tiny", action="store_true", help="CPU-sized widths")
    parser.add_argument(
        "--mesh", type=int, default=1, help="emit: devices (batch split over them)"
    )
    parser.add_argument(
        "--budget",
        type=float,
        default=None,
        help="emit: memory budget in bytes per device, or at most 1: that "
        "fraction of the unbudgeted plan's peak (FSDP's per-use gathers)",
    )
    parser.add_argument(
        "--cube", type=int, default=8192, help="product side; HBM: 4 cubes of f32"
    )
    args = parser.parse_args(argv)
    (emit if args.mode == "emit" else run)(args)


if __name__ == "__main__":
    main()
