"""``sbp-import-sdy``: Shardy's shardings (what JAX writes) as sbp annotations.

Run first, on ``jax.jit(f, in_shardings=..., out_shardings=...).lower(...)``
text:

- the ``sdy.mesh`` becomes the module's ``sbp.placement`` (hierarchy = mesh
  axes in order, ``device_ids`` kept as the rank array) and its axis names
  the module's ``sbp.mesh_axes``, which ``-t jax`` emits as ``MESH_AXES``;
- ``sdy.sharding`` on a function argument or result becomes its
  ``sbp.nd_sbp`` (``passes.bridge.sdy.sharding_layout``: axes splitting a
  dimension major-first in mesh order, unreduced axes ``P(sum)``, other axes
  ``B``); open or absent shardings stay free for propagation;
- ``sdy.sharding_constraint`` and ``sdy.reshard`` become ``sbp.cast`` (or
  disappear if free), and a ``sdy.sharding`` on an op's results a cast of
  each result; Shardy's explicit collectives (``sdy.all_gather``, ...,
  ``sdy.all_reduce``) a cast to their ``out_sharding``: in the global view
  they keep the value and change its layout; ``sdy.constant`` becomes
  ``stablehlo.constant``; a ``stablehlo.partition_id`` outside a manual
  computation that nothing reads is dropped;
- ``sdy.manual_computation`` keeps its per-device body and gets its fixed
  layouts as ``sbp.sig``, so propagation keeps them and ``-t jax`` runs the
  body inside the program's ``shard_map`` as it is (laid out by sub-axes or
  axes out of mesh order, its operands and results are first rearranged
  onto the mesh's axes: ``bridge/arranged_manual.py``).

Sub-axes, axes out of mesh order and other meshes are values on other
placements (``bridge/reordered.py``).  The ``sdy.mesh`` ops stay (manual
computations name them).  GSPMD's ``mhlo.sharding`` strings are not read:
one that is not ``{replicated}`` is an error, as is anything else sbpc
cannot express (partially manual computations, ...).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    IntegerType,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
    TensorType,
)
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from sbpc.algebra.named_axes import NamedAxesError, placement_axes
from sbpc.algebra.placement import Placement, PlacementError
from sbpc.algebra.sbp import B
from sbpc.algebra.signature import Signature
from sbpc.dialects import sbp as sbp_dialect
from sbpc.dialects import sdy
from sbpc.dialects import stablehlo as shlo
from sbpc.dialects.diagnostics import LocatedError

from .bridge.arranged_manual import (
    Arrangement,
    arrangement,
    rearranged_operand,
    rearranged_result,
)
from .bridge.reordered import (
    on_default,
    place_argument,
    place_result,
    reordered_casts,
)
from .bridge.sdy import (
    MESH_AXES,
    manual_body,
    manual_layouts,
    mesh_axes,
    ordered_layout,
    set_placement_names,
)

GSPMD_SHARDING = "mhlo.sharding"


def module_mesh(module: ModuleOp) -> sdy.MeshAttr | None:
    """The module's mesh (sdy.mesh ops with axes): the first its shardings
    name; None if none.  Meshes no sharding names are left alone (Shardy's
    test files declare meshes for several functions at once)."""
    meshes = [op for op in module.ops if isinstance(op, sdy.MeshOp) and op.mesh.axes]
    named = _named_meshes(module)
    if named:
        # Several named: the first is the module's, values on the others
        # live on their placements (_Importer.placed).
        meshes = [op for op in meshes if op.sym_name.data in named][:1] or meshes
    for op in meshes[1:]:
        if op.mesh.axes != meshes[0].mesh.axes or op.mesh.ids != meshes[0].mesh.ids:
            raise LocatedError(
                op,
                f"a second mesh @{op.sym_name.data}: sbpc lays out a module on one "
                "mesh",
            )
    return meshes[0].mesh if meshes else None


def _named_meshes(module: ModuleOp) -> set[str]:
    """The names of the meshes the module's shardings refer to."""
    names: set[str] = set()

    def visit(attr: Attribute) -> None:
        if isinstance(attr, sdy.TensorShardingAttr):
            if isinstance(attr.mesh, SymbolRefAttr):
                names.add(attr.mesh.root_reference.data)
        elif isinstance(attr, sdy.TensorShardingPerValueAttr):
            for a in attr.shardings.data:
                visit(a)
        elif isinstance(attr, ArrayAttr):
            for a in attr.data:
                visit(a)
        elif isinstance(attr, DictionaryAttr):
            for a in attr.data.values():
                visit(a)

    for op in module.walk():
        for attr in (*op.attributes.values(), *op.properties.values()):
            visit(attr)
    return names


