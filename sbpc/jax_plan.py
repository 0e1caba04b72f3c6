"""A plan of a JAX function, made without its devices (``sbpc.jax.plan``).

What ``sbpc.jax.plan`` returns: the chosen layouts, the report, the
per-device memory and modelled step time, the PartitionSpecs of every
argument and result, and the emitted ``-t jax`` module's source, which runs
unchanged where the devices are.  None of it needs the mesh's devices: a
plan for 512 GPUs is made on a laptop.  ``sbpc.jax.Distributed`` is a plan
loaded on the local devices.
"""

from __future__ import annotations

import math
import re
import sys
import types
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import count
from typing import Any

from jax.sharding import PartitionSpec
from xdsl.dialects.builtin import ArrayAttr, ModuleOp
from xdsl.utils.exceptions import DiagnosticException

from sbpc.algebra.placement import Placement
from sbpc.algebra.sbp import NdSbp
from sbpc.boxing.cost_model import CostModel
from sbpc.dialects.diagnostics import make_diagnostic
from sbpc.jax_backend.program_code import load
from sbpc.output import OutputError, write_file
from sbpc.passes.options import OptionError
from sbpc.passes.pipeline_target import with_section
from sbpc.passes.propagate import FunctionPlan, SbpPropagatePass
from sbpc.passes.remat import POLICIES_ATTR, RECOMPUTED, SbpRematPass
from sbpc.pipeline.remat import DOTS, FULL
from sbpc.propagation.report.dot import ReportError
from sbpc.propagation.report.summary import format_report
from sbpc.timing import Timer


class SbpcError(Exception):
    """sbpc could not distribute the function; the message says where and why."""


def located_message(e: DiagnosticException, name: str, source: str) -> str:
    """``name.mlir:12:5: error: ...`` plus the StableHLO line at fault."""
    op = getattr(e, "op", None)
    message = getattr(e, "message", str(e))
    diag = make_diagnostic("error", op, message)
    lines = source.splitlines()
    text = f"cannot distribute {name}: {diag}"
    if 1 <= diag.line <= len(lines):
        text += "\n  " + _excerpt(lines[diag.line - 1], diag.col)
    return text


