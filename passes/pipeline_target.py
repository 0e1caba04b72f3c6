"""``-t jax`` of a function ``sbp-pipeline`` pipelined: its tasks and schedule.

Reads the boxed function as a ``Program`` with each top-level instruction's
``sbp.phase``/``sbp.stage`` (the boxing's collectives have none: the core
tags them by their operand), splits it into tasks (``sbpc.pipeline.tasks``)
and writes the module that runs them (``sbpc.pipeline.emit``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation

from sbpc.algebra.placement import Placement
from sbpc.boxing.cost_model import CostModel
from sbpc.dialects import sbp as sbp_dialect
from sbpc.dialects.diagnostics import LocatedError
from sbpc.dialects.sbp.pipeline import phase_of, pipeline_options, stage_of
from sbpc.jax_backend.emit import JaxEmitError
from sbpc.pipeline.cost import PipelineCost, pipeline_cost
from sbpc.pipeline.emit import emit_pipeline
from sbpc.pipeline.placements import stage_axis, stage_axis_names, stage_placements
from sbpc.pipeline.report import format_pipeline, html_section
from sbpc.pipeline.schedule import SCHEDULES
from sbpc.pipeline.tasks import PipelineProgram, TaskError, split_tasks
from sbpc.timing import phase

from .bridge.program import program_of
from .bridge.sdy import mesh_axes
from .lower_boxing import SbpLowerBoxingPass


def pipeline_program(module: ModuleOp, f: func.FuncOp) -> PipelineProgram:
    """The tasks of the pipelined, boxed function ``f``."""
    options = pipeline_options(f)
    if options is None:
        raise LocatedError(f, "the function is not pipelined (run sbp-pipeline)")
    stages, microbatches, schedule = options
    mesh = sbp_dialect.module_placement(module)
    if mesh is None:
        raise LocatedError(module, sbp_dialect.NO_PLACEMENT)
    names = mesh_axes(module)
    axis = stage_axis(mesh, names)
    placements = stage_placements(mesh, stages, axis)
    axis_names = [stage_axis_names(names, mesh, stages, axis)] * stages
    origins: dict[str, Operation] = {}
    with phase("read program"):
        program = program_of(module, f, origins)
    ops = [op for op in f.body.block.ops if not isinstance(op, func.ReturnOp)]
    tags = []
    for op in ops:
        ph = phase_of(op)
        tags.append(None if ph is None else (ph, stage_of(op)))
    try:
        return split_tasks(
            program,
            tags,
            placements,
            axis_names,
            microbatches,
            schedule,
            (mesh.hierarchy, names or tuple(f"d{k}" for k in range(mesh.ndim))),
        )
    except TaskError as e:
        raise LocatedError(f, str(e)) from e


def pipeline_source(module: ModuleOp, f: func.FuncOp, combine_bytes: int) -> str:
    """The Python source running ``f``'s schedule."""
    pp = pipeline_program(module, f)
    try:
        with phase("write source"):
            return emit_pipeline(pp, combine_bytes=combine_bytes)
    except JaxEmitError as e:
        raise LocatedError(f, f"cannot lower to JAX: {e}") from e


@dataclass(frozen=True)
class PipelineCosts:
    """A pipelined function's plan under its schedule and the other one."""

    program: PipelineProgram
    chosen: PipelineCost
    other: PipelineCost

    def text(self) -> str:
        return format_pipeline(self.chosen, self.program.placements, self.other)

    def html(self) -> str:
        return html_section(self.chosen, self.program.placements, self.other)


def pipeline_costs(
    module: ModuleOp,
    f: func.FuncOp,
    cost_model: str,
    plan_peaks: Mapping[Placement, float],
) -> PipelineCosts:
    """The boxed, pipelined ``f``'s step time and memory per stage
    (``plan_peaks``: each stage plan's peak memory per device)."""
    pp = pipeline_program(module, f)
    model = CostModel.parse(cost_model)
    peaks = [plan_peaks.get(p, 0.0) for p in pp.placements]
    other = next(s for s in SCHEDULES if s != pp.schedule)
    return PipelineCosts(
        pp,
        pipeline_cost(pp, model, pp.schedule, peaks),
        pipeline_cost(pp, model, other, peaks),
    )


def pipeline_reports(
    module: ModuleOp,
    peaks: Mapping[tuple[str, Placement], float],
    cost_model: str,
) -> list[PipelineCosts]:
    """Each pipelined function's costs, for ``sbp-propagate``'s report: the
    module is planned, not yet boxed, so a copy of it is boxed here."""
    functions = [
        f for f in module.ops if isinstance(f, func.FuncOp) and pipeline_options(f)
    ]
    if not functions:
        return []
    boxed = module.clone()
    SbpLowerBoxingPass(cost_model=cost_model).apply(Context(), boxed)
    out = []
    for f in boxed.ops:
        if isinstance(f, func.FuncOp) and pipeline_options(f):
            name = f.sym_name.data
            mine = {p: peak for (fn, p), peak in peaks.items() if fn == name}
            out.append(pipeline_costs(boxed, f, cost_model, mine))
    return out


def with_section(page: str, section: str) -> str:
    """``page`` (an HTML document) with ``section`` at the end of its body."""
    at = page.rfind("</body>")
    return page + section if at < 0 else page[:at] + section + page[at:]
