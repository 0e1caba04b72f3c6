"""``-t jax``: a boxed ``Program`` as a standalone Python module of JAX shard_maps.

The module has DESIGN.md's contract (``MESH_SHAPE``, ``MESH_AXES``,
``IN_SPECS``, ``OUT_SPECS``, ``make_mesh``, ``build``, ``reference``, a
``__main__`` self-check) plus ``PLACEMENTS``, ``make_meshes``, ``put_args``
(global numpy inputs onto the meshes, multi-host safe), ``fetch``,
``logical`` and ``self_check``; its fixed part is ``sbpc.jax_backend.runtime``.

How the program maps onto JAX:

* Each maximal run of instructions on one placement is a *stage*: one
  ``jax.shard_map`` over that placement's mesh (axis ``d<k>`` per hierarchy
  dim, devices = the placement's ranks).  A one-placement program is one
  stage and ``build()`` returns ``jax.jit`` of it.  Between stages values
  travel as global arrays; ``transfer`` is ``jax.device_put`` onto the target
  mesh.
* In a stage, each value is the device's local piece.  An op runs as
  ``sbpc.ops.registry.local_op`` says (local shapes); attributes that differ
  between devices are computed from ``lax.axis_index``: an iota's offset, a
  constant's block and its ``P(sum)`` holder.  Any other device-dependent
  attribute is refused.  Collectives: ``sbpc.jax_backend.collectives``.
* Partial layouts at a stage boundary: the global array is the logical value.
  A partial input is made into pieces in the body (one copy kept on
  coordinate 0 for ``P(sum)``, copies for max/min); a partial value leaving
  a stage is reduced first (inner hierarchy dim first).  A program result is
  returned in its value's layout, where ``P`` means its pieces stacked on one
  leading axis per partial hierarchy dim (``OUT_PARTIAL``); a result layout
  with ``B`` where the value is ``P`` reduces that dim before returning.
* ``reference`` runs the global ops in program order, boxing steps being the
  identity on logical values.

Anything the module could not do faithfully raises ``JaxEmitError`` with the
instruction's label: no broken Python is ever returned.
"""

from __future__ import annotations

import base64
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from sbpc.algebra.layout import UnevenSplitError, local_shape, local_slices
from sbpc.algebra.named_axes import placement_axes
from sbpc.algebra.placement import Placement
from sbpc.algebra.sbp import B, NdSbp, Partial, Split, format_nd_sbp
from sbpc.algebra.tensor_type import TensorType
from sbpc.boxing.collective_kind import CollectiveKind
from sbpc.boxing.cost_model import local_bytes
from sbpc.jax_backend.collectives import (
    AXIS_NAMES,
    REDUCE_FN,
    CollectiveError,
    axes_expr,
    axis_name,
    check_step,
    combined_step_expr,
    named_axes,
    partial_dims,
    partition_spec,
    step_expr,
)
from sbpc.jax_backend.combine import (
    DEFAULT_MAX_BYTES,
    Combined,
    combine_groups,
    combine_key,
)
from sbpc.jax_backend.device_attrs import (
    DYNAMIC_ATTRS,
    DYNAMIC_EXPRESSIONS,
    DeviceAttrError,
    DeviceLocals,
    block_start,
)
from sbpc.jax_backend.halo import halo_lines
from sbpc.jax_backend.line_templates import LineTemplates, op_key
from sbpc.jax_backend.local_ops import device_local_ops
from sbpc.jax_backend.ops import (
    UnsupportedOpError,
    assignments,
    jnp_dtype,
    op_expressions,
    py_tuple,
)
from sbpc.jax_backend.program_code import program_code
from sbpc.jax_backend.regions import analyze_region, reference_line, region_lines
from sbpc.jax_backend.runtime import (
    COMBINED_COLLECTIVES,
    INDEXED_BLOCKS,
    MAIN,
    PRELUDE,
    RUNTIME,
    X64_MARK,
)
from sbpc.jax_backend.uneven import (
    arg_pads,
    mask_lines,
    result_unpads,
    uneven_step_expr,
)
from sbpc.ops.registry import local_op_varies
from sbpc.ops.spec import numpy_dtype
from sbpc.program import (
    Arg,
    CaseInstr,
    CollectiveInstr,
    Instr,
    LoopInstr,
    OpInstr,
    Program,
    Result,
    ValueId,
    reads,
    results_of,
)


class JaxEmitError(ValueError):
    """The program cannot be emitted as JAX; ``label`` says which instruction."""

    def __init__(self, message: str, label: str = "") -> None:
        super().__init__(f"{label}: {message}" if label else message)
        self.message = message
        self.label = label


_X64 = frozenset({"i64", "ui64", "f64", "index"})


# How ``_reference``'s definition starts (``module`` defers its compile).
_REFERENCE_HEAD = "@jax.jit\ndef _reference("


