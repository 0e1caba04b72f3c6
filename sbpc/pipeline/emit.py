"""``-t jax`` of a pipelined program: one module running the schedule.

Why one jitted program per task, driven in the schedule's order (as JaxPP
and torch's pipelining do), rather than one SPMD program with the stages'
weights stacked on the stage axis and ``ppermute`` between them (as
MaxText does): the step arrives already differentiated, with stages that
differ (the embedding, the head and the loss), each laid out on its own
mesh by its own plan; stacking needs equal stages and one layout.  JAX
dispatches asynchronously, so stages run concurrently on their devices;
``jax.device_put`` moves values between meshes device to device.

The module has the ``-t jax`` contract (``MESH_SHAPE``, ``MESH_AXES``,
``IN_SPECS``, ``OUT_SPECS``, ``build``, ``reference``, a self-check) with
``IN_SPECS`` on each argument's stage mesh (``ARG_STAGES``,
``make_meshes``).  Each task is a module of its own (``TASK_SOURCES``, what
``sbpc.jax_backend.emit`` writes for its program), loaded by the driver;
``STEPS`` is the schedule (``sbpc.pipeline.steps``).
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from pathlib import Path

from sbpc.algebra.sbp import NdSbp
from sbpc.algebra.tensor_type import TensorType
from sbpc.jax_backend.collectives import AXIS_NAMES, partition_spec
from sbpc.jax_backend.combine import DEFAULT_MAX_BYTES
from sbpc.jax_backend.emit import emit_jax
from sbpc.jax_backend.ops import jnp_dtype, py_tuple
from sbpc.jax_backend.runtime import JAX_IMPORTS, TEMPLATE, sections

from .schedule import SCHEDULES
from .steps import Step, driver_steps
from .tasks import PipelineProgram, partial_dims

_PARTS = sections(Path(__file__).with_name("runtime_template.py").read_text())
# Helpers of every emitted module's runtime this one uses too: finding the
# devices, placing a value (across hosts too), random arguments for the self-check, JAX's x64
# mode for programs with 64-bit types.
SHARED = ("_devices", "_put", "_transfer", "_to_host", "random_args", "x64_mode")


def _shared_source() -> str:
    """``SHARED``'s definitions, as ``sbpc.jax_backend``'s runtime has them."""
    text = TEMPLATE.read_text()
    tree = ast.parse(text)
    found = {
        node.name: ast.get_source_segment(text, node)
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and node.name in SHARED
    }
    return "\n\n\n".join(found[name] or "" for name in SHARED) + "\n"


def emit_pipeline(pp: PipelineProgram, combine_bytes: int = DEFAULT_MAX_BYTES) -> str:
    """The Python source of ``pp`` as a module running its schedule (and
    able to run the other: the tasks are the same, only their order is not)."""
    steps = {name: driver_steps(pp, schedule=name) for name in SCHEDULES}
    sources = {t.name: emit_jax(t.program, combine_bytes) for t in pp.tasks}
    n_devices = max(max(p.ranks) for p in pp.placements) + 1
    lines = [
        _docstring(pp),
        _PARTS["prelude"],
        JAX_IMPORTS.replace("{n_devices}", str(n_devices)),
    ]
    lines += _tables(pp, steps, n_devices)
    x64 = any("_X64 = True" in source for source in sources.values())
    lines.append(f"_X64 = {x64}")
    lines.append("TASK_SOURCES = {")
    for name, source in sources.items():
        lines.append(f"    {name!r}: {source!r},")
    lines.append("}")
    lines.append(_shared_source())
    lines.append(_PARTS["runtime"])
    lines.append(_PARTS["main"])
    return "\n".join(lines)


def _docstring(pp: PipelineProgram) -> str:
    text = [
        f"sbpc: program '{pp.name}' pipelined (generated): {pp.stages} stage(s), "
        f"{pp.microbatches} microbatch(es), schedule {pp.schedule}.",
        "",
    ]
    for k, p in enumerate(pp.placements):
        text.append(f"Stage {k}: {p.device}, ranks {p.nested_ranks()}.")
    for t in pp.tasks:
        text.append(f"Task {t.name}: {len(t.program.body)} instruction(s).")
    text += ["", "Run it to check it against the unsharded program."]
    body = "\n".join(text).replace("\\", "\\\\").replace('"', '\\"')
    return '"""' + body + '\n"""\n'


def _spec(nd: NdSbp, rank: int, names: tuple[str, ...], stacked: bool = False) -> str:
    token = AXIS_NAMES.set(names)
    try:
        return partition_spec(nd, rank, stacked=stacked)
    finally:
        AXIS_NAMES.reset(token)


def _tuple(items: Sequence[str]) -> str:
    return "(" + "".join(f"{x}, " for x in items).rstrip(" ") + ")"


def _tables(
    pp: PipelineProgram, steps: dict[str, list[Step]], n_devices: int
) -> list[str]:
    names = pp.axis_names
    out = [
        f"STAGES = {pp.stages}",
        f"MICROBATCHES = {pp.microbatches}",
        f"SCHEDULE = {pp.schedule!r}",
        f"N_DEVICES = {n_devices}",
        f"MESH_SHAPE = {py_tuple(pp.mesh_shape)}",
        f"MESH_AXES = {pp.mesh_axes!r}",
        "# (ranks, hierarchy, axis names) of each stage's placement",
        "STAGE_PLACEMENTS = "
        + _tuple(
            [
                f"({py_tuple(p.ranks)}, {py_tuple(p.hierarchy)}, {names[k]!r})"
                for k, p in enumerate(pp.placements)
            ]
        ),
        *_boundary("ARG", "IN", pp.args, names),
        *_boundary("RESULT", "OUT", pp.results, names),
        "ARG_PLACEMENTS = ARG_STAGES  # sbpc.jax's name for them",
        f"LOOP_KEYS = frozenset({sorted(pp.loop_keys)!r})",
        "TASKS = (",
    ]
    for t in pp.tasks:
        out.append(
            f"    _Task({t.name!r}, {t.stage}, {t.phase!r}, {t.inputs!r}, "
            f"{t.outputs!r}, {py_tuple(t.donate)}),"
        )
    out.append(")")
    out.append("SPLITS = (")
    for s in pp.splits:
        spec = _spec(s.layout, s.rank, names[s.stage])
        out.append(f"    _Split({s.src!r}, {s.dst!r}, {s.dim}, {s.stage}, {spec}),")
    out.append(")")
    out.append("MOVES = (")
    for m in pp.transfers:
        spec = _spec(m.layout, m.rank, names[m.stage], stacked=m.stacked)
        out.append(f"    _Move({m.src!r}, {m.dst!r}, {m.stage}, {spec}),")
    out.append(")")
    out.append("ACCUMULATORS = (")
    for a in pp.accumulators:
        spec = _spec(
            a.layout, a.rank, names[a.stage], stacked=bool(partial_dims(a.layout))
        )
        logical = a.shape[len(partial_dims(a.layout)) :]
        out.append(
            f"    _Acc({a.key!r}, {a.final!r}, {a.stage}, {py_tuple(a.shape)}, "
            f"{jnp_dtype(a.element)}, {spec}, {py_tuple(logical)}),"
        )
    out.append(")")
    out.append("# Each schedule: what one call runs, in order.")
    out.append("STEPS_BY_SCHEDULE = {")
    for name, rows in steps.items():
        out.append(f"    {name!r}: (")
        out += [f"        {step!r}," for step in rows]
        out.append("    ),")
    out.append("}")
    out.append("STEPS = STEPS_BY_SCHEDULE[SCHEDULE]")
    return out


def _boundary(
    keys: str,
    specs: str,
    values: Sequence[tuple[str, int, NdSbp, TensorType]],
    names: Sequence[tuple[str, ...]],
) -> list[str]:
    """The tables of the arguments (or results): keys, types, stages, specs."""
    kind = "ARG" if keys == "ARG" else "OUT"
    return [
        f"{keys}_KEYS = {tuple(k for k, *_ in values)!r}",
        f"{kind}_TYPES = "
        + _tuple(
            [f"({py_tuple(t.shape)}, {jnp_dtype(t.element)})" for *_, t in values]
        ),
        f"{kind}_STAGES = {py_tuple([s for _, s, _, _ in values])}",
        f"{specs}_SPECS = "
        + _tuple([_spec(nd, t.rank, names[s]) for _, s, nd, t in values]),
    ]
