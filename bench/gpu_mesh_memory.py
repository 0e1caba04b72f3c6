"""The memory model against XLA's GPU compiler on a mesh the machine lacks.

    python bench/gpu_mesh_memory.py emit DIR [--devices 8] [--layers 2] ...
    python bench/gpu_mesh_memory.py run DIR           # on one GPU: JAX only
    python bench/gpu_mesh_memory.py run DIR --cpu     # here, simulated CPUs
    python bench/gpu_mesh_memory.py run DIR --deviceless  # here, no GPU

XLA:CPU is not the compiler users' steps meet: it expands
``optimization_barrier`` early and merges recomputation and repeated
gathers back (CSE), so neither recomputation nor FSDP's per-use gathers
show in its ``memory_analysis`` (docs/memory.md).  One GPU can compile for
many: JAX's mock GPU client (``mock_num_gpu_processes``: this process
plays one of N, with mock NCCL) lowers and compiles a program for an
N-device mesh on one card, with XLA's GPU passes and its scheduler.
Nothing runs; ``memory_analysis()`` of the compiled program is what each
device would need.  No GPU is needed either: ``--deviceless`` compiles for
N H100s of a topology JAX's CUDA plugin describes without one
(``jax_only.deviceless_devices``: XLA's GPU compiler without autotuning).

``emit`` plans a Llama-3-8B-shaped bf16 training step
(``examples/models/llama.py``: 8B widths, or ``--model llama3-70b``'s;
``--layers`` layers, AdamW with f32 moments) for ``--devices`` devices (one
``data`` axis; ``--model-axis 8``: ``data`` x ``model``, 8 devices a node)
under the ``h100-sxm`` preset, once per variant, and writes each emitted
module with its plan's peak:

* ``free``: parameters free, the device's 80 GB the budget;
* ``remat``: every layer recomputed in the backward pass (``remat="all"``);
* ``dots``: every layer's attention scores, softmax, norms and elementwise
  ops recomputed, its weight products kept (``remat="dots"``);
* ``budget``: a memory budget of ``--fraction`` of ``free``'s peak (0.6),
  recomputation left to the search (``remat="auto"``: its storage,
  per-use gathers and recomputation);
* ``fsdp``: every parameter and moment pinned split over ``data`` (ZeRO-3
  storage, as the bench's expert configuration).

Each plan's emitted module carries order fences (docs/memory.md) as
``sbp-propagate`` writes them by default; ``--fence-bytes N`` sets the
threshold (``0``: none), so that the same plan can be compiled fenced and
not.

``run`` compiles each emitted module and, beside it, ``jax.jit`` of the
same step given the same input and output shardings (XLA's own
partitioner), and prints planned, compiled and XLA's bytes per device
(argument + output - alias + temporaries), side by side; ``--no-xla``
compiles the emitted modules alone (at the 70B's full depth XLA's
partitioner takes many times as long).  On a GPU, set
``XLA_FLAGS=--xla_gpu_autotune_level=0`` when only the memory is wanted:
with autotuning, one 2-layer module at the 70B's widths for 64 mock
processes did not compile in 150 s on an H100, without it in 9 s
(docs/memory.md, "At the 70B's widths on 8 x 8").  ``--deviceless`` keeps
the ``XLA_FLAGS`` given: Mixtral's step needs
``--xla_gpu_enable_triton_gemm=false`` there (without autotuning XLA found
no Triton tiling for one of its products).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from jax_only import (  # bench/
    abstract_args,
    compiled_bytes,
    deviceless_devices,
    gathers,
    llama,
    load_module,
    plan_facts,
)

_BENCH = Path(__file__).resolve().parent

VARIANTS = ("free", "remat", "dots", "budget", "fsdp")


def _config(args: argparse.Namespace):
    cfg = llama.CONFIGS[args.model]
    cfg = cfg.with_(layers=args.layers, seq=args.seq, batch=args.batch)
    cfg = cfg.with_(scan_layers=args.scan_layers)
    return cfg.tiny(args.layers, args.batch) if args.tiny else cfg


def _mesh(devices: int, model: int) -> dict[str, int]:
    """One ``data`` axis, or ``data`` x ``model`` with ``model`` devices
    innermost (a node's GPUs under the presets)."""
    if model <= 1:
        return {"data": devices}
    if devices % model:
        raise SystemExit(f"--model-axis {model} does not divide {devices} devices")
    return {"data": devices // model, "model": model}


def _donated(cfg) -> tuple[int, ...]:
    """The flat positions of the parameters' and optimizer state's leaves
    (the step's arguments 0 and 1), as ``build(donate=)`` takes them."""
    import jax

    params, opt = llama.abstract_train_args(cfg)[:2]
    return tuple(range(len(jax.tree.leaves(params)) + len(jax.tree.leaves(opt))))


def _plan(
    cfg,
    mesh: dict[str, int],
    variant: str,
    budget: float | None,
    donate: bool,
    fence_bytes: float | None = None,
):
    import sbpc.jax

    sys.path.insert(0, str(_BENCH))
    from scale_models import CONFIGS, _layouts

    args = llama.abstract_train_args(cfg)
    recompute = {"remat": "all", "dots": "dots"}
    options: dict = {"remat": recompute[variant]} if variant in recompute else {}
    if donate:  # updated in place, as scale_models.py plans them
        options["donate_argnums"] = (0, 1)
    if variant == "budget":
        options |= {"memory_budget": budget, "remat": "auto"}
    pinned = CONFIGS["fsdp"] if variant == "fsdp" else None
    return sbpc.jax.plan(
        llama.train_step(cfg),
        *args,
        mesh=mesh,
        in_layouts=_layouts(args, pinned, tuple(mesh)),
        cost_model="h100-sxm,mem=1e15" if variant == "fsdp" else "h100-sxm",
        quiet=True,
        fence_bytes=fence_bytes,
        **options,
    )


def emit(args: argparse.Namespace) -> None:
    """Plan each variant; write ``DIR/<variant>.py`` and ``DIR/plan.json``."""
    import sbpc.jax

    cfg = _config(args)
    mesh = _mesh(args.devices, args.model_axis)
    out = Path(args.dir)
    out.mkdir(parents=True, exist_ok=True)
    facts: dict = {
        "config": {k: getattr(cfg, k) for k in cfg.__dataclass_fields__},
        "devices": args.devices,
        "mesh": mesh,
        "donate": _donated(cfg) if args.donate else (),
        "fence_bytes": args.fence_bytes,
        "variants": {},
    }
    free_peak = None
    for variant in args.variants:
        start = time.perf_counter()
        budget = None if free_peak is None else free_peak * args.fraction
        try:
            planned = _plan(cfg, mesh, variant, budget, args.donate, args.fence_bytes)
        except sbpc.jax.SbpcError as e:
            print(f"{variant:6} no plan: {str(e).splitlines()[0][:200]}")
            continue
        seconds = time.perf_counter() - start
        if variant == "free":
            free_peak = planned.peak_memory
        (out / f"{variant}.py").write_text(planned.source)
        facts["variants"][variant] = {
            "peak_memory": planned.peak_memory,
            "step_time": planned.step_time,
            "budget": budget if variant == "budget" else None,
        }
        print(
            f"{variant:6} planned in {seconds:.1f} s: peak"
            f" {planned.peak_memory / 2**30:.2f} GiB, modelled step"
            f" {planned.step_time * 1e3:.1f} ms",
            flush=True,
        )
    (out / "plan.json").write_text(json.dumps(facts, indent=1))


def _compare(
    cfg,
    program,
    planned: float,
    unit: float,
    devices=None,
    with_xla: bool = True,
    donate: Sequence[int] = (),
) -> str:
    """Compile the emitted module and (``with_xla``) XLA's partitioner with its
    shardings (on ``devices``: default JAX's)."""
    import jax
    from jax.sharding import NamedSharding

    mesh = program.make_mesh(devices)
    flat = abstract_args(program, mesh)
    ins = [x.sharding for x in flat]
    specs = program.OUT_SPECS
    outs = [
        NamedSharding(mesh, s)
        for s in (specs if isinstance(specs, tuple) else (specs,))
    ]
    donate = tuple(donate)
    compiled = program.build(mesh, donate=donate).lower(*flat).compile()
    ours, ours_temp = compiled_bytes(compiled)
    if not with_xla:  # at full depth XLA's partitioner takes many times as long
        line = f"{planned / unit:8.2f} {ours / unit:9.2f} {planned / ours:6.2f}"
        line += f" {ours_temp / unit:8.2f} {'-':>8} {'-':>8} {'-':>6}"
        return f"{line} {gathers(compiled):7}"
    step = llama.train_step(cfg)
    tree = jax.tree.structure(llama.abstract_train_args(cfg))

    def flat_step(*leaves):
        return jax.tree.leaves(step(*jax.tree.unflatten(tree, leaves)))

    xla = jax.jit(
        flat_step, in_shardings=ins, out_shardings=outs, donate_argnums=donate
    )
    theirs, theirs_temp = compiled_bytes(xla.lower(*flat).compile())
    cells = [planned, ours, planned / ours, ours_temp, theirs, theirs_temp]
    cells.append(ours / theirs)
    widths = (8, 9, 6, 8, 8, 8, 6)
    ratios = (2, 6)  # the cells that are ratios, not bytes
    line = " ".join(
        f"{c if k in ratios else c / unit:{w}.2f}"
        for k, (c, w) in enumerate(zip(cells, widths, strict=True))
    )
    return f"{line} {gathers(compiled):7}"


def run(args: argparse.Namespace) -> None:
    out, facts = plan_facts(args.dir)
    devices = facts["devices"]
    if args.cpu or args.deviceless:
        given = [  # the user's flags, kept; the device count is this mesh's
            flag
            for flag in os.environ.get("XLA_FLAGS", "").split()
            if not flag.startswith("--xla_force_host_platform_device_count")
        ]
        given.append(f"--xla_force_host_platform_device_count={devices}")
        os.environ["XLA_FLAGS"] = " ".join(given)
        os.environ["JAX_PLATFORMS"] = "cpu"
    import jax  # imported already (llama.py): its backends start later

    if args.cpu or args.deviceless:
        jax.config.update("jax_platforms", "cpu")
    targets = None
    if args.deviceless:
        memory = args.device_memory * 2**30 if args.device_memory else None
        targets = deviceless_devices(devices, memory)
    if not (args.cpu or args.deviceless):
        jax.config.update("mock_num_gpu_processes", devices)
    cfg = llama.Config(**facts["config"])
    kind = (targets or jax.devices())[0].device_kind
    where = f"{jax.local_device_count()} local"
    if targets:
        where = "no GPU: deviceless"
        if args.device_memory:
            where += f", {args.device_memory:g} GiB each"
    print(
        f"jax {jax.__version__}, {devices} x {kind} ({where}), mesh"
        f" {facts.get('mesh', {'data': devices})}; step {facts['config']}"
    )
    chosen = {v: p for v, p in facts["variants"].items() if v in args.variants}
    peaks = [plan["peak_memory"] for plan in chosen.values()]
    unit, name = (2**30, "GiB") if min(peaks, default=0) >= 2**30 else (2**20, "MiB")
    print(
        f"{'variant':8} {'planned':>8} {'compiled':>9} {'ratio':>6}"
        f" {'temp':>8} {'XLA':>8} {'XLA temp':>8} {'vs XLA':>6} {'gathers':>7}"
        f"   ({name} per device)"
    )
    for variant, plan in chosen.items():
        start = time.perf_counter()
        try:
            program = load_module(out / f"{variant}.py")
            line = _compare(
                cfg,
                program,
                plan["peak_memory"],
                unit,
                targets,
                not args.no_xla,
                facts.get("donate", ()),
            )
        except Exception as e:  # report and go on to the next variant
            line = f"failed: {type(e).__name__}: {str(e).splitlines()[0][:160]}"
        print(f"{variant:8} {line}  ({time.perf_counter() - start:.0f} s)", flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=("emit", "run"))
    parser.add_argument("dir", help="where emit writes and run reads")
    parser.add_argument("--devices", type=int, default=8)
    parser.add_argument(
        "--model",
        choices=("llama3-8b", "llama3-70b", "mixtral-8x7b"),
        default="llama3-8b",
        help="emit: the widths (examples/models/llama.py)",
    )
    parser.add_argument(
        "--model-axis",
        type=int,
        default=1,
        help="emit: a 'model' axis of this many devices inside 'data' (2-D mesh)",
    )
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--seq", type=int, default=4096)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument(
        "--variants",
        nargs="+",
        choices=VARIANTS,
        default=VARIANTS,
        help="emit: those planned; run: those compiled",
    )
    parser.add_argument(
        "--fraction", type=float, default=0.6, help="budget: of free's peak"
    )
    parser.add_argument("--tiny", action="store_true", help="CPU-sized widths")
    parser.add_argument(
        "--scan-layers",
        action="store_true",
        help="emit: the blocks run by lax.scan over stacked weights, each "
        "recomputed (MaxText's scan_layers; use the free variant)",
    )
    parser.add_argument(
        "--fence-bytes",
        type=float,
        help="emit: sbp-propagate's fence_bytes (order fences; 0: none; default "
        "1/64 of the preset's device memory, none for fsdp, planned with "
        "the memory lifted)",
    )
    parser.add_argument(
        "--donate",
        action="store_true",
        help="emit: parameters and optimizer state donated (updated in place)",
    )
    parser.add_argument(
        "--no-xla",
        action="store_true",
        help="run: compile the emitted modules only, not XLA's partitioner beside",
    )
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--cpu", action="store_true", help="run on simulated CPUs")
    where.add_argument(
        "--deviceless",
        action="store_true",
        help="compile for H100s without one (needs jax-cuda12-plugin)",
    )
    parser.add_argument(
        "--device-memory",
        type=float,
        help="--deviceless: GiB each H100 has (default 80 GB: XLA then "
        "schedules for overlap, not memory)",
    )
    args = parser.parse_args(argv)
    (emit if args.mode == "emit" else run)(args)


if __name__ == "__main__":
    main()