def emit_jax(
    program: Program,
    combine_bytes: int = DEFAULT_MAX_BYTES,
    check: bool = True,
    lazy_reference: bool = False,
) -> str:
    """The Python source of ``program`` as a JAX module (see the module docstring).

    Independent all-gathers, reduce-scatters and all-reduces of one kind on
    one set of mesh axes run as one collective on their pieces concatenated,
    up to ``combine_bytes`` per device each (``sbpc.jax_backend.combine``);
    ``0`` emits every boxing step as its own collective.  ``check``: compile
    the text to prove it is Python (its code is kept for the loader,
    ``program_code``); off, the text alone (``sbpc.jax.plan``, whose
    program may never be loaded here: 5 s of a 70B's plan).
    ``lazy_reference`` (with ``check``): ``_reference``, the unsharded
    program only ``reference()`` runs, is compiled when first called
    (``program_code``: ``sbpc.jax.distribute``, which loads the program and
    seldom runs its reference; half the text, 0.1 s of an 8-layer step).
    """
    if combine_bytes < 0:
        raise ValueError(f"combine_bytes must be >= 0, not {combine_bytes}")
    token = AXIS_NAMES.set(program.axis_names)
    try:
        return _Emitter(program, combine_bytes).module(check, lazy_reference)
    finally:
        AXIS_NAMES.reset(token)


# --- program analysis ------------------------------------------------------------


def _label(instr: Instr | Arg, index: int) -> str:
    if isinstance(instr, Arg):
        return f"argument %{instr.value}"
    if instr.label:
        return instr.label
    if isinstance(instr, OpInstr):
        outs = ", ".join(f"%{v}" for v in instr.results)
        return f"{outs} = {instr.op.name} (instruction {index})"
    if isinstance(instr, LoopInstr | CaseInstr):
        kind = "while" if isinstance(instr, LoopInstr) else "case"
        return f"{kind} (instruction {index})"
    return f"%{instr.result} = sbp.{instr.kind} (instruction {index})"


@dataclass
class _Stage:
    placement: Placement
    instrs: list[tuple[int, Instr]] = field(default_factory=list)
    inputs: list[ValueId] = field(default_factory=list)
    # (value, P hierarchy dims returned as stacked pieces; others are reduced)
    outputs: list[tuple[ValueId, tuple[int, ...]]] = field(default_factory=list)