def mesh_placement(at: Operation, mesh: sdy.MeshAttr) -> Placement:
    """The placement of ``mesh``: its axes as hierarchy, its devices as ranks."""
    sizes = tuple(s for _, s in mesh.axes)
    try:
        placement = Placement.of_size(sizes)
        if mesh.ids:
            placement = Placement("cpu", sizes, mesh.ids)
    except PlacementError as e:
        raise LocatedError(at, f"mesh {mesh}: {e}") from e
    return placement


def _check_gspmd(at: Operation, attrs: DictionaryAttr | None, where: str) -> None:
    value = None if attrs is None else attrs.data.get(GSPMD_SHARDING)
    if value is None:
        return
    if isinstance(value, StringAttr) and value.data.strip() == "{replicated}":
        return
    raise LocatedError(
        at,
        f"{where} has a GSPMD {GSPMD_SHARDING} = {value}, which sbpc does not read: "
        "lower with Shardy (jax's default) so it writes sdy.sharding",
    )


@dataclass
class _Importer:
    mesh: sdy.MeshAttr | None  # None: the module has no mesh with axes
    placement: Placement | None = None  # the mesh's
    # The axis names of the placements of other meshes.
    names: dict[Placement, tuple[str, ...]] = field(default_factory=dict)

    def layout(self, at: Operation, attr: Attribute, mesh: sdy.MeshAttr | None):
        """``attr`` as (nd_sbp, axis factors, order), None where free."""
        if not isinstance(attr, sdy.TensorShardingAttr):
            raise LocatedError(at, f"{sdy.SHARDING} must be #sdy.sharding<...>")
        return ordered_layout(at, attr, mesh)

    def casts(self, value: SSAValue, attr: Attribute, at: Operation) -> list[Operation]:
        """The casts that constrain ``value`` to ``attr`` (none where free)."""
        placed = self.placed(at, attr)
        if placed is None:
            return []
        nd, there, back = placed
        if there is not None:
            assert self.placement is not None
            return reordered_casts(value, nd, there, self.placement, back)
        return [sbp_dialect.CastOp(value, nd)]

    def placed(self, at: Operation, attr: Attribute):
        """``attr`` as (nd_sbp, its placement or None where the module's,
        the layout on the module's placement of the same axes), None where
        free.  A sharding on another mesh lives on that mesh's placement;
        on the module's it is the same where the two meshes have the same
        axes, else ``B``."""
        used = (
            sdy.mesh_of(at, attr) if isinstance(attr, sdy.TensorShardingAttr) else None
        )
        other = (
            used is not None
            and used.axes
            and self.mesh is not None
            and (used.axes != self.mesh.axes or used.ids != self.mesh.ids)
        )
        ordered = self.layout(at, attr, used if other else self.mesh)
        if ordered is None:
            return None
        nd, factors, order = ordered
        plain = all(len(f) == 1 for f in factors) and order == tuple(range(len(order)))
        if plain and not other:
            return nd, None, nd
        assert self.placement is not None and used is not None
        base = mesh_placement(at, used) if other else self.placement
        there = base.refined(factors).permuted(order)
        back = nd if there == base else on_default(nd, there, base)
        if other:
            own = tuple(n for n, _ in used.axes)
            self.names[there] = placement_axes(base, own, there)
            if used.axes != self.mesh.axes:
                back = tuple(B for _ in self.placement.hierarchy)
        return nd, there, back

    def function(self, f: func.FuncOp) -> None:
        reordered: list[tuple[str, int, tuple, Placement, tuple]] = []
        for kind, attrs in (("argument", f.arg_attrs), ("result", f.res_attrs)):
            if attrs is None:
                continue
            new: list[DictionaryAttr] = []
            for i, d in enumerate(attrs.data):
                _check_gspmd(f, d, f"{kind} #{i}")
                entries = dict(d.data)
                sharding = entries.pop(sdy.SHARDING, None)
                if sharding is not None:
                    placed = self.placed(f, sharding)
                    nd = None if placed is None else placed[0]
                    if placed is not None and placed[1] is not None:
                        reordered.append((kind, i, *placed))
                        nd = None  # placed below
                    have = entries.get(sbp_dialect.ND_SBP)
                    if nd is not None:
                        if have is not None and have != sbp_dialect.NdSbpAttr(nd):
                            raise LocatedError(
                                f,
                                f"{kind} #{i}: {sdy.SHARDING} {sharding} and "
                                f"{sbp_dialect.ND_SBP} {have} disagree",
                            )
                        entries[sbp_dialect.ND_SBP] = sbp_dialect.NdSbpAttr(nd)
                new.append(DictionaryAttr(entries))
            if kind == "argument":
                f.arg_attrs = ArrayAttr(new)
            else:
                f.res_attrs = ArrayAttr(new)
        for kind, i, nd, there, back in reordered:
            assert self.placement is not None
            place = place_argument if kind == "argument" else place_result
            place(f, i, nd, there, self.placement, back)