def _excerpt(line: str, column: int, width: int = 200) -> str:
    """The line at fault, cut to ``width`` characters around ``column`` (a
    function of a large model's signature is one line of 100 KB)."""
    line = line.rstrip()
    start = len(line) - len(line.lstrip())
    if len(line) - start <= width:
        return line[start:]
    lo = max(start, min(column - 1 - width // 4, len(line) - width))
    cut = line[lo : lo + width]
    return (
        ("... " if lo > start else "")
        + cut
        + (" ..." if lo + width < len(line) else "")
    )


_loaded = count()


def load_program(source: str, name: str) -> types.ModuleType:
    """The emitted module, imported under a unique name (dataclasses need it
    in ``sys.modules``).  Loading needs no devices: they are looked up when
    the program builds its mesh."""
    module_name = (
        f"sbpc_distributed_{re.sub(r'[^0-9A-Za-z_]', '_', name)}_{next(_loaded)}"
    )
    module = types.ModuleType(module_name)
    module.__file__ = f"<sbpc {name}>"
    sys.modules[module_name] = module
    # The emitter compiled this text to check it: its code object is reused.
    load(source, module.__file__, module.__dict__)
    return module


@dataclass(kw_only=True)
class Planned:
    """``fn`` planned by sbpc for a mesh, with or without its devices.

    ``report``: the plan and the time each phase took (text; ``plan_json``
    is the plan as JSON, ``report_html()`` a page with its picture);
    ``peak_memory``: bytes per device; ``step_time``: modelled seconds of
    one call (communication and compute); ``shardings()``: PartitionSpecs
    of every flat argument and result; ``source``: the emitted JAX module
    (``python`` it where the devices are, or ``build()`` its program);
    ``mlir``: the boxed module; ``in_layouts``/``out_layouts``: per flat
    leaf, what sbpc chose.
    """

    name: str
    strategy: str
    placement: Placement = field(repr=False)  # thousands of ranks, maybe
    module: ModuleOp = field(repr=False)  # the boxed module (``mlir`` prints it)
    source: str = field(repr=False)
    plans: list[FunctionPlan] = field(repr=False)
    in_tree: Any = field(repr=False)
    out_tree: Any = field(repr=False)
    in_layouts: list[NdSbp]
    out_layouts: list[NdSbp]
    in_paths: list[str] = field(repr=False)
    out_paths: list[str] = field(repr=False)
    out_key_impls: tuple[Any, ...] = field(default=(), repr=False)
    cost_model: str = "default"  # what the plan was priced with (its report)
    memory_budget: float | None = None
    # A pipelined plan's costs (``passes.pipeline_target.PipelineCosts``):
    # step time, memory per stage, its schedule's timeline.
    pipeline: Any = field(default=None, repr=False)
    pipeline_search: str | None = field(default=None, repr=False)  # auto's table
    timing: Timer | None = field(default=None, repr=False)
    _program: types.ModuleType | None = field(default=None, repr=False)
    _mlir: str | None = field(default=None, repr=False)

    # What the phase table of ``report`` is headed with.
    _caller = "sbpc.jax.plan"

    @property
    def mlir(self) -> str:
        """The boxed module's text, printed on first use (printing a large
        module costs as much as parsing it, and most callers never read it)."""
        if self._mlir is None:
            self._mlir = str(self.module)
        return self._mlir

    @property
    def program(self) -> types.ModuleType:
        """The emitted module, loaded (on first use; no devices needed)."""
        if self._program is None:
            self._program = load_program(self.source, self.name)
        return self._program

    @property
    def report(self) -> str:
        text = "\n".join(format_report(p.plan, "text") for p in self.plans)
        if self.recomputed_layers:
            text += "\n" + recomputed_text(self.recomputed_layers, self.remat_policies)
        if self.pipeline_search is not None:
            text += "\n" + self.pipeline_search
        if self.pipeline is not None:
            text += "\n" + self.pipeline.text()
        if self.timing is not None:
            text += "\n" + self.timing.format(f"{self._caller} {self.name}")
        return text

    @property
    def recomputed_layers(self) -> tuple[int, ...]:
        """The repeated layers whose activations the backward recomputes
        (``remat``; docs/memory.md)."""
        for f in self.module.ops:
            got = f.attributes.get(RECOMPUTED)
            if isinstance(got, ArrayAttr):
                return tuple(a.data for a in got.data)
        return ()

    @property
    def remat_policies(self) -> tuple[str, ...]:
        """Each recomputed layer's policy, beside ``recomputed_layers``:
        ``full`` (the whole layer) or ``dots`` (all but its weight
        products)."""
        for f in self.module.ops:
            got = f.attributes.get(POLICIES_ATTR)
            if isinstance(got, ArrayAttr):
                return tuple(a.data for a in got.data)
        return ()

    @property
    def plan_json(self) -> str:
        return "\n".join(format_report(p.plan, "json") for p in self.plans)

    @property
    def peak_memory(self) -> float:
        """Peak bytes per device the plan needs (the largest of its functions'
        and placements'; docs/propagation.md's memory model; a pipeline's
        stages with their schedule's microbatches in flight)."""
        if self.pipeline is not None:
            return self.pipeline.chosen.peak_memory
        return max((p.plan.peak_memory for p in self.plans), default=0.0)

    @property
    def step_time(self) -> float:
        """Modelled seconds of one call: every layout change and every op's
        local work under the cost model (a pipeline: its schedule simulated)."""
        if self.pipeline is not None:
            return self.pipeline.chosen.step_time
        return sum(p.plan.total_time for p in self.plans)

    @property
    def memory_capacity(self) -> float | None:
        """Bytes of memory per device of the cost model (``mem=``), if any."""
        return CostModel.parse(self.cost_model).memory_capacity

    def report_html(self, path: str | None = None) -> str:
        """The plan as one self-contained HTML page with its picture (what
        ``sbp-propagate{report_format=html}`` writes; docs/plan-report.md)
        and the wall time per phase; also written to ``path`` when given."""
        reporter = SbpPropagatePass(
            strategy=self.strategy,
            cost_model=self.cost_model,
            memory_budget=self.memory_budget,
            report_format="html",
        )
        try:
            timing = self.timing
            page = reporter.format_plans(
                self.plans,
                None
                if timing is None
                else timing.format(f"{self._caller} {self.name}"),
            )
        except ReportError as e:
            raise SbpcError(str(e)) from e
        if self.pipeline is not None:
            page = with_section(page, self.pipeline.html())
        if path is not None:
            try:
                write_file(path, page, "report")
            except OutputError as e:
                raise SbpcError(str(e)) from e
        return page

    def shardings(self) -> tuple[list[PartitionSpec], list[PartitionSpec]]:
        """The ``PartitionSpec`` of every flat argument and result on the
        mesh's axes (``MESH_AXES``): with the mesh, what ``jax.jit`` takes as
        ``in_shardings``/``out_shardings`` for the same layouts.  An unevenly
        split dim is replicated, since JAX refuses indivisible shardings."""
        program = self.program
        sizes = dict(zip(program.MESH_AXES, program.MESH_SHAPE, strict=True))
        outs = program.OUT_SPECS  # a bare spec for one result
        outs = (outs,) if isinstance(outs, PartitionSpec) else outs
        return (
            [
                divisible(s, shape, sizes)
                for s, (shape, _) in zip(
                    program.IN_SPECS, program.ARG_TYPES, strict=True
                )
            ],
            [
                divisible(s, shape, sizes)
                for s, (shape, _) in zip(outs, program.OUT_TYPES, strict=True)
            ],
        )


def divisible(
    spec: PartitionSpec, shape: Sequence[int], axis_sizes: Mapping[str, int]
) -> PartitionSpec:
    """``spec`` with the unevenly split dims replicated: JAX refuses a
    sharding that does not divide a dim (docs/uneven-splits.md), and the
    module takes and returns such values whole on that dim."""
    dims = []
    for size, axes in zip(
        shape, (*spec, *[None] * (len(shape) - len(spec))), strict=True
    ):
        names = () if axes is None else (axes,) if isinstance(axes, str) else axes
        pieces = math.prod(axis_sizes[a] for a in names)
        dims.append(axes if size % pieces == 0 else None)
    return PartitionSpec(*dims)


def layer_ranges(layers: Sequence[int]) -> str:
    """Layer indices with runs of three or more as ranges: ``0-5, 7, 9``
    (a 32-layer step's line stays short)."""
    runs: list[list[int]] = []
    for k in layers:
        if runs and k == runs[-1][-1] + 1:
            runs[-1].append(k)
        else:
            runs.append([k])
    return ", ".join(
        f"{r[0]}-{r[-1]}" if len(r) > 2 else ", ".join(map(str, r)) for r in runs
    )


def recomputed_text(layers: Sequence[int], policies: Sequence[str]) -> str:
    """The report's line: ``recomputed layers: 0, 1 (policy full)``, or with
    several policies ``recomputed layers: 0-2 (policy full: 0; dots: 1,
    2)``."""
    by_policy: dict[str, list[int]] = {}
    for k, p in zip(layers, policies, strict=True):
        by_policy.setdefault(p, []).append(k)
    numbers = layer_ranges(layers)
    if len(by_policy) == 1:
        return f"recomputed layers: {numbers} (policy {policies[0]})"
    parts = "; ".join(f"{p}: {layer_ranges(ks)}" for p, ks in by_policy.items())
    return f"recomputed layers: {numbers} (policy {parts})"


def remat_pass(remat: Any, propagate: SbpPropagatePass) -> SbpRematPass | None:
    """``sbp-remat`` for ``remat=`` (docs/memory.md), planned with
    ``propagate``'s options.  ``remat``: the repeated layers of a training
    step to recompute whole in its backward pass (``"none"``, ``"all"``,
    indices ``"0,2"``, or ``"auto"``: the fewest that fit the memory
    budget); ``"dots"``: every layer, keeping its weight products (products
    with no batch dimensions) and recomputing the rest; or ``(layers,
    policy)``, ``policy`` ``"full"`` or ``"dots"`` (``("auto", "dots")``:
    ``dots`` on more and more layers before any is recomputed whole)."""
    if isinstance(remat, tuple | list) and len(remat) == 2:
        layers, policy = (str(part) for part in remat)
    elif remat == DOTS:
        layers, policy = "all", DOTS
    else:
        layers, policy = str(remat), FULL
    try:
        return SbpRematPass.along(layers, propagate, policy)
    except OptionError as e:
        raise SbpcError(f"remat: {e}") from e
