"""``sbp-export-sdy``: a plan written back as Shardy shardings.

After ``sbp-propagate`` (or ``sbp-lower-boxing``) every value has a layout.
This pass writes the module's placement as an ``sdy.mesh @mesh`` (axis names
from ``sbp.mesh_axes``, else ``d0``, ``d1``, ...; device ids when the ranks
are not in order), each argument's and result's layout as its
``sdy.sharding``, and each op's result layouts as
``{sdy.sharding = #sdy.sharding_per_value<[...]>}``; an ``sbp.cast`` becomes
the ``sdy.sharding_constraint`` it stands for, and where the plan moves
data (an operand's layout is not the one its user takes) an ``sdy.reshard``
to the layout the user takes, as Shardy's propagation writes it.  These are the forms
``jax.jit(...).lower`` and Shardy's propagation use.  So the plan can be
handed to Shardy/XLA, or compared with Shardy's own propagation.

Partial axes are written unreduced (``unreduced=max{...}`` for ``P(max)``).
A sharding has one reduction: a layout mixing partial kinds keeps the first
kind's axes unreduced and writes the others replicated, with a warning.  By default
the sbp annotations are removed (``keep-sbp=true`` keeps them), so a
propagated module becomes plain StableHLO with sdy; sbp collectives of a
boxed module stay, annotated like any op (the module keeps its placement
for them).  Manual computations keep their
own shardings.  One placement per module: several (pipeline stages) are an
error.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import VerifyException

from sbpc.algebra.placement import Placement
from sbpc.algebra.sbp import Broadcast, NdSbp, Partial, format_nd_sbp
from sbpc.dialects import sbp as sbp_dialect
from sbpc.dialects import sdy
from sbpc.dialects.diagnostics import LocatedError, emit

from .bridge.ops import UnsupportedTypeError, plain_type
from .bridge.sdy import MESH_AXES, mesh_axes, sharding_of

MESH_NAME = "mesh"


def _mesh_attr(placement: Placement, names: tuple[str, ...]) -> sdy.MeshAttr:
    ids = placement.ranks
    in_order = ids == tuple(range(len(ids)))
    return sdy.MeshAttr(
        list(zip(names, placement.hierarchy, strict=True)), () if in_order else ids
    )


@dataclass
class _Exporter:
    names: tuple[str, ...]
    mesh: str
    placement: Placement

    def sharding(
        self, at: Operation, value: SSAValue, nd: NdSbp
    ) -> sdy.TensorShardingAttr:
        kinds = [s.kind for s in nd if isinstance(s, Partial)]
        if len(set(kinds)) > 1:
            emit(
                "warning",
                at,
                f"layout {format_nd_sbp(nd)} mixes partial kinds, which one Shardy "
                f"sharding cannot say: only the {kinds[0]} axes are written "
                "unreduced, the others replicated",
            )
            nd = tuple(
                Broadcast() if isinstance(s, Partial) and s.kind != kinds[0] else s
                for s in nd
            )
        try:
            rank = plain_type(value.type).rank
        except UnsupportedTypeError as e:
            raise LocatedError(at, str(e)) from e
        return sharding_of(nd, self.names, self.mesh, rank)


@dataclass(frozen=True)
class SbpExportSdyPass(ModulePass):
    """Write the module's layouts as Shardy shardings."""

    name = "sbp-export-sdy"

    keep_sbp: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        placement = sbp_dialect.module_placement(op)
        if placement is None:
            raise LocatedError(op, sbp_dialect.NO_PLACEMENT)
        placements = sbp_dialect.placement_map(op)
        if any(p != placement for p in placements.values()):
            raise LocatedError(
                op, "several placements: Shardy has one mesh per value, not stages"
            )
        names = mesh_axes(op) or tuple(f"d{k}" for k in range(placement.ndim))
        if len(names) != placement.ndim:
            raise LocatedError(
                op,
                f"{MESH_AXES} names {len(names)} axes, the placement has {placement.ndim}",
            )
        try:  # the mesh attribute's own verifier says what Shardy takes
            mesh = self._mesh_op(op, placement, names)
        except VerifyException as e:
            ranks = placement.ranks
            shown = ", ".join(map(str, ranks[:8])) + (", ..." if len(ranks) > 8 else "")
            raise LocatedError(
                op, f"the placement's devices [{shown}] make no Shardy mesh: {e}"
            ) from e
        exporter = _Exporter(names, mesh, placement)
        for f in op.ops:
            if isinstance(f, func.FuncOp) and not f.is_declaration:
                self._function(f, exporter)
        # sbp ops left (a boxed module) need the placement to verify.
        sbp_ops = any(o.dialect_name() == "sbp" for o in op.walk())
        if not self.keep_sbp and not sbp_ops:
            for key in (sbp_dialect.PLACEMENT, MESH_AXES):
                op.attributes.pop(key, None)

    def _mesh_op(
        self, module: ModuleOp, placement: Placement, names: tuple[str, ...]
    ) -> str:
        """The name of an ``sdy.mesh`` of the placement, added if missing."""
        want = _mesh_attr(placement, names)
        taken = set()
        for o in module.ops:
            if isinstance(o, sdy.MeshOp):
                if o.mesh.axes == want.axes and o.mesh.ids == want.ids:
                    return o.sym_name.data
                taken.add(o.sym_name.data)
        name = MESH_NAME
        while name in taken:
            name += "_sbp"
        first = module.body.block.first_op
        mesh = sdy.MeshOp(name, want)
        if first is None:
            module.body.block.add_op(mesh)
        else:
            Rewriter.insert_op(mesh, InsertPoint.before(first))
        return name

    def _function(self, f: func.FuncOp, ex: _Exporter) -> None:
        _write_reshards(f, ex)
        for kind, attrs, values in (
            ("argument", f.arg_attrs, list(f.args)),
            ("result", f.res_attrs, None),
        ):
            n = len(
                f.function_type.inputs
                if kind == "argument"
                else f.function_type.outputs
            )
            new: list[DictionaryAttr] = []
            for i in range(n):
                entries = dict(attrs.data[i].data) if attrs is not None else {}
                nd_attr = entries.get(sbp_dialect.ND_SBP)
                if isinstance(nd_attr, sbp_dialect.NdSbpAttr):
                    value = values[i] if values is not None else _returned(f, i)
                    entries[sdy.SHARDING] = ex.sharding(f, value, nd_attr.nd_sbp)
                if not self.keep_sbp:
                    entries.pop(sbp_dialect.ND_SBP, None)
                    entries.pop(sbp_dialect.PLACEMENT, None)
                new.append(DictionaryAttr(entries))
            if kind == "argument":
                f.arg_attrs = ArrayAttr(new)
            else:
                f.res_attrs = ArrayAttr(new)
        for op in list(f.body.ops):
            if isinstance(op, sbp_dialect.CastOp) and op.placement is None:
                nd = op.nd_sbp.nd_sbp
                constraint = sdy.ShardingConstraintOp(
                    op.operands[0], ex.sharding(op, op.results[0], nd)
                )
                constraint.result.name_hint = op.results[0].name_hint
                Rewriter.replace_op(op, constraint)
                continue
            if isinstance(op, func.ReturnOp) or not op.results:
                continue
            if isinstance(op, sdy.ManualComputationOp):
                if not self.keep_sbp:
                    op.attributes.pop(sbp_dialect.SIG, None)
                continue
            layouts = [sbp_dialect.value_layout(r) for r in op.results]
            if all(nd is not None for nd in layouts):
                op.attributes[sdy.SHARDING] = sdy.TensorShardingPerValueAttr(
                    [
                        ex.sharding(op, r, nd)
                        for r, nd in zip(op.results, layouts, strict=True)
                    ]  # type: ignore[arg-type]
                )
            if not self.keep_sbp:
                op.attributes.pop(sbp_dialect.SIG, None)