def replicated_sums(module: ModuleOp) -> dict[Operation, int]:
    """How many equal copies each summing ``all_reduce``/``reduce_scatter``
    adds up, read before the import drops the shardings.

    Each device holds the operand as its sharding says: over an axis it is
    unreduced on, a partial sum, and summing the partials gives the value
    back; over an axis it is replicated on (the default where no sharding
    is written), the whole value, and the sum is that many times the value.
    An op's result with no sharding written is read as unreduced on the
    reduction axes (what Shardy means to require of every operand, and how
    its executable tests use a dot or gather contracting split axes).
    """
    counts: dict[Operation, int] = {}
    for op in module.walk():
        if not isinstance(op, sdy.AllReduceOp | sdy.ReduceScatterOp):
            continue
        if op.reduction_op.kind.data != "sum":
            continue
        if isinstance(op, sdy.AllReduceOp):
            axes = list(op.reduction_axes.refs)
        else:
            axes = [a for d in op.per_dim() for a in d]
        operand = sdy.sharding_of_value(op.tensor)
        if operand is None and not isinstance(op.tensor, BlockArgument):
            continue
        unreduced = (
            set() if operand is None else {a.text() for a in operand.unreduced.data}
        )
        mesh = sdy.mesh_of(op, op.out_sharding)
        sizes = dict(mesh.axes) if mesh is not None else {}
        n = 1
        for a in axes:
            if a.text() not in unreduced:
                n *= a.sub_axis[1] if a.sub_axis else sizes.get(a.axis.data, 1)
        if n > 1:
            counts[op] = n
    return counts


def _times(value: SSAValue, n: int, rewriter: PatternRewriter) -> SSAValue:
    """``value * n`` (a scalar constant broadcast to its shape)."""
    t = value.type
    assert isinstance(t, TensorType)
    element = t.get_element_type()
    scalar = TensorType(element, [])
    number = n if isinstance(element, IntegerType) else float(n)
    c = shlo.ConstantOp(DenseIntOrFPElementsAttr.from_list(scalar, [number]))
    b = shlo.BroadcastInDimOp(c, [], t)
    mul = shlo.MulOp(value, b)
    rewriter.insert([c, b, mul])
    return mul.results[0]


