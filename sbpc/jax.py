"""The JAX front door: distribute a JAX function with sbpc, get a JAX callable.

    import sbpc.jax

    step = sbpc.jax.distribute(
        train_step, params, batch,          # example arguments (or ShapeDtypeStructs)
        mesh=(2, 4),                         # the placement: a 2x4 device hierarchy
        in_layouts=(None, "[S(0), B]"),      # a pytree prefix of the arguments
        out_layouts=None,                    # free: sbpc chooses
        strategy="optimal",
    )
    loss, params = step(params, batch)       # same signature as train_step
    print(step.report)

Without the devices (a mesh larger than this machine, abstract
arguments), ``plan`` makes the same plan and stops before loading it::

    planned = sbpc.jax.plan(train_step, params, batch,   # ShapeDtypeStructs
                            mesh=((8, 8), ("data", "model")),
                            cost_model="h100-sxm")
    planned.report, planned.peak_memory, planned.step_time
    planned.shardings()                      # PartitionSpecs
    planned.source                           # the program, run where the devices are

How: ``jax.jit(fn).lower(...)`` gives StableHLO text; sbpc parses it, writes
the module placement and the given layouts (``sbp.nd_sbp`` on the main
function's arguments and results), runs ``sbp-inline``, ``sbp-propagate`` and
``sbp-lower-boxing``, emits the ``-t jax`` module and loads it.  The callable
flattens its arguments as ``jax.jit`` would, places them on the mesh, runs
the sharded program and returns global ``jax.Array``\\ s in the original
output pytree (``distribute`` is ``plan`` plus that loading).

Layouts: an ``nd_sbp`` string (``"[S(0), B]"``; on a 1-D mesh ``"S(0)"``),
``None`` (free), or a pytree prefix of the arguments (results) made of those,
as ``jax.jit``'s ``in_shardings`` is.  A free argument is placed as sbpc
chooses (``Distributed.in_layouts`` says how); a free result never ends
partial.

What sbpc cannot compile (an op without rules, a bad layout, an uneven
split across several placements) raises ``SbpcError`` with the StableHLO line at fault.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, NamedTuple

import jax
import numpy as np
from jax.sharding import AbstractMesh, Mesh, NamedSharding, PartitionSpec
from xdsl.dialects.builtin import ArrayAttr, ModuleOp, StringAttr, UnitAttr
from xdsl.utils.exceptions import DiagnosticException, ParseError

from sbpc.algebra.placement import Placement, PlacementError
from sbpc.algebra.sbp import (
    B,
    NdSbp,
    Partial,
    Split,
    format_nd_sbp,
)
from sbpc.collector import collector_paused
from sbpc.dialects import sbp as sbp_dialect
from sbpc.dialects.module_verify import verify_module
from sbpc.dialects.sbp.pipeline import pipeline_options, search_table
from sbpc.jax_dispatch import (
    CHECKED_PATH,
    Dispatch,
    direct_call,
    raw_keys,
    whole_call,
)
from sbpc.jax_layouts import (
    LayoutTree,
    flat_layouts,
    mesh_text,
    place_reordered,
)
from sbpc.jax_options import MeshArg, PlanOptions, is_int, with_options
from sbpc.jax_pipeline import Pipeline, PipelineError, as_pipeline, mark_batch
from sbpc.jax_plan import (
    Planned,
    SbpcError,
    load_program,
    located_message,
    remat_pass,
)
from sbpc.jax_sharding import (
    ShardingError,
    find_mesh,
    is_jitted,
    mesh_placement,
    named_mesh,
    resolve_layouts,
)
from sbpc.jax_ties import state_ties
from sbpc.passes.bridge.program import main_function
from sbpc.passes.bridge.sdy import MESH_AXES, mesh_axes
from sbpc.passes.import_sdy import SbpImportSdyPass
from sbpc.passes.inline import SbpInlinePass
from sbpc.passes.jax_target import jax_source
from sbpc.passes.lower_boxing import SbpLowerBoxingPass
from sbpc.passes.pipeline import default_context
from sbpc.passes.pipeline_target import pipeline_costs
from sbpc.passes.propagate import FunctionPlan, SbpPropagatePass
from sbpc.passes.remat import SbpRematPass
from sbpc.propagation.progress import Progress, reporting
from sbpc.timing import Timer, phase

__all__ = [
    "Distributed",
    "Pipeline",
    "Planned",
    "SbpcError",
    "annotate",
    "distribute",
    "parse_mesh",
    "plan",
]

# --------------------------------------------------------------------------
# Inputs: meshes and layouts
# --------------------------------------------------------------------------


def parse_mesh(mesh: MeshArg) -> Placement:
    """A placement from ``Placement``, ``8``, ``(2, 4)``, ``"2x4"``, a jax
    ``Mesh`` or ``AbstractMesh``, or sizes with axis names
    (``((2, 4), ("data", "model"))``, ``{"data": 2, "model": 4}``)."""
    if isinstance(mesh, Placement):
        return mesh
    try:
        mesh = named_mesh(mesh)
        if isinstance(mesh, Mesh | AbstractMesh):
            return mesh_placement(mesh)
    except ShardingError as e:
        raise SbpcError(str(e)) from e
    if not _is_mesh_value(mesh):
        raise SbpcError(
            f"bad mesh {mesh!r} ({type(mesh).__name__}): expected a number of "
            "devices (8), sizes ((2, 4) or '2x4'), sizes with axis names "
            "(((2, 4), ('data', 'model')) or {'data': 2, 'model': 4}), a jax "
            "Mesh or AbstractMesh, or a Placement"
        )
    try:
        if isinstance(mesh, str):
            if not re.fullmatch(r"\s*\d+(\s*x\s*\d+)*\s*", mesh):
                raise SbpcError(f"bad mesh '{mesh}': expected sizes like 8 or 2x4")
            return Placement.of_size(tuple(int(n) for n in mesh.split("x")))
        if is_int(mesh):
            return Placement.of_size(int(mesh))
        return Placement.of_size(tuple(int(n) for n in mesh))
    except (PlacementError, TypeError, ValueError) as e:
        raise SbpcError(f"bad mesh {mesh!r}: {e}") from e


def _is_mesh_value(mesh: Any) -> bool:
    """An int, a str, or a non-empty sequence of ints (bools are not sizes,
    bytes are not a sequence of them)."""
    if is_int(mesh) or isinstance(mesh, str):
        return True
    return (
        isinstance(mesh, Sequence)
        and not isinstance(mesh, bytes | bytearray)
        and len(mesh) > 0
        and all(is_int(n) for n in mesh)
    )


# --------------------------------------------------------------------------
# Lowering and annotating
# --------------------------------------------------------------------------


@dataclass
class Annotated:
    """A JAX function as an annotated sbpc module, with its pytree structure."""

    module: ModuleOp
    text: str  # the StableHLO JAX printed
    name: str
    in_tree: Any  # PyTreeDef of (args, kwargs)
    out_tree: Any
    in_paths: list[str]
    out_paths: list[str]
    placement: Placement
    out_key_impls: tuple[Any, ...] = ()  # per result leaf: its PRNG impl, or None

    def mlir(self) -> str:
        return str(self.module)


def _parse(text: str, name: str) -> ModuleOp:
    from sbpc.tools.sbpc_opt import LocatingParser, parse_error_diagnostic

    try:
        return LocatingParser(default_context(), text, name).parse_module()
    except ParseError as e:
        # The fault (usually an op sbpc does not know) on the first line.
        diag = parse_error_diagnostic(e, 0)
        lines = text.splitlines()
        quoted = lines[diag.line - 1].strip() if 1 <= diag.line <= len(lines) else ""
        raise SbpcError(
            f"{diag} (sbpc cannot read the StableHLO JAX emitted for {name})"
            + (f"\n  {quoted}" if quoted else "")
        ) from e


def annotate(
    fn: Callable[..., Any] | jax.stages.Lowered,
    *args: Any,
    mesh: MeshArg | None = None,
    in_layouts: LayoutTree = None,
    out_layouts: LayoutTree = None,
    tie_state: bool = True,
    donate_argnums: int | Sequence[int] | None = (),
    **kwargs: Any,
) -> Annotated:
    """Lower ``fn`` on example ``args`` and write placement and layouts into it.

    The shardings JAX writes itself (a ``jax.jit``-wrapped ``fn``'s own
    in/out shardings, ``with_sharding_constraint``, ``shard_map``) are read by
    ``sbp-import-sdy``; ``mesh`` may then be left out.  ``fn`` may be a
    ``jax.stages.Lowered`` (lowered on ``args``): its text is read as it is,
    with whatever a pass run on it wrote (Shardy's propagation: sub-axes).
    ``tie_state``: a result that is an argument's new state
    (``sbpc.jax_ties``; donated arguments, ``donate_argnums``, settle
    ambiguous ones) and has no layout of its own comes back in the
    argument's layout (``sbp.tied_to``).
    """
    name = _function_name(fn)
    try:
        mesh = named_mesh(mesh)  # sizes with axis names: an AbstractMesh
        jax_mesh = find_mesh(mesh, in_layouts, out_layouts)
    except ShardingError as e:
        raise SbpcError(str(e)) from e
    if mesh is None and jax_mesh is not None:
        mesh = jax_mesh
    try:
        with phase("lower (jax)"):
            if isinstance(fn, jax.stages.Lowered):
                lowered = fn
                _check_lowered_args(lowered, args, kwargs, name)
            elif is_jitted(fn):  # its own in/out shardings are kept
                lowered = fn.lower(*args, **kwargs)
            else:
                lowered = jax.jit(fn, keep_unused=True).lower(*args, **kwargs)
            text = lowered.as_text()
    except Exception as e:  # JAX's own errors: tracing or lowering the function
        raise SbpcError(f"JAX could not lower {name}: {e}") from e
    with phase("parse"):
        module = _parse(text, f"{name}.mlir")
    if mesh is not None:
        sbp_dialect.set_module_placement(module, parse_mesh(mesh))
    if jax_mesh is not None:
        module.attributes[MESH_AXES] = ArrayAttr(
            [StringAttr(a) for a in jax_mesh.axis_names]
        )
    try:
        SbpImportSdyPass().apply(default_context(), module)
    except DiagnosticException as e:
        raise SbpcError(located_message(e, name, text)) from e
    placement = sbp_dialect.module_placement(module)
    if placement is None:
        raise SbpcError(
            f"{name}: no mesh: pass mesh= (sizes or a jax Mesh), NamedShardings, "
            "or a function whose shardings name one"
        )
    try:  # PartitionSpecs on the mesh's axes (the module's, if jax named it)
        in_layouts = resolve_layouts(in_layouts, mesh_axes(module), "argument")
        out_layouts = resolve_layouts(out_layouts, mesh_axes(module), "result")
    except ShardingError as e:
        raise SbpcError(str(e)) from e
    f = main_function(module)
    in_tree = lowered.in_tree
    out_tree = lowered.out_tree
    n_in = in_tree.num_leaves
    if len(f.args) != n_in:
        raise SbpcError(
            f"{name}: JAX lowered {n_in} argument leaves to {len(f.args)} "
            "function arguments (tokens or effects are not supported)"
        )
    arg_layouts = flat_layouts(in_layouts, args, placement, "argument")
    out_skeleton = jax.tree_util.tree_unflatten(out_tree, [0] * out_tree.num_leaves)
    res_layouts = flat_layouts(out_layouts, out_skeleton, placement, "result")
    place_reordered(f, arg_layouts, placement, "argument")
    place_reordered(f, res_layouts, placement, "result")
    for i, nd in enumerate(arg_layouts):
        if nd is not None:
            _agree(sbp_dialect.get_nd_sbp_arg_attr(f, i), nd, name, "argument", i)
            sbp_dialect.set_nd_sbp_arg_attr(f, i, nd)
    key_impls = tuple(
        _key_impl(o.dtype) for o in jax.tree_util.tree_leaves(lowered.out_info)
    )
    for i, impl in enumerate(key_impls):
        # A typed key's data is split only along the key array's own dims,
        # never its trailing ones (JAX wraps only such arrays): an unpinned
        # key result is kept whole.
        pinned = res_layouts[i] or sbp_dialect.get_nd_sbp_res_attr(f, i)
        if impl is not None and pinned is None:
            res_layouts[i] = tuple(B for _ in placement.hierarchy)
    for i, nd in enumerate(res_layouts):
        if nd is not None:
            _agree(sbp_dialect.get_nd_sbp_res_attr(f, i), nd, name, "result", i)
            sbp_dialect.set_nd_sbp_res_attr(f, i, nd)
    ties = {}
    if tie_state:
        donated = _argnums(donate_argnums)
        ties = state_ties(lowered.in_avals[0], lowered.out_info, donated)
    for r, a in ties.items():
        # An argument given as partial pieces ties nothing: the result would
        # come back as pieces, which no call takes (it takes the whole
        # array), where a free result is reduced before it is returned.
        given = sbp_dialect.get_nd_sbp_arg_attr(f, a)
        if given is not None and any(isinstance(s, Partial) for s in given):
            continue
        if key_impls[r] is None and sbp_dialect.get_nd_sbp_res_attr(f, r) is None:
            sbp_dialect.set_tied_to(f, r, a)
    try:
        sbp_dialect.verify_sbp_annotations(module)
    except DiagnosticException as e:
        raise SbpcError(located_message(e, name, text)) from e
    return Annotated(
        module,
        text,
        name,
        in_tree,
        out_tree,
        _paths(args, "args") + _paths(kwargs, "kwargs"),
        _paths(out_skeleton, "out"),
        placement,
        key_impls,
    )


def _function_name(fn: Any) -> str:
    """``fn``'s name; a ``Lowered``'s is its module's (``jit_f``: ``f``)."""
    if isinstance(fn, jax.stages.Lowered):
        match = re.match(r"\s*module @(?:jit_)?([\w.$-]+)", fn.as_text())
        return match.group(1) if match else "lowered"
    return getattr(fn, "__name__", "fn")


def _check_lowered_args(
    lowered: Any, args: tuple[Any, ...], kwargs: dict[str, Any], name: str
) -> None:
    """The example arguments given with a ``Lowered`` must be the ones it
    was lowered on (their pytree, shapes and dtypes), since they say how to
    call and place the step."""
    given = jax.tree_util.tree_structure((args, kwargs))
    if given != lowered.in_tree:
        raise SbpcError(
            f"{name}: the arguments ({given}) are not the ones the function was "
            f"lowered on ({lowered.in_tree})"
        )
    leaves = jax.tree_util.tree_leaves((args, kwargs))
    infos = jax.tree_util.tree_leaves(lowered.args_info)
    for i, (x, info) in enumerate(zip(leaves, infos, strict=True)):
        shape, dtype = np.shape(x), getattr(x, "dtype", None)
        if shape != info.shape or (dtype is not None and dtype != info.dtype):
            raise SbpcError(
                f"{name}: argument leaf {i} is {dtype}{list(shape)}, but the "
                f"function was lowered on {info.dtype}{list(info.shape)}"
            )


def _key_impl(dtype: Any) -> Any:
    """The PRNG implementation of a typed-key dtype (``jax.random.key``), or
    None.  The program holds a key as its raw data (``key_data``); results
    are wrapped back.  JAX has no public accessor for an abstract key type's
    implementation, hence its ``_impl``."""
    if jax.dtypes.issubdtype(dtype, jax.dtypes.prng_key):
        return dtype._impl
    return None


def _agree(have: NdSbp | None, want: NdSbp, name: str, what: str, i: int) -> None:
    """A layout given twice (the jitted function's sharding and a layout) must agree."""
    if have is not None and have != want:
        raise SbpcError(
            f"{name}: {what} #{i} is laid out {format_nd_sbp(have)} by the "
            f"function's own sharding but {format_nd_sbp(want)} by the layouts given"
        )


def _paths(tree: Any, root: str) -> list[str]:
    return [
        root + jax.tree_util.keystr(p)
        for p, _ in jax.tree_util.tree_leaves_with_path(tree)
    ]


# --------------------------------------------------------------------------
# The distributed callable
# --------------------------------------------------------------------------


@dataclass(kw_only=True)
class Distributed(Planned):
    """``fn`` distributed by sbpc: call it like ``fn``.

    A ``Planned`` loaded on the local devices: ``report``, ``plan_json``,
    ``report_html()``, ``mlir``, ``source``, ``peak_memory``,
    ``step_time``, ``in_layouts``/``out_layouts`` are the plan's; ``timing``
    holds ``distribute``'s phases (``sbpc.timing.Timer``); ``program`` is
    the emitted module, loaded; ``shardings()`` gives ``NamedSharding``s on
    the local devices.
    """

    donated: tuple[int, ...] = ()  # flat argument positions, jax.jit's donation
    donate_argnums: tuple[int, ...] = ()  # the positional arguments they come from
    _step: Callable[..., Any] | None = field(default=None, repr=False)
    _mesh_cache: tuple[Any, ...] | None = field(default=None, repr=False)
    _direct: Dispatch | None = field(default=None, repr=False)
    _in_sharding_cache: list[NamedSharding] | None = field(default=None, repr=False)

    _caller = "sbpc.jax.distribute"

    @property
    def step(self) -> Callable[..., Any]:
        """The sharded program on placed flat arguments (``place``'s output):
        ``jax.jit`` of one ``shard_map``, so ``.lower(...)`` works; the
        donated arguments' buffers are reused for the results."""
        if self._step is None:
            self._step = self.program.build(self._meshes(), donate=self.donated)
        return self._step

    def flatten(self, *args: Any, **kwargs: Any) -> list[Any]:
        leaves, tree = jax.tree_util.tree_flatten((args, kwargs))
        if tree != self.in_tree:
            raise TypeError(
                f"{self.name} was distributed for arguments of structure "
                f"{self.in_tree}, got {tree}"
            )
        return raw_keys(leaves)

    def _unflatten(self, outs: Any) -> Any:
        """The step's flat results as the function's pytree, keys typed again."""
        outs = outs if isinstance(outs, tuple | list) else (outs,)
        if any(impl is not None for impl in self.out_key_impls):
            outs = [
                x if impl is None else jax.random.wrap_key_data(x, impl=impl)
                for x, impl in zip(outs, self.out_key_impls, strict=True)
            ]
        return jax.tree_util.tree_unflatten(self.out_tree, list(outs))

    def place(self, *args: Any, **kwargs: Any) -> tuple[jax.Array, ...]:
        """The flat arguments put on the mesh in the layouts the program takes.

        Python scalars and numpy arrays take the dtype the function was
        compiled for (as ``jax.jit``'s weak types do); shapes must match.
        """
        leaves = []
        for leaf, (shape, dtype), path in zip(
            self.flatten(*args, **kwargs),
            self.program.ARG_TYPES,
            self.in_paths,
            strict=True,
        ):
            if not isinstance(leaf, jax.Array):
                leaf = np.asarray(leaf, dtype=dtype)
            if tuple(leaf.shape) != tuple(shape):
                raise TypeError(
                    f"{self.name}: {path} has shape {tuple(leaf.shape)}, "
                    f"but was distributed for {tuple(shape)}"
                )
            leaves.append(leaf)
        targets = self._in_shardings()
        if all(
            isinstance(leaf, jax.Array)
            and (leaf.sharding == s or leaf.sharding.is_equivalent_to(s, leaf.ndim))
            for leaf, s in zip(leaves, targets, strict=True)
        ):
            return tuple(leaves)  # already placed: jax.jit's fast path
        return tuple(self.program.put_args(*leaves, mesh=self._meshes()))

    def _direct_call(self) -> Dispatch:
        """Where a call goes (``sbpc.jax_dispatch``): one ``jax.jit`` of
        ``fn``'s signature around the step, made on first use; the checked
        path for a pipeline over several placements."""
        if self._direct is None:
            step = self.step
            if not hasattr(step, "lower") or isinstance(step, self.program.Pipeline):
                self._direct = CHECKED_PATH
            else:
                jitted = whole_call(
                    step,
                    self._unflatten,
                    self.in_tree,
                    self.program.ARG_TYPES,
                    self.donate_argnums,
                )
                self._direct = direct_call(
                    jitted,
                    getattr(self.program, "_X64", False),
                    self.program.x64_mode,
                    jax.process_count(),
                )
        return self._direct

    @property
    def call_path(self) -> str:
        """How a call reaches the program: ``"jit"`` (the call is one
        ``jax.jit``, dispatched in C++), ``"x64 jit"`` (that jit in JAX's x64
        mode), ``"arrays jit"`` (that jit for ``jax.Array`` leaves, on several
        processes) or ``"checked"`` (Python places the arguments)."""
        return self._direct_call().path

    def lower(self, *args: Any, **kwargs: Any) -> Any:
        """The whole call lowered, as ``jax.jit(fn).lower(*args)`` is:
        ``.compile().as_text()`` is the optimized HLO a call runs."""
        jitted = self._direct_call().jitted
        if jitted is None:
            raise SbpcError(
                f"{self.name} runs on several placements: lower its stages "
                "(step.lower(*place(...)))"
            )
        with self.program.x64_mode():
            return jitted.lower(*args, **kwargs)

    def _meshes(self) -> tuple[jax.sharding.Mesh, ...]:
        """The program's meshes, made once (making them per call costs more
        than a small step)."""
        if self._mesh_cache is None:
            self._mesh_cache = self.program.make_meshes()
        return self._mesh_cache

    def _in_shardings(self) -> list[NamedSharding]:
        if self._in_sharding_cache is None:
            meshes = self._meshes()
            self._in_sharding_cache = [
                NamedSharding(meshes[k], spec)
                for k, spec in zip(
                    self.program.ARG_PLACEMENTS,
                    getattr(self.program, "PUT_SPECS", self.program.IN_SPECS),
                    strict=True,
                )
            ]
        return self._in_sharding_cache

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        direct = (self._direct or self._direct_call()).call
        if direct is not None:
            try:
                return direct(*args, **kwargs)
            except (TypeError, ValueError):
                # Refused while tracing (other structure, shapes, dtypes or
                # devices): the checked path places them or says what is wrong.
                pass
        # A program with 64-bit types (threefry's counters) runs in JAX's x64
        # mode for the call only: the caller's mode is left as it was.
        with self.program.x64_mode():
            return self._unflatten(self.step(*self.place(*args, **kwargs)))

    def shardings(  # type: ignore[override]  # the plan's specs on the mesh
        self,
    ) -> tuple[list[NamedSharding], list[NamedSharding]]:
        """The ``NamedSharding`` of every flat argument and result: what to give
        ``jax.jit(in_shardings=..., out_shardings=...)`` for the same layouts
        (the plan's ``PartitionSpec``s on the local mesh)."""
        ins, outs = super().shardings()
        if hasattr(self.program, "ARG_STAGES"):  # a pipeline: each on its stage
            meshes = self._meshes()
            return (
                [
                    NamedSharding(meshes[k], spec)
                    for k, spec in zip(self.program.ARG_STAGES, ins, strict=True)
                ],
                [
                    NamedSharding(meshes[k], spec)
                    for k, spec in zip(self.program.OUT_STAGES, outs, strict=True)
                ],
            )
        mesh = self.program.make_mesh()
        return (
            [NamedSharding(mesh, spec) for spec in ins],
            [NamedSharding(mesh, spec) for spec in outs],
        )


def named_sharding(mesh: jax.sharding.Mesh, nd: NdSbp, rank: int) -> NamedSharding:
    """The ``NamedSharding`` of a non-partial layout on a mesh with axes
    ``d0, d1, ...`` (one per hierarchy dim)."""
    dims: list[list[str]] = [[] for _ in range(rank)]
    for k, s in enumerate(nd):
        if isinstance(s, Partial):
            raise SbpcError(
                f"a partial layout {format_nd_sbp(nd)} has no NamedSharding"
            )
        if isinstance(s, Split):
            dims[s.axis].append(f"d{k}")
    spec = [None if not d else d[0] if len(d) == 1 else tuple(d) for d in dims]
    return NamedSharding(mesh, PartitionSpec(*spec))


@with_options
def plan(
    fn: Callable[..., Any] | jax.stages.Lowered,
    *args: Any,
    donate_argnums: int | Sequence[int] | None = (),
    **kwargs: Any,
) -> Planned:
    """Plan ``fn`` for ``mesh`` without its devices: ``args`` may be
    ``jax.ShapeDtypeStruct``\\ s, the mesh any size.

    The keywords are ``PlanOptions``' (``mesh``, the layouts, the search),
    ``donate_argnums`` (``distribute``'s: the plan's memory then counts
    the donated arguments' buffers as the results' they become), the
    others ``fn``'s.  The result's ``source`` runs unchanged where the
    devices are.
    ``fn`` may be a ``jax.stages.Lowered``, as ``distribute``'s.
    """
    options, kwargs = PlanOptions.split(kwargs)
    propagate = options.check(fn)
    argnums = _argnums(donate_argnums)
    donated = _donated_leaves(argnums, args)
    request = _request(fn, args, kwargs, options, propagate, donated, argnums)
    shown = Progress.for_terminal(options.quiet)
    timer = Timer()
    with timer.activate(), collector_paused():
        planned = _plan(request, propagate, int(options.combine_bytes), shown)
    timer.stop()
    planned.timing = timer
    return planned


@with_options
def distribute(
    fn: Callable[..., Any] | jax.stages.Lowered,
    *args: Any,
    donate_argnums: int | Sequence[int] | None = (),
    **kwargs: Any,
) -> Distributed:
    """Distribute ``fn`` over ``mesh`` (see the module docstring): ``plan``,
    then load the program on the local devices.

    The keywords are ``plan``'s (``PlanOptions``), and ``donate_argnums``:
    positional arguments whose buffers the program may reuse for its
    results, as in ``jax.jit`` (a training step that updates parameters in
    place then needs no second copy of them); a donated argument must not be
    used after the call.  ``fn`` may be a ``jax.stages.Lowered`` with
    ``args`` the arguments it was lowered on (``annotate``).
    """
    options, kwargs = PlanOptions.split(kwargs)
    propagate = options.check(fn)
    if options.mesh is not None:  # else read from the shardings, checked below
        _check_devices(parse_mesh(options.mesh))
    argnums = _argnums(donate_argnums)
    donated = _donated_leaves(argnums, args)
    request = _request(fn, args, kwargs, options, propagate, donated, argnums)
    shown = Progress.for_terminal(options.quiet)
    timer = Timer()
    with timer.activate(), collector_paused():
        planned = _plan(
            request,
            propagate,
            int(options.combine_bytes),
            shown,
            _check_devices,
            check_source=True,
        )
        with phase("load"), shown.phase("loading the program"):
            program = load_program(planned.source, planned.name)
    timer.stop()
    given = {f.name: getattr(planned, f.name) for f in fields(Planned)}
    return Distributed(
        **{**given, "_program": program, "timing": timer},
        donated=donated,
        donate_argnums=tuple(sorted(set(argnums))),
    )


class _Request(NamedTuple):
    """What ``plan`` and ``distribute`` were asked to plan."""

    fn: Callable[..., Any]
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    mesh: MeshArg | None
    in_layouts: LayoutTree
    out_layouts: LayoutTree
    pipeline: Pipeline | None = None
    donated: tuple[int, ...] = ()  # flat argument positions given up
    remat: SbpRematPass | None = None
    tie_state: bool = True
    donate_argnums: tuple[Any, ...] = ()  # the positional arguments donated


def _request(
    fn: Callable[..., Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    options: PlanOptions,
    propagate: SbpPropagatePass,
    donated: tuple[int, ...] = (),
    donate_argnums: tuple[Any, ...] = (),
) -> _Request:
    return _Request(
        fn,
        args,
        kwargs,
        options.mesh,
        options.in_layouts,
        options.out_layouts,
        _pipeline(options.pipeline),
        donated,
        remat_pass(options.remat, propagate),
        options.tie_state,
        donate_argnums,
    )


def _pipeline(pipeline: Any) -> Pipeline | None:
    try:
        return as_pipeline(pipeline)
    except PipelineError as e:
        raise SbpcError(str(e)) from e


def _plan(
    request: _Request,
    propagate: SbpPropagatePass,
    combine_bytes: int,
    shown: Progress,
    check_placement: Callable[[Placement], None] | None = None,
    check_source: bool = False,
) -> Planned:
    """``plan``'s work (under the caller's timer): lower and annotate the
    function (``check_placement`` sees its placement before any planning),
    then the passes and the emitter.  ``check_source``: compile the emitted
    text (``distribute``, which loads it: the load reuses that code);
    ``plan`` writes the text alone (``Planned.program`` compiles it when
    first read)."""
    with shown.phase("jax lowering and layouts"):
        annotated = annotate(
            request.fn,
            *request.args,
            mesh=request.mesh,
            in_layouts=request.in_layouts,
            out_layouts=request.out_layouts,
            tie_state=request.tie_state,
            donate_argnums=request.donate_argnums,
            **request.kwargs,
        )
        if check_placement is not None:
            check_placement(annotated.placement)
        # Donated buffers may hold results: the memory model counts them once.
        entry = main_function(annotated.module)
        for i in request.donated:
            sbp_dialect.set_arg_attr(entry, i, "jax.buffer_donor", UnitAttr())
        if request.pipeline is not None:
            try:
                mark_batch(annotated.module, request.pipeline, request.args)
            except PipelineError as e:
                raise SbpcError(str(e)) from e
    module, plans, source = _compile(
        annotated,
        propagate,
        combine_bytes,
        shown,
        request.pipeline,
        request.remat,
        check_source=check_source,
    )
    f = main_function(module)
    chosen_in = [sbp_dialect.get_nd_sbp_arg_attr(f, i) for i in range(len(f.args))]
    chosen_out = [
        sbp_dialect.get_nd_sbp_res_attr(f, i)
        for i in range(len(f.function_type.outputs))
    ]
    pipeline = None
    if request.pipeline is not None and pipeline_options(f) is not None:
        pipeline = pipeline_costs(
            module,
            f,
            propagate.cost_model,
            {p.placement: p.plan.peak_memory for p in plans},
        )
    return Planned(
        name=annotated.name,
        strategy=propagate.strategy,
        placement=annotated.placement,
        module=module,
        source=source,
        plans=plans,
        in_tree=annotated.in_tree,
        out_tree=annotated.out_tree,
        in_layouts=[nd for nd in chosen_in if nd is not None],
        out_layouts=[nd for nd in chosen_out if nd is not None],
        in_paths=annotated.in_paths,
        out_paths=annotated.out_paths,
        out_key_impls=annotated.out_key_impls,
        cost_model=propagate.cost_model,
        memory_budget=propagate.limits()[0],
        pipeline=pipeline,
        pipeline_search=search_table(f),
    )


def _compile(
    annotated: Annotated,
    propagate: SbpPropagatePass,
    combine_bytes: int,
    shown: Progress,
    pipeline: Pipeline | None = None,
    remat: SbpRematPass | None = None,
    check_source: bool = True,
) -> tuple[ModuleOp, list[FunctionPlan], str]:
    """The passes and the emitter on an annotated module, each timed and
    shown (``check_source``: the emitted text compiled, ``emit_jax``)."""
    module = annotated.module
    ctx = default_context()
    try:
        with phase("sbp-inline"), shown.phase("sbp-inline"):
            SbpInlinePass().apply(ctx, module)
        if remat is not None:
            with phase("sbp-remat"), shown.phase("sbp-remat"):
                remat.apply(ctx, module)
        if pipeline is not None:
            with phase("sbp-pipeline"), shown.phase("sbp-pipeline"):
                pipeline.pass_for(
                    propagate.cost_model, propagate.strategy, propagate.limits()[0]
                ).apply(ctx, module)
        with (
            phase("sbp-propagate"),
            reporting(shown),
            shown.phase(f"sbp-propagate ({propagate.strategy})"),
        ):
            plans = propagate.plan_module(module)
        with phase("sbp-lower-boxing"), shown.phase("sbp-lower-boxing"):
            # The steps the plan was priced with, not the default machine's.
            SbpLowerBoxingPass(cost_model=propagate.cost_model).apply(ctx, module)
        with phase("verify"):
            verify_module(module)
        with phase("emit (jax)"), shown.phase("jax emission"):
            source = jax_source(
                module,
                combine_bytes=combine_bytes,
                check=check_source,
                lazy_reference=check_source,  # loaded here, its reference seldom run
            )
    except DiagnosticException as e:
        raise SbpcError(located_message(e, annotated.name, annotated.text)) from e
    return module, plans, source


def _check_devices(placement: Placement) -> None:
    """The mesh's ranks must be devices JAX has (else the first call fails)."""
    have = jax.device_count()
    if max(placement.ranks) >= have:
        raise SbpcError(
            f"mesh: {mesh_text(placement)} needs devices 0..{max(placement.ranks)} "
            f"but JAX has {have} (on a CPU, set XLA_FLAGS="
            f"--xla_force_host_platform_device_count={max(placement.ranks) + 1} "
            "before importing jax)"
        )


def _argnums(donate_argnums: Any) -> tuple[Any, ...]:
    """``donate_argnums`` as ``jax.jit`` takes it (an int, a sequence of
    them, or None: none), as a tuple read once (an iterator is read once)."""
    if donate_argnums is None:
        return ()
    if is_int(donate_argnums):
        return (donate_argnums,)
    if isinstance(donate_argnums, Sequence) and not isinstance(
        donate_argnums, str | bytes | bytearray
    ):
        return tuple(donate_argnums)
    raise SbpcError(
        f"donate_argnums: expected an argument index or a sequence of them, not "
        f"{donate_argnums!r} ({type(donate_argnums).__name__})"
    )


def _donated_leaves(nums: tuple[Any, ...], args: Sequence[Any]) -> tuple[int, ...]:
    """Flat leaf positions of the donated positional arguments (positional
    leaves come first in ``tree_flatten((args, kwargs))``)."""
    starts = [0]
    for a in args:
        starts.append(starts[-1] + len(jax.tree_util.tree_leaves(a)))
    out: list[int] = []
    for n in nums:
        if not is_int(n) or not 0 <= n < len(args):
            raise SbpcError(
                f"donate_argnums: {n!r} is not a positional argument "
                f"(the function was given {len(args)})"
            )
        out.extend(range(starts[n], starts[n + 1]))
    return tuple(sorted(set(out)))