class _Emitter:
    def __init__(
        self, program: Program, combine_bytes: int = DEFAULT_MAX_BYTES
    ) -> None:
        self.p = program
        self.combine_bytes = combine_bytes
        self.combined = False  # whether a stage uses COMBINED_COLLECTIVES
        self.layout: dict[ValueId, NdSbp] = {}
        self.where: dict[ValueId, Placement] = {}
        self.consts: list[str] = []
        self._const_ids: dict[tuple[str, bytes, tuple[int, ...]], str] = {}
        self.templates = LineTemplates()  # op lines of repeated layers
        self.placements = program.placements()
        self._analyze()
        self.steps = self._steps()

    def _on(self, p: Placement):  # a context manager
        """Name the mesh axes as placement ``p``'s mesh does."""
        return named_axes(self._axes(p))

    def _axes(self, p: Placement) -> tuple[str, ...]:
        return placement_axes(
            self.p.placement, self.p.axis_names, p, self.p.placement_names
        )

    # -- checks -------------------------------------------------------------------

    def _type(self, v: ValueId, label: str) -> TensorType:
        t = self.p.types.get(v)
        if t is None:
            raise JaxEmitError(f"value %{v} has no type", label)
        jnp_dtype_or_error(t.element, label)
        return t

    def define(self, v: ValueId, layout: NdSbp, where: Placement, label: str) -> None:
        if v in self.layout:
            raise JaxEmitError(f"value %{v} is defined twice", label)
        t = self._type(v, label)
        if len(layout) != where.ndim:
            raise JaxEmitError(
                f"layout {format_nd_sbp(layout)} of %{v} has {len(layout)} entries "
                f"but the placement has {where.ndim} hierarchy dims",
                label,
            )
        try:
            local_shape(t.shape, layout, where.hierarchy)
        except UnevenSplitError as err:
            raise JaxEmitError(
                f"%{v} {t} as {format_nd_sbp(layout)}: {err}", label
            ) from err
        self.layout[v], self.where[v] = layout, where

    def use(self, v: ValueId, layout: NdSbp, where: Placement, label: str) -> None:
        if v not in self.layout:
            raise JaxEmitError(f"value %{v} is used before it is defined", label)
        if self.layout[v] != layout:
            raise JaxEmitError(
                f"%{v} is {format_nd_sbp(self.layout[v])} but is used as "
                f"{format_nd_sbp(layout)}; insert the boxing step",
                label,
            )
        if self.where[v] != where:
            raise JaxEmitError(
                f"%{v} lives on {self.where[v]} but is used on {where}; "
                "insert a transfer",
                label,
            )

    def _analyze(self) -> None:
        for i, arg in enumerate(self.p.args):
            self.define(arg.value, arg.layout, arg.placement, _label(arg, i))
        for i, instr in enumerate(self.p.body):
            self.analyze_instr(instr, i)
        if not self.p.results:
            raise JaxEmitError(f"program '{self.p.name}' returns nothing")
        for r in self.p.results:
            label = f"result %{r.value}"
            self._use_result(r, label)

    def analyze_instr(self, instr: Instr, i: int) -> None:
        label = _label(instr, i)
        if isinstance(instr, OpInstr):
            self._analyze_op(instr, label)
        elif isinstance(instr, LoopInstr | CaseInstr):
            analyze_region(self, instr, label)
        else:
            self._analyze_collective(instr, label)

    def error(self, message: str, label: str) -> JaxEmitError:
        return JaxEmitError(message, label)

    def label_of(self, instr: Instr, i: int) -> str:
        return _label(instr, i)

    def next_region(self) -> int:
        """A fresh number for a region's nested functions."""
        self._regions = getattr(self, "_regions", 0) + 1
        return self._regions

    def _use_result(self, r: Result, label: str) -> None:
        """A result is returned in its value's layout, or with partials finished.

        ``B`` where the value is ``P`` reduces that hierarchy dim before
        returning; ``P`` kept is returned as stacked pieces.
        """
        if r.value not in self.layout:
            raise JaxEmitError(f"value %{r.value} is never defined", label)
        have = self.layout[r.value]
        if len(have) != len(r.layout) or any(
            h != w and not (isinstance(h, Partial) and w == B)
            for h, w in zip(have, r.layout, strict=True)
        ):
            raise JaxEmitError(
                f"%{r.value} is {format_nd_sbp(have)}; it can be returned as that or "
                f"with partials finished (P -> B), not as {format_nd_sbp(r.layout)}",
                label,
            )
        kept = _kept(r)
        for d in partial_dims(have):
            for e in kept:
                if d not in kept and e > d and have[e] != have[d]:
                    raise JaxEmitError(
                        f"finishing {have[d]} on hierarchy dim {d} while returning "
                        f"dim {e}'s {have[e]} pieces would combine them out of order",
                        label,
                    )
        self.use(r.value, have, r.placement, label)

    def _analyze_op(self, instr: OpInstr, label: str) -> None:
        op, sig = instr.op, instr.sig
        if len(sig.inputs) != len(op.operands) or len(sig.outputs) != len(op.results):
            raise JaxEmitError(f"signature {sig} does not fit {op.name}", label)
        if len(instr.operands) != len(op.operands) or len(instr.results) != len(
            op.results
        ):
            raise JaxEmitError("operand or result count differs from the op's", label)
        for v, nd, t in zip(instr.operands, sig.inputs, op.operands, strict=True):
            self.use(v, nd, instr.placement, label)
            self._same_type(v, t, label)
        for v, nd, t in zip(instr.results, sig.outputs, op.results, strict=True):
            self.define(v, nd, instr.placement, label)
            self._same_type(v, t, label)

    def _same_type(self, v: ValueId, t: TensorType, label: str) -> None:
        if self._type(v, label) != t:
            raise JaxEmitError(f"%{v} is {self.p.types[v]}, the op says {t}", label)

    def _analyze_collective(self, instr: CollectiveInstr, label: str) -> None:
        self.use(instr.operand, instr.src, instr.placement, label)
        if self._type(instr.operand, label) != self._type(instr.result, label):
            raise JaxEmitError("a boxing step must keep the logical type", label)
        if instr.kind == CollectiveKind.TRANSFER:
            to = instr.to_placement
            if to is None or to == instr.placement:
                raise JaxEmitError("a transfer needs another target placement", label)
            self.define(instr.result, instr.dst, to, label)
            return
        try:
            step_expr_check(instr)
        except CollectiveError as err:
            raise JaxEmitError(str(err), label) from err
        self.define(instr.result, instr.dst, instr.placement, label)

    # -- stages ------------------------------------------------------------------

    def _steps(self) -> list[_Stage | tuple[int, CollectiveInstr]]:
        steps: list[_Stage | tuple[int, CollectiveInstr]] = []
        for i, instr in enumerate(self.p.body):
            if (
                isinstance(instr, CollectiveInstr)
                and instr.kind == CollectiveKind.TRANSFER
            ):
                steps.append((i, instr))
                continue
            last = steps[-1] if steps else None
            if not (isinstance(last, _Stage) and last.placement == instr.placement):
                steps.append(_Stage(instr.placement))
                last = steps[-1]
            assert isinstance(last, _Stage)
            last.instrs.append((i, instr))
        stages = [s for s in steps if isinstance(s, _Stage)]
        if len(self.placements) == 1 and len(stages) <= 1 and len(steps) == len(stages):
            only = stages[0] if stages else _Stage(self.p.placement)
            only.inputs = [a.value for a in self.p.args]
            only.outputs = [(r.value, _kept(r)) for r in self.p.results]
            return [only]
        self._wire(steps)
        return steps

    def _wire(self, steps: list[_Stage | tuple[int, CollectiveInstr]]) -> None:
        """Inputs and outputs of each stage of a multi-step program."""
        defined_in: dict[ValueId, int] = {}
        for k, step in enumerate(steps):
            if isinstance(step, _Stage):
                for _, instr in step.instrs:
                    for v in results_of(instr):
                        defined_in[v] = k
        needed: dict[int, list[tuple[ValueId, bool]]] = {}

        def need(v: ValueId, kept: tuple[int, ...], at: int | None) -> None:
            k = defined_in.get(v)
            if k is None or k == at:
                if kept:
                    raise JaxEmitError(
                        "a result returned as partial pieces must be computed by an "
                        "op of a multi-placement program, not be an argument or a "
                        "transferred value",
                        f"result %{v}",
                    )
                return
            if (v, kept) not in needed.setdefault(k, []):
                needed[k].append((v, kept))

        for k, step in enumerate(steps):
            if isinstance(step, _Stage):
                for _, instr in step.instrs:
                    for v in reads(instr):  # a region's captures too
                        if defined_in.get(v) != k and v not in step.inputs:
                            step.inputs.append(v)
                        need(v, (), k)
            else:
                need(step[1].operand, (), k)
        for r in self.p.results:
            need(r.value, _kept(r), None)
        for k, outs in needed.items():
            stage = steps[k]
            assert isinstance(stage, _Stage)
            stage.outputs = outs
        # A stage whose values nobody uses has no observable effect.
        steps[:] = [s for s in steps if not isinstance(s, _Stage) or s.outputs]

    # -- module ------------------------------------------------------------------

    def const(self, value: np.ndarray, element: str) -> str:
        # Not np.ascontiguousarray: it turns a 0-d value into shape (1,).
        value = np.array(value, order="C")
        dtype = jnp_dtype(element)
        key = (dtype, value.tobytes(), value.shape)
        if key not in self._const_ids:
            name = f"_C{len(self._const_ids)}"
            data = base64.b64encode(value.tobytes()).decode()
            self.consts.append(f'{name} = _array("{data}", {dtype}, {value.shape})')
            self._const_ids[key] = name
        return self._const_ids[key]

    def module(self, check: bool = True, lazy_reference: bool = False) -> str:
        body: list[str] = []
        stage_defs: list[str] = []
        step_rows: list[str] = []
        for k, step in enumerate(self.steps):
            if isinstance(step, _Stage):
                name = f"_stage{k}"
                with self._on(step.placement):
                    stage_defs += self._stage_source(name, step)
                    step_rows.append(self._stage_row(name, step))
            else:
                i, t = step
                to = t.to_placement
                assert to is not None
                with self._on(to):
                    spec = partition_spec(t.dst, self.p.types[t.result].rank)
                step_rows.append(
                    f'    _Transfer("v{t.operand}", "v{t.result}", '
                    f"{self.placements.index(to)}, {spec}),  # {_one_line(_label(t, i))}"
                )
        reference = self._reference_source()
        body += self._header()
        body += ["", *self.consts, ""] if self.consts else [""]
        body += stage_defs
        body += ["", "_STEPS = (", *step_rows, ")", ""]
        body += reference
        prelude = PRELUDE.replace("{n_devices}", str(self._n_devices())).replace(
            X64_MARK, self._x64_line() + "\n"
        )
        doc = self._docstring()
        text = "\n".join(body)
        runtime = RUNTIME + (COMBINED_COLLECTIVES if self.combined else "")
        if "_gather_rows(" in text or "_scatter_rows(" in text:
            runtime += INDEXED_BLOCKS
        source = doc + prelude + text + "\n" + runtime + MAIN
        if not check:
            return source
        deferred = None
        if lazy_reference:  # the body's last lines: "", then the definition
            end = len(doc) + len(prelude) + len(text)
            deferred = (end - len("\n".join(reference[1:])), end)
            if not source.startswith(_REFERENCE_HEAD, deferred[0]):
                raise JaxEmitError(
                    "internal error: the reference is not where expected"
                )
        try:
            program_code(source, f"<sbpc program {self.p.name!r}>", deferred)
        except SyntaxError as err:  # a bug of the emitter, never a user error
            raise JaxEmitError(
                f"internal error: emitted invalid Python: {err}"
            ) from err
        return source

    def _n_devices(self) -> int:
        return max(max(p.ranks) for p in self.placements) + 1

    def _x64_line(self) -> str:
        if any(t.element in _X64 for t in self.p.types.values()):
            return "_X64 = True  # 64-bit types: the module's calls run in x64 mode"
        return "_X64 = False"

    def _docstring(self) -> str:
        lines = [
            f"sbpc: program '{self.p.name}' as JAX shard_map code (generated).",
            "",
        ]
        for k, p in enumerate(self.placements):
            lines.append(f"Placement {k}: {p.device}, ranks {p.nested_ranks()}.")
        lines.append("")
        for a in self.p.args:
            t = self.p.types[a.value]
            lines.append(f"Argument %{a.value}: {t} as {format_nd_sbp(a.layout)}.")
        for r in self.p.results:
            t = self.p.types[r.value]
            tail = ""
            if partial_dims(r.layout):
                tail = " (returned as stacked partial pieces, see OUT_PARTIAL)"
            lines.append(f"Result %{r.value}: {t} as {format_nd_sbp(r.layout)}{tail}.")
        lines += ["", "Run it to check it against the unsharded program."]
        text = "\n".join(lines).replace("\\", "\\\\").replace('"', '\\"')
        return '"""' + text + '\n"""\n'

    def _header(self) -> list[str]:
        p0 = self.p.placement
        index = self.placements.index
        in_specs, out_specs = [], []
        for a in self.p.args:
            with self._on(a.placement):
                in_specs.append(partition_spec(a.layout, self.p.types[a.value].rank))
        for r in self.p.results:
            with self._on(r.placement):
                out_specs.append(
                    partition_spec(r.layout, self.p.types[r.value].rank, stacked=True)
                )
        out_kinds = [
            tuple(r.layout[k].kind for k in partial_dims(r.layout))  # type: ignore[union-attr]
            for r in self.p.results
        ]
        lines = [
            "",
            f"MESH_SHAPE = {py_tuple(p0.hierarchy)}",
            "MESH_AXES = " + _src_tuple(f'"{axis_name(k)}"' for k in range(p0.ndim)),
            f"N_DEVICES = {self._n_devices()}",
            "# (ranks, hierarchy) of each placement; ranks index jax.devices().",
            "PLACEMENTS = "
            + _src_tuple(
                f"({py_tuple(p.ranks)}, {py_tuple(p.hierarchy)})"
                for p in self.placements
            ),
            *self._placement_axes_lines(),
            f"ARG_PLACEMENTS = {py_tuple([index(a.placement) for a in self.p.args])}",
            f"OUT_PLACEMENTS = {py_tuple([index(r.placement) for r in self.p.results])}",
            "IN_SPECS = " + _src_tuple(in_specs),
            "OUT_SPECS = "
            + (out_specs[0] if len(out_specs) == 1 else _src_tuple(out_specs)),
            "# Per result: partial kinds of its stacked leading axes (() = the value).",
            f"OUT_PARTIAL = {_literal(out_kinds)}",
            *self._padding_lines(),
            "ARG_TYPES = " + self._types_literal([a.value for a in self.p.args]),
            "OUT_TYPES = " + self._types_literal([r.value for r in self.p.results]),
            f"ARG_KEYS = {_literal([f'v{a.value}' for a in self.p.args])}",
            "RESULT_KEYS = "
            + _literal([_key(r.value, _kept(r)) for r in self.p.results]),
        ]
        return lines

    def _placement_axes_lines(self) -> list[str]:
        """``PLACEMENT_AXES``, where a placement's mesh names its axes in
        another order than ``MESH_AXES`` (the runtime's ``_mesh``)."""
        axes = [self._axes(p) for p in self.placements]
        plain = axes[self.placements.index(self.p.placement)]
        if all(a[: len(plain)] == plain[: len(a)] for a in axes):
            return []
        return ["PLACEMENT_AXES = " + _literal([tuple(a) for a in axes])]

    def _padding_lines(self) -> list[str]:
        """ARG_PADS / OUT_PADS / PUT_SPECS: uneven splits (sbpc.jax_backend.uneven)."""
        arg_rows = [
            arg_pads(self.p.types[a.value].shape, a.layout, a.placement.hierarchy)
            for a in self.p.args
        ]
        out_rows = [
            result_unpads(
                self.p.types[r.value].shape,
                r.layout,
                r.placement.hierarchy,
                len(partial_dims(r.layout)),
            )
            for r in self.p.results
        ]
        if not any(arg_rows) and not any(out_rows):
            return []
        if len(self.placements) > 1:
            raise JaxEmitError(
                "uneven splits of arguments or results need a single placement "
                "in the JAX lowering"
            )
        put = [
            "P()" if rows else partition_spec(a.layout, self.p.types[a.value].rank)
            for a, rows in zip(self.p.args, arg_rows, strict=True)
        ]
        return [
            "# Uneven splits: (axis, rows) of the padded global layout per argument,",
            "# and (axis, rows) of the logical rows per result (docs/uneven-splits.md).",
            f"ARG_PADS = {_literal(arg_rows)}",
            f"OUT_PADS = {_literal(out_rows)}",
            "PUT_SPECS = " + _src_tuple(put),
        ]

    def _types_literal(self, values: Sequence[ValueId]) -> str:
        items = [
            f"({py_tuple(self.p.types[v].shape)}, {jnp_dtype(self.p.types[v].element)})"
            for v in values
        ]
        return _src_tuple(items)

    # -- stage bodies ----------------------------------------------------------------

    def _stage_row(self, name: str, stage: _Stage) -> str:
        p = stage.placement
        in_specs = [
            partition_spec(self.layout[v], self.p.types[v].rank) for v in stage.inputs
        ]
        out_specs = [
            partition_spec(
                _finished(self.layout[v], kept), self.p.types[v].rank, stacked=True
            )
            for v, kept in stage.outputs
        ]
        return (
            f"    _Stage({self.placements.index(p)}, {name}, "
            f"{_literal([f'v{v}' for v in stage.inputs])}, "
            f"{_src_tuple(in_specs)}, "
            f"{self._types_literal(stage.inputs)}, "
            f"{_literal([_key(v, s) for v, s in stage.outputs])}, "
            f"{_src_tuple(out_specs)}),"
        )

    def _stage_source(self, name: str, stage: _Stage) -> list[str]:
        args = ", ".join(f"v{v}" for v in stage.inputs)
        lines = [
            "",
            f"def {name}({args}):",
            f'    """Each device of placement {self.placements.index(stage.placement)}'
            ' on its local pieces."""',
        ]
        for v in stage.inputs:
            lines += self._make_pieces(v)
        for item in self._schedule(stage):
            if isinstance(item, Combined):
                lines += self._combined_lines(item)
                continue
            i, instr = item
            lines += self._local_lines(instr, _label(instr, i), "    ", i)
        outs = []
        for v, kept in stage.outputs:
            outs.append(self._leave(v, kept))
        lines.append(f"    return {_src_tuple(outs)}")
        return lines

    def _local_lines(self, instr: Instr, label: str, indent: str, i: int) -> list[str]:
        """One instruction on local pieces, at ``indent`` (regions nest)."""
        if isinstance(instr, LoopInstr | CaseInstr):

            def line(sub: Instr, sub_label: str, sub_indent: str) -> list[str]:
                return self._local_lines(sub, sub_label, sub_indent, 0)

            return region_lines(self, instr, label, indent, line)
        if isinstance(instr, OpInstr):
            h = instr.placement.hierarchy
            extra = indent[4:]
            return [f"{indent}# {_one_line(label)}: {instr.sig}"] + [
                extra + text for text in self._op_lines(instr, label, h)
            ]
        return [
            f"{indent}# {self._step_comment(i, instr)}",
            f"{indent}v{instr.result} = {self._collective_expr(instr)}",
        ]

    def _step_comment(self, i: int, instr: CollectiveInstr) -> str:
        return (
            f"{_one_line(_label(instr, i))}: dims {list(instr.dims)} "
            f"{format_nd_sbp(instr.src)} -> {format_nd_sbp(instr.dst)}"
        )

    # -- combined collectives ----------------------------------------------------

    def _schedule(
        self, stage: _Stage
    ) -> list[tuple[int, Instr] | Combined[tuple[int, Instr]]]:
        """The stage's instructions, independent collectives of one key grouped."""
        if self.combine_bytes == 0:
            return list(stage.instrs)
        return combine_groups(
            stage.instrs,
            operands=lambda item: reads(item[1]),
            results=lambda item: results_of(item[1]),
            key=lambda item: self._combine_key(item[1]),
            nbytes=lambda item: self._step_bytes(item[1]),
            max_bytes=self.combine_bytes,
        ).schedule()

    def _combine_key(self, instr: Instr) -> Hashable | None:
        """What collectives must share to run as one (``combine_key``); None:
        runs alone, as does a step through an uneven dim."""
        if not isinstance(instr, CollectiveInstr) or self._uneven_expr(instr):
            return None
        if _alone(instr):
            return None  # ``_collective_expr`` writes no collective
        if self.p.types[instr.operand].num_elements == 0:
            return None  # an empty tensor: ``step_expr`` moves nothing
        element = self.p.types[instr.operand].element
        return combine_key(instr.kind, instr.dims, instr.src, element)

    def _step_bytes(self, instr: Instr) -> int:
        """A step's larger local buffer (the combined buffer it adds to)."""
        assert isinstance(instr, CollectiveInstr)
        t, h = self.p.types[instr.operand], instr.placement.hierarchy
        return max(local_bytes(nd, t, h) for nd in (instr.src, instr.dst))

    def _combined_lines(self, group: Combined[tuple[int, Instr]]) -> list[str]:
        self.combined = True
        steps: list[CollectiveInstr] = []
        lines = []
        for i, instr in group.members:
            assert isinstance(instr, CollectiveInstr)
            steps.append(instr)
            lines.append(
                f"    # combined ({len(group.members)}): {self._step_comment(i, instr)}"
            )
        first = steps[0]
        call = combined_step_expr(
            first.kind,
            first.dims,
            first.placement.hierarchy,
            [(s.src, s.dst) for s in steps],
            [f"v{s.operand}" for s in steps],
        )
        outs = ", ".join(f"v{s.result}" for s in steps)
        return [*lines, f"    {outs} = {call}"]

    def _make_pieces(self, v: ValueId) -> list[str]:
        """A stage input arrives as its logical value on P dims: make the pieces."""
        nd = self.layout[v]
        sums = [k for k in partial_dims(nd) if nd[k] == Partial("sum")]
        if not sums:
            return []
        zero = "False" if self.p.types[v].element == "i1" else "0"
        return [
            f"    # %{v} arrives whole on {format_nd_sbp(nd)}'s P dims: one copy "
            "holds the value",
            f"    v{v} = jnp.where(lax.axis_index({axes_expr(sums)}) == 0, v{v}, {zero})",
        ]

    def _leave(self, v: ValueId, kept: tuple[int, ...]) -> str:
        """``v`` as it leaves a stage: partials reduced, except ``kept`` ones,
        which are returned as pieces stacked on leading axes."""
        nd = self.layout[v]
        x = f"v{v}"
        # Reduce inner hierarchy dims first; neighbours of one kind in one call.
        runs: list[list[int]] = []
        for k in reversed([d for d in partial_dims(nd) if d not in kept]):
            if runs and nd[runs[-1][0]] == nd[k] and runs[-1][0] == k + 1:
                runs[-1].insert(0, k)
            else:
                runs.append([k])
        for run in runs:
            kind = nd[run[0]]
            assert isinstance(kind, Partial)
            x = f"{REDUCE_FN[kind.kind]}({x}, {axes_expr(run)})"
        if kept:
            x = f"jnp.expand_dims({x}, {py_tuple(range(len(kept)))})"
        return x

    def _uneven_expr(self, instr: CollectiveInstr) -> str | None:
        """The step through the whole dim when it re-splits an uneven dim."""
        t = self.p.types[instr.operand]
        return uneven_step_expr(
            instr.dims,
            instr.src,
            instr.dst,
            f"v{instr.operand}",
            t.shape,
            t.element,
            instr.placement.hierarchy,
        )

    def _collective_expr(self, instr: CollectiveInstr) -> str:
        h = instr.placement.hierarchy
        t = self.p.types[instr.operand]
        if _alone(instr):
            # A group of one device: every step keeps its piece (a split
            # in one block is the whole dim, a partial of one piece is the
            # value), so no collective is written for XLA to fold away.
            check_step(instr.kind, instr.dims, instr.src, instr.dst)
            return f"v{instr.operand}"
        uneven = self._uneven_expr(instr)
        if uneven is not None:
            return uneven
        return step_expr(
            instr.kind,
            instr.dims,
            instr.src,
            instr.dst,
            f"v{instr.operand}",
            local_shape(t.shape, instr.src, h),
            local_shape(t.shape, instr.dst, h),
            t.element,
        )

    def _op_lines(
        self, instr: OpInstr, label: str, hierarchy: Sequence[int]
    ) -> list[str]:
        names = [f"v{v}" for v in (*instr.operands, *instr.results)]
        key = op_key(instr.op)
        return self.templates.lines(
            None if key is None else (key, instr.sig, instr.placement),
            names,
            lambda marks: self._write_op_lines(instr, label, hierarchy, marks),
        )

    def _write_op_lines(
        self,
        instr: OpInstr,
        label: str,
        hierarchy: Sequence[int],
        names: Sequence[str],
    ) -> list[str]:
        """The lines of ``_op_lines``, with operands then results named ``names``."""
        op, sig = instr.op, instr.sig
        args, outs = list(names[: len(instr.operands)]), names[len(instr.operands) :]
        coords = list(instr.placement.coords())
        if not local_op_varies(op.name):
            coords = coords[:1]  # the same local op on every device: build it once
        try:
            locals_ = device_local_ops(op, sig, hierarchy, coords, padded=True)
        except (UnevenSplitError, ValueError) as err:
            raise JaxEmitError(f"no local op for {sig}: {err}", label) from err
        local = locals_[0]
        dynamic: dict[str, str] = {}
        for key in local.attrs:
            if all(_same(local.attrs[key], o.attrs.get(key)) for o in locals_[1:]):
                continue
            if key not in DYNAMIC_ATTRS.get(op.name, ()):
                raise JaxEmitError(
                    f"attribute '{key}' of {op.name} differs between devices under "
                    f"{sig} and the JAX emitter has no symbolic form for it",
                    label,
                )
            devices = DeviceLocals(op, sig, hierarchy, locals_)
            try:
                if key in DYNAMIC_EXPRESSIONS:
                    dynamic[key] = DYNAMIC_EXPRESSIONS[key](devices)
                else:
                    dynamic[key] = self._constant_block(devices)
            except DeviceAttrError as err:
                raise JaxEmitError(str(err), label) from err
        pre, args = halo_lines(op, sig, hierarchy, args, outs[0])
        masks, args = mask_lines(op, sig, hierarchy, args, outs[0])
        pre += masks
        try:
            exprs = op_expressions(local, args, self, dynamic)
        except UnsupportedOpError as err:
            raise JaxEmitError(str(err), label) from err
        return pre + assignments(outs, exprs, "    ")

    def _constant_block(self, devices: DeviceLocals) -> str:
        """The device's block of the value; zeros off the ``P(sum)`` holder."""
        op, nd, hierarchy = devices.op, devices.sig.outputs[0], devices.hierarchy
        result = op.results[0]
        dtype = numpy_dtype(result.element)
        value = np.broadcast_to(
            np.asarray(op.attr("value")).astype(dtype), result.shape
        )
        local = devices.locals[0].results[0].shape
        sums = [k for k, s in enumerate(nd) if s == Partial("sum")]
        for coord, loc in zip(devices.coords(), devices.locals, strict=True):
            block = value[local_slices(result.shape, nd, hierarchy, coord)]
            if any(coord[k] != 0 for k in sums):
                block = np.zeros_like(block)
            got = np.asarray(loc.attr("value"))
            if got.shape != block.shape or not np.array_equal(
                got.astype(dtype), block, equal_nan=dtype.kind == "f"
            ):
                raise DeviceAttrError(
                    f"constant at {coord} is not the block its layout gives"
                )
        jdt = jnp_dtype(result.element)
        flat = value.reshape(-1)
        if flat.size and (flat == flat[0]).all():
            block = f"jnp.full({py_tuple(local)}, {self.const(flat[0], result.element)}, {jdt})"
        else:
            name = self.const(value, result.element)
            # axis_index is int32: so are the zero starts (a Python 0 is
            # int64 under jax_enable_x64, and dynamic_slice wants one type).
            zero = "jnp.int32(0)"
            starts = [
                block_start(nd, d, local[d]) if Split(d) in nd else zero
                for d in range(result.rank)
            ]
            if any(s != zero for s in starts):
                block = (
                    f"lax.dynamic_slice(jnp.asarray({name}, {jdt}), "
                    f"({', '.join(starts)},), {py_tuple(local)})"
                )
            else:
                block = f"jnp.asarray({name}, {jdt})"
        if sums:
            zero = "False" if result.element == "i1" else "0"
            block = (
                f"jnp.where(lax.axis_index({axes_expr(sums)}) == 0, {block}, {zero})"
            )
        return block

    # -- reference ------------------------------------------------------------------

    def _reference_source(self) -> list[str]:
        """``_reference``'s lines, after an empty one (``module`` finds the
        definition by them)."""
        args = ", ".join(f"v{a.value}" for a in self.p.args)
        lines = [
            "",
            *_REFERENCE_HEAD.split("\n")[:-1],
            f"def _reference({args}):",
            '    """The program on global arrays; boxing steps keep the value."""',
        ]
        line = reference_line(self)
        for i, instr in enumerate(self.p.body):
            lines += line(instr, _label(instr, i), "    ")
        lines.append(f"    return {_src_tuple(f'v{r.value}' for r in self.p.results)}")
        return lines