@dataclass
class LayoutToCast(RewritePattern):
    """``sdy.sharding_constraint``, ``sdy.reshard`` and Shardy's collectives
    -> ``sbp.cast`` to the layout they name (free: the operand itself).

    In the global view each keeps its operand's value and lays it out anew
    (a collective's ``out_sharding``; ``all_reduce``/``reduce_scatter`` sum
    the axes the operand was unreduced over, which is the same value), so
    propagation sees a fixed layout there and boxing does the moving.  A sum
    over axes the operand was replicated on multiplies it by their size
    (``replicated_sums``), as Shardy's partitioner computes it.
    """

    importer: _Importer
    sums: dict[Operation, int]

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if isinstance(op, sdy.ShardingConstraintOp | sdy.ReshardOp):
            sharding = op.sharding
        elif isinstance(op, sdy.CollectiveOp):
            sharding = op.out_sharding
        else:
            return
        if isinstance(op.parent_op(), sdy.ManualComputationOp):
            raise LocatedError(
                op,
                f"{op.name} inside a manual body: sbpc runs manual computations "
                "manual on every mesh axis, which leaves it no axis",
            )
        (value,) = op.operands
        if (n := self.sums.get(op)) is not None:
            value = _times(value, n, rewriter)
        casts = self.importer.casts(value, sharding, op)
        if not casts:
            rewriter.replace(op, [], [value])
            return
        casts[-1].results[0].name_hint = op.results[0].name_hint
        rewriter.replace(op, casts)


@dataclass
class HintsToValues(RewritePattern):
    """Shardy's propagation hints read for their values (``dialects/sdy/
    hints.py``): a barrier is its operand, a sharding group nothing, a named
    computation its body inlined, its shardings (where written) casts of
    the operands and results."""

    importer: _Importer

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if isinstance(op, sdy.PropagationBarrierOp):
            rewriter.replace(op, [], [op.input])
        elif isinstance(op, sdy.ShardingGroupOp):
            rewriter.erase(op)
        elif isinstance(op, sdy.NamedComputationOp):
            values = list(op.tensors)
            if op.in_shardings is not None:
                values = self._cast(values, op.in_shardings, op, rewriter)
            block = op.body.block
            ret = block.last_op
            assert ret is not None
            outs = [
                values[v.index]
                if isinstance(v, BlockArgument) and v.block is block
                else v
                for v in ret.operands
            ]
            rewriter.erase(ret)
            rewriter.inline_block(block, InsertPoint.before(op), values)
            if op.out_shardings is not None:
                outs = self._cast(outs, op.out_shardings, op, rewriter)
            rewriter.replace(op, [], outs)

    def _cast(
        self,
        values: list[SSAValue],
        shardings: sdy.TensorShardingPerValueAttr,
        at: Operation,
        rewriter: PatternRewriter,
    ) -> list[SSAValue]:
        out = []
        for v, s in zip(values, shardings.shardings.data, strict=True):
            casts = self.importer.casts(v, s, at)
            rewriter.insert(casts, InsertPoint.before(at))
            out.append(casts[-1].results[0] if casts else v)
        return out


class DropDeadPartitionId(RewritePattern):
    """A ``stablehlo.partition_id`` outside a manual computation whose value
    nothing reads: it has no effect, so it goes (one that is read is refused
    by its verifier: per-device code has no global value)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self, op: shlo.PartitionIdOp, rewriter: PatternRewriter
    ) -> None:
        if not op.output.uses and not _in_manual(op):
            rewriter.erase(op)


def _in_manual(op: Operation) -> bool:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, sdy.ManualComputationOp):
        parent = parent.parent_op()
    return parent is not None


class ConstantToStablehlo(RewritePattern):
    """``sdy.constant`` -> ``stablehlo.constant``: Shardy's unfolded constant
    is a constant to sbpc (which lays out each use on its own anyway)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: sdy.ConstantOp, rewriter: PatternRewriter) -> None:
        new = shlo.ConstantOp(op.value)
        new.attributes |= op.attributes
        new.results[0].name_hint = op.output.name_hint
        rewriter.replace(op, new)


