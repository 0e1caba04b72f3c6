"""sbpc's memory model against the compiler's, side by side, per device.

    python bench/memory_model.py [--only NAME ...] [--schemes dp tp 2d]
                                 [--model flax_linen --layers 2] [--donate]

For every example model (``examples/models``) and scheme (``dp``, ``tp``
on 8 devices, ``2d`` on a 2x4 mesh), and for the library decoders of
``bench/library_models.py`` with ``--model``, it prints:

* **planned**: the plan's peak under sbpc's memory model
  (``sbpc.propagation.memory``, what ``plan.peak_memory`` reports and a
  memory budget constrains);
* **compiled**: ``memory_analysis()`` of sbpc's emitted program compiled
  by XLA (argument + output - alias + temporary bytes, per device), with
  its four parts;
* **XLA**: the same for XLA's own partitioner given the same input and
  output shardings (``jax.jit(fn, in_shardings=..., out_shardings=...)``,
  as ``bench/vs_xla.py`` builds it);

and the ratios planned / compiled (the model's error; +-10% is the target)
and compiled / XLA (sbpc's plan against XLA's).  ``--donate`` donates the
training steps' parameters and optimizer state (``donate_argnums=(0, 1)``),
so outputs reuse their buffers.  Exits non-zero when a row's planned /
compiled ratio is outside ``--tolerance``.
"""

from __future__ import annotations

import os

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jax

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples"))
sys.path.insert(0, str(ROOT / "bench"))

from models import EXAMPLES, SCHEMES, Example  # noqa: E402

import sbpc.jax  # noqa: E402

MIB = 2**20


@dataclass(frozen=True)
class Footprint:
    """``memory_analysis()`` of one compiled program, bytes per device."""

    arguments: int
    outputs: int
    aliased: int
    temporaries: int

    @property
    def total(self) -> int:
        return self.arguments + self.outputs - self.aliased + self.temporaries

    @staticmethod
    def of(compiled: Any) -> Footprint:
        m = compiled.memory_analysis()
        return Footprint(
            m.argument_size_in_bytes,
            m.output_size_in_bytes,
            m.alias_size_in_bytes,
            m.temp_size_in_bytes,
        )


@dataclass(frozen=True)
class Row:
    name: str
    scheme: str
    planned: float
    compiled: Footprint
    xla: Footprint

    @property
    def error(self) -> float:
        """planned / compiled: the model's error."""
        return self.planned / self.compiled.total

    @property
    def against_xla(self) -> float:
        """compiled / XLA's: sbpc's plan against XLA's partitioner."""
        return self.compiled.total / self.xla.total


def measure(
    name: str,
    example: Example,
    scheme: str,
    strategy: str = "optimal",
    donate: tuple[int, ...] = (),
) -> Row:
    """One row: plan and compile ``example`` under ``scheme`` with sbpc and
    with XLA's partitioner (the same shardings and donations)."""
    dist = example.distribute(scheme, strategy=strategy, donate_argnums=donate)
    placed = dist.place(*example.args)
    compiled = Footprint.of(dist.step.lower(*placed).compile())
    ins, outs = dist.shardings()
    flat_donated = tuple(dist.donated)

    def flat_fn(*flat):
        return jax.tree.leaves(
            example.fn(*jax.tree_util.tree_unflatten(dist.in_tree, flat)[0])
        )

    xla_fn = jax.jit(
        flat_fn,
        in_shardings=tuple(ins),
        out_shardings=list(outs),
        donate_argnums=flat_donated,
    )
    xla_args = [
        jax.device_put(x, s)
        for x, s in zip(dist.flatten(*example.args), ins, strict=True)
    ]
    xla = Footprint.of(xla_fn.lower(*xla_args).compile())
    return Row(name, scheme, dist.plans[0].plan.peak_memory, compiled, xla)


def _mib(b: float) -> str:
    return f"{b / MIB:.3f}"


HEADER = (
    f"{'example':14s} {'scheme':6s} {'planned':>8s} {'compiled':>8s} "
    f"{'(args':>7s} {'outs':>6s} {'alias':>6s} {'temps)':>7s} {'XLA':>7s} "
    f"{'planned/compiled':>16s} {'compiled/XLA':>12s}   MiB per device"
)


def line(row: Row) -> str:
    c = row.compiled
    return (
        f"{row.name:14s} {row.scheme:6s} {_mib(row.planned):>8s} {_mib(c.total):>8s} "
        f"{_mib(c.arguments):>7s} {_mib(c.outputs):>6s} {_mib(c.aliased):>6s} "
        f"{_mib(c.temporaries):>7s} {_mib(row.xla.total):>7s} "
        f"{row.error:>16.2f} {row.against_xla:>12.2f}"
    )


def examples(args: argparse.Namespace) -> list[tuple[str, Callable[[], Example]]]:
    """The rows' programs: the examples named, or a library decoder."""
    if args.model:
        from library_models import MODELS

        return [(m, lambda m=m: MODELS[m](args.layers)) for m in args.model]
    return [(n, EXAMPLES[n]) for n in (args.only or EXAMPLES)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", choices=sorted(EXAMPLES), default=None)
    parser.add_argument(
        "--model",
        nargs="+",
        choices=("flax_linen", "flax_nnx", "equinox"),
        help="library decoders (bench/library_models.py) instead of the examples",
    )
    parser.add_argument("--layers", type=int, default=2, help="with --model")
    parser.add_argument(
        "--schemes", nargs="+", choices=sorted(SCHEMES), default=["dp", "tp", "2d"]
    )
    parser.add_argument(
        "--strategy", choices=("greedy", "bfs", "optimal"), default="optimal"
    )
    parser.add_argument(
        "--donate",
        action="store_true",
        help="donate a training step's parameters and optimizer state",
    )
    parser.add_argument("--tolerance", type=float, default=0.10)
    args = parser.parse_args(argv)
    if jax.device_count() < 8:
        print("needs 8 devices: set XLA_FLAGS=--xla_force_host_platform_device_count=8")
        return 2
    print(HEADER)
    outside = []
    for name, make in examples(args):
        for scheme in args.schemes:
            example = make()
            donate = (0, 1) if args.donate and len(example.args) == 4 else ()
            try:
                row = measure(name, example, scheme, args.strategy, donate)
            except sbpc.jax.SbpcError as e:
                print(f"{name:14s} {scheme:6s} sbpc failed: {str(e).splitlines()[0]}")
                outside.append(f"{name}/{scheme}")
                continue
            print(line(row), flush=True)
            if abs(row.error - 1) > args.tolerance:
                outside.append(f"{name}/{scheme} ({row.error:.2f})")
    if outside:
        print(f"outside +-{args.tolerance:.0%}: {', '.join(outside)}")
        return 1
    print(f"every row within +-{args.tolerance:.0%} of the compiled footprint")
    return 0


if __name__ == "__main__":
    sys.exit(main())