def _alone(instr: CollectiveInstr) -> bool:
    """The step's group is one device: its dims are all of size 1."""
    return all(instr.placement.hierarchy[d] == 1 for d in instr.dims)


def step_expr_check(instr: CollectiveInstr) -> None:
    """Validate a boxing step (raises CollectiveError)."""
    n = instr.placement.ndim
    if len(instr.src) != n:
        raise CollectiveError(
            f"layout {format_nd_sbp(instr.src)} does not fit a {n}-dim placement"
        )
    check_step(instr.kind, instr.dims, instr.src, instr.dst)


def jnp_dtype_or_error(element: str, label: str) -> str:
    try:
        return jnp_dtype(element)
    except UnsupportedOpError as err:
        raise JaxEmitError(str(err), label) from err


def _key(v: ValueId, kept: tuple[int, ...]) -> str:
    """The runtime's name of ``v`` in one returned form."""
    return f"v{v}:pieces{','.join(map(str, kept))}" if kept else f"v{v}"


def _kept(r: Result) -> tuple[int, ...]:
    """The partial hierarchy dims a result is returned as pieces on."""
    return tuple(partial_dims(r.layout))


def _finished(nd: NdSbp, kept: Sequence[int]) -> NdSbp:
    """``nd`` with its partials outside ``kept`` reduced (``B``)."""
    return tuple(
        B if isinstance(s, Partial) and k not in kept else s for k, s in enumerate(nd)
    )


def _same(a: object, b: object) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        return a.shape == b.shape and bool(np.array_equal(a, b))
    return bool(a == b)


def _one_line(text: str) -> str:
    """Text fit for a ``#`` comment."""
    return " ".join(text.splitlines())


def _src_tuple(items: Iterable[str]) -> str:
    """Source of a tuple of source items; one-element tuples keep their comma."""
    items = list(items)
    return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"


def _literal(value: object) -> str:
    """A Python literal; one-element tuples keep their comma."""
    if isinstance(value, list | tuple):
        items = [_literal(v) for v in value]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    return repr(value)