@dataclass
class OpShardingToCasts(RewritePattern):
    """``{sdy.sharding = #sdy.sharding_per_value<...>}`` on an op: each result
    cast to its layout (Shardy reads it as a constraint on the result)."""

    importer: _Importer

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        attr = op.attributes.get(sdy.SHARDING)
        if attr is None or isinstance(op.parent_op(), sdy.ManualComputationOp):
            return
        if not isinstance(attr, sdy.TensorShardingPerValueAttr) or len(
            attr.shardings.data
        ) != len(op.results):
            raise LocatedError(
                op, f"{sdy.SHARDING} on an op must be one sharding per result"
            )
        del op.attributes[sdy.SHARDING]
        for result, s in zip(op.results, attr.shardings.data, strict=True):
            casts = self.importer.casts(result, s, op)
            if not casts:
                continue
            rewriter.insert(casts, InsertPoint.after(op))
            result.replace_uses_with_if(
                casts[-1].results[0], lambda u, c=casts[0]: u.operation is not c
            )


@dataclass
class ArrangeManual(RewritePattern):
    """A manual computation whose shardings split by sub-axes or by mesh
    axes out of mesh order: its operands and results rearranged in the
    global view so that they are split by the mesh's axes in mesh order,
    each device's piece unchanged (``bridge/arranged_manual.py``)."""

    importer: _Importer

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self, op: sdy.ManualComputationOp, rewriter: PatternRewriter
    ) -> None:
        in_shardings = op.in_shardings.shardings.data
        out_shardings = op.out_shardings.shardings.data
        ins = self._arranged(op, in_shardings, op.tensors)
        outs = self._arranged(op, out_shardings, op.results)
        if not any(ins) and not any(outs):
            return
        types = [
            r.type if a is None else TensorType(r.type.get_element_type(), a.new_shape)
            for r, a in zip(op.results, outs, strict=True)
        ]
        new = sdy.ManualComputationOp(
            _through(op.tensors, ins, rearranged_operand, op, rewriter),
            types,
            _shardings(in_shardings, ins),
            _shardings(out_shardings, outs),
            op.manual_axes.names,
            op.detach_region(op.body),
        )
        new.attributes |= op.attributes
        rewriter.insert(new, InsertPoint.before(op))
        values = _through(new.results, outs, rearranged_result, op, rewriter)
        rewriter.replace(op, [], values)

    def _arranged(
        self,
        op: Operation,
        shardings: Sequence[sdy.TensorShardingAttr],
        values: Sequence[SSAValue],
    ) -> list[Arrangement | None]:
        """How each of ``shardings`` is rearranged onto the mesh's axes;
        None where it is on them."""
        return [
            self._one(op, s, v.type) for s, v in zip(shardings, values, strict=True)
        ]

    def _one(
        self, op: Operation, s: sdy.TensorShardingAttr, t: Attribute
    ) -> Arrangement | None:
        mesh = self.importer.mesh
        assert mesh is not None and isinstance(t, TensorType)
        ordered = ordered_layout(op, s, mesh)
        if ordered is None:
            return None
        nd, factors, order = ordered
        if all(len(f) == 1 for f in factors) and order == tuple(range(len(order))):
            return None
        names = [n for n, _ in mesh.axes]
        try:
            return arrangement(nd, factors, order, names, t.get_shape())
        except NamedAxesError as e:
            raise LocatedError(op, f"{s}: {e}") from e


def _through(
    values: Sequence[SSAValue],
    arrangements: Sequence[Arrangement | None],
    rearranged: Callable[[SSAValue, Arrangement], list[Operation]],
    at: Operation,
    rewriter: PatternRewriter,
) -> list[SSAValue]:
    """``values`` rearranged (ops inserted before ``at``) where an
    arrangement is given."""
    out = []
    for v, a in zip(values, arrangements, strict=True):
        if a is not None:
            ops = rearranged(v, a)
            rewriter.insert(ops, InsertPoint.before(at))
            v = ops[-1].results[0]
        out.append(v)
    return out


def _shardings(
    shardings: Sequence[sdy.TensorShardingAttr],
    arrangements: Sequence[Arrangement | None],
) -> list[sdy.TensorShardingAttr]:
    return [
        s if a is None else a.sharding(s)
        for s, a in zip(shardings, arrangements, strict=True)
    ]


