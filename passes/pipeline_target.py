"""``-t jax`` of a function ``sbp-pipeline`` pipelined: its tasks and schedule.

Reads the boxed function as a ``Program`` with each top-level instruction's
``sbp.phase``/``sbp.stage`` (the boxing's collectives have none: the core
tags them by their operand), splits it into tasks (``sbpc.pipeline.tasks``)
and writes the module that runs them (``sbpc.pipeline.emit``).
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation

from sbpc.dialects import sbp as sbp_dialect
from sbpc.dialects.diagnostics import LocatedError
from sbpc.dialects.sbp.pipeline import phase_of, pipeline_options, stage_of
from sbpc.jax_backend.emit import JaxEmitError
from sbpc.pipeline.emit import emit_pipeline
from sbpc.pipeline.placements import stage_axis, stage_axis_names, stage_placements
from sbpc.pipeline.tasks import PipelineProgram, TaskError, split_tasks
from sbpc.timing import phase

from .bridge.program import program_of
from .bridge.sdy import mesh_axes


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
