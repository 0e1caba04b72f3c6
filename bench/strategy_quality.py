"""How far greedy and bfs plans are from the optimal one, by the model.

    python bench/strategy_quality.py                       # every example, dp/tp/2d
    python bench/strategy_quality.py --only mlp_train --schemes 2d
    python bench/strategy_quality.py --library flax_linen --layers 1
    python bench/strategy_quality.py --cost-model "combine=0" --json out.json

For each example of ``examples/models`` (``--only``) under each scheme, and
for each library model of ``bench/library_models.py`` (``--library``), the
function is lowered and annotated once (``sbpc.jax.annotate``), then
``sbp-propagate`` plans a copy of it with each strategy under one cost model
(``--cost-model``, the pass's own default unless given).  Every plan is
priced by the pass itself, so the three totals are the same yardstick:
compute plus communication, combined where the model combines.  It prints
each strategy's modelled time, its ratio to optimal's, the report's lower
bound where it has one, and the seconds ``sbp-propagate`` took.

Ratios are of modelled costs, not timings: they are what the tests assert
(``test/bench/test_strategy_quality.py``); the seconds are wall-clock on
this machine.
"""

from __future__ import annotations

import os

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import argparse
import json
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples"))
sys.path.insert(0, str(ROOT / "bench"))

from models import EXAMPLES, SCHEMES  # noqa: E402
from models.example import Example  # noqa: E402

import sbpc.jax  # noqa: E402
from sbpc.passes.inline import SbpInlinePass  # noqa: E402
from sbpc.passes.pipeline import default_context  # noqa: E402
from sbpc.passes.propagate import SbpPropagatePass  # noqa: E402

STRATEGIES = ("greedy", "bfs", "optimal")


@dataclass
class Planned:
    """One strategy's plan of one row, as the pass priced it."""

    time: float  # modelled seconds: compute + communication
    bytes: float | None
    seconds: float  # wall-clock of sbp-propagate
    bound: float | None = None  # the report's lower bound, when it has one
    stats: dict = field(default_factory=dict)
    bound_seconds: float = 0.0  # wall-clock of reading the bound


@dataclass
class Row:
    example: str
    scheme: str
    plans: dict[str, Planned]

    def ratio(self, strategy: str) -> float:
        return self.plans[strategy].time / self.plans["optimal"].time


def plan_row(
    example: Example, scheme: str, cost_model: str | None, with_bound: bool = True
) -> dict[str, Planned]:
    """Every strategy's plan of ``example`` under ``scheme``."""
    annotated = sbpc.jax.annotate(
        example.fn,
        *example.args,
        mesh=example.mesh(scheme),
        in_layouts=example.in_layouts(scheme),
        out_layouts=example.out_layouts(scheme),
    )
    module = annotated.module
    SbpInlinePass().apply(default_context(), module)
    out: dict[str, Planned] = {}
    for strategy in STRATEGIES:
        options = {"strategy": strategy}
        if cost_model is not None:
            options["cost_model"] = cost_model
        copy = module.clone()
        start = time.perf_counter()
        (function_plan,) = SbpPropagatePass(**options).plan_module(copy)
        seconds = time.perf_counter() - start
        plan = function_plan.plan
        start = time.perf_counter()
        bound = plan.lower_bound if with_bound else None
        out[strategy] = Planned(
            plan.total_time,
            plan.total_bytes,
            seconds,
            bound,
            {k: v for k, v in plan.stats.items() if isinstance(v, int | float | str)},
            time.perf_counter() - start,
        )
    return out


def rows(args: argparse.Namespace) -> list[tuple[str, str, Example]]:
    """(name, scheme, example) of every row asked for."""
    out = [
        (name, scheme, EXAMPLES[name]())
        for name in (EXAMPLES if args.only is None else args.only)
        for scheme in args.schemes
    ]
    if args.library:
        from library_models import MODELS  # flax, equinox, optax: the test extra

        for name in args.library:
            for layers in args.layers:
                example = MODELS[name](layers)
                out += [(f"{name}-{layers}", s, example) for s in args.schemes]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", choices=sorted(EXAMPLES), default=None)
    parser.add_argument("--schemes", nargs="+", choices=SCHEMES, default=list(SCHEMES))
    parser.add_argument(
        "--library",
        nargs="*",
        default=[],
        help="library models too (flax_linen, flax_nnx, equinox)",
    )
    parser.add_argument("--layers", nargs="+", type=int, default=[1])
    parser.add_argument("--cost-model", default=None)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument(
        "--no-bound", action="store_true", help="skip the reports' lower bounds"
    )
    args = parser.parse_args(argv)
    if args.only is None and args.library:
        args.only = []
    done: list[Row] = []
    head = (
        f"{'example':<16} {'scheme':<6} "
        + " ".join(f"{s + ' us':>12}" for s in STRATEGIES)
        + f" {'greedy/opt':>10} {'bfs/opt':>8} {'bound us':>10} "
        + " ".join(f"{s + ' s':>9}" for s in STRATEGIES)
    )
    print(head, flush=True)
    for name, scheme, example in rows(args):
        planned = plan_row(example, scheme, args.cost_model, not args.no_bound)
        row = Row(name, scheme, planned)
        done.append(row)
        bound = next((p.bound for p in row.plans.values() if p.bound is not None), None)
        print(
            f"{name:<16} {scheme:<6} "
            + " ".join(f"{row.plans[s].time * 1e6:>12.2f}" for s in STRATEGIES)
            + f" {row.ratio('greedy'):>10.3f} {row.ratio('bfs'):>8.3f} "
            + (f"{bound * 1e6:>10.2f} " if bound is not None else f"{'-':>10} ")
            + " ".join(f"{row.plans[s].seconds:>9.2f}" for s in STRATEGIES),
            flush=True,
        )
    worst = {s: max(r.ratio(s) for r in done) for s in ("greedy", "bfs")}
    print(
        f"worst ratio to optimal: greedy {worst['greedy']:.3f}, bfs {worst['bfs']:.3f}"
    )
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in done], indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