@dataclass
class PinManual(RewritePattern):
    """A manual computation's layouts become its ``sbp.sig`` (a user constraint)."""

    importer: _Importer

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self, op: sdy.ManualComputationOp, rewriter: PatternRewriter
    ) -> None:
        if sbp_dialect.SIG in op.attributes:
            return
        ins, outs = manual_layouts(op, self.importer.mesh)
        manual_body(op, [s for _, s in self.importer.mesh.axes])  # located checks
        sbp_dialect.set_signature(op, Signature(ins, outs))
        rewriter.has_done_action = True


@dataclass(frozen=True)
class SbpImportSdyPass(ModulePass):
    """Translate Shardy's mesh and shardings into sbp annotations."""

    name = "sbp-import-sdy"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        mesh = module_mesh(op)
        if mesh is None:
            # Only shardings on axis-less meshes may be here (JAX writes them
            # for typed PRNG keys); they constrain nothing and are dropped.
            for inner in op.walk():
                if isinstance(inner, sdy.ManualComputationOp):
                    raise LocatedError(inner, f"'{inner.name}' but no sdy.mesh")
            _import_shardings(op, _Importer(None))
            return
        placement = mesh_placement(op, mesh)
        have = sbp_dialect.module_placement(op)
        # JAX's sdy.mesh rarely lists device ids (the device assignment says
        # them): a placement already there keeps its ranks unless they clash.
        if have is not None and (
            have.hierarchy != placement.hierarchy
            or (mesh.ids and have.ranks != mesh.ids)
        ):
            raise LocatedError(
                op,
                f"the module's {sbp_dialect.PLACEMENT} differs from its sdy.mesh "
                f"{mesh}",
            )
        if have is None:
            sbp_dialect.set_module_placement(op, placement)
        names = tuple(n for n, _ in mesh.axes)
        if mesh_axes(op) not in ((), names):
            raise LocatedError(
                op, f"the module's {MESH_AXES} differ from its sdy.mesh {mesh}"
            )
        op.attributes[MESH_AXES] = ArrayAttr([StringAttr(n) for n in names])
        importer = _Importer(mesh, sbp_dialect.module_placement(op))
        _import_shardings(op, importer)
        set_placement_names(op, importer.names)


def _import_shardings(op: ModuleOp, importer: _Importer) -> None:
    """Argument, result, op and constraint shardings become sbp layouts."""
    sums = replicated_sums(op)
    for f in op.ops:
        if isinstance(f, func.FuncOp):
            importer.function(f)
    kinds, sharded = _census(op)

    def walk(pattern: RewritePattern, *matched: type[Operation]) -> None:
        # A walk over the module costs a pass over every op (20-50 ms on a
        # library decoder); a pattern with no op of its kinds rewrites
        # nothing, so its walk is skipped.  No walk makes ops that a later
        # pattern matches (casts, stablehlo constants, broadcasts and
        # products; a named computation's body is moved, not made), so the
        # census taken before the first walk answers for every walk.
        if any(issubclass(kind, matched) for kind in kinds):
            PatternRewriteWalker(pattern).rewrite_module(op)

    if sharded:
        PatternRewriteWalker(
            OpShardingToCasts(importer), apply_recursively=False
        ).rewrite_module(op)
    walk(ConstantToStablehlo(), sdy.ConstantOp)
    walk(DropDeadPartitionId(), shlo.PartitionIdOp)
    walk(
        HintsToValues(importer),
        sdy.PropagationBarrierOp,
        sdy.ShardingGroupOp,
        sdy.NamedComputationOp,
    )
    walk(
        LayoutToCast(importer, sums),
        sdy.ShardingConstraintOp,
        sdy.ReshardOp,
        sdy.CollectiveOp,
    )
    if importer.mesh is not None:
        walk(ArrangeManual(importer), sdy.ManualComputationOp)
    walk(PinManual(importer), sdy.ManualComputationOp)


def _census(module: ModuleOp) -> tuple[set[type[Operation]], bool]:
    """The kinds of op in ``module``, and whether any op carries an
    ``sdy.sharding`` (what ``OpShardingToCasts`` reads)."""
    kinds: set[type[Operation]] = set()
    sharded = False
    for inner in module.walk():
        kinds.add(type(inner))
        sharded = sharded or sdy.SHARDING in inner.attributes
    return kinds, sharded