def _write_reshards(f: func.FuncOp, ex: _Exporter) -> None:
    """An ``sdy.reshard`` where an operand's layout is not the one its user
    takes (the op's ``sbp.sig``, the function's result layout): where the
    plan moves data, as Shardy's propagation marks it.  One per value and
    layout."""
    made: dict[tuple[SSAValue, NdSbp], SSAValue] = {}
    for op in list(f.body.ops):
        if isinstance(op, func.ReturnOp):
            wants = [
                sbp_dialect.get_nd_sbp_res_attr(f, i) for i in range(len(op.operands))
            ]
        else:
            sig = sbp_dialect.get_signature(op)
            if sig is None or len(sig.inputs) != len(op.operands):
                continue
            wants = list(sig.inputs)
        for i, (value, want) in enumerate(zip(op.operands, wants, strict=True)):
            have = sbp_dialect.value_layout(value)
            if want is None or have is None or have == want:
                continue
            key = (value, want)
            if key not in made:
                reshard = sdy.ReshardOp(value, ex.sharding(op, value, want))
                Rewriter.insert_op(reshard, InsertPoint.before(op))
                made[key] = reshard.result
            op.operands[i] = made[key]


def _returned(f: func.FuncOp, i: int) -> SSAValue:
    ret = f.body.block.last_op
    assert isinstance(ret, func.ReturnOp)
    return ret.arguments[i]
