"""``sdy.reshard``, ``sdy.constant`` and Shardy's explicit collectives.

::

    %1 = sdy.reshard %0 <@mesh, [{}, {"y"}]> : tensor<16x32xf32>
    %2 = sdy.all_gather [{}, {"x"}] %1 out_sharding=<@mesh, [{"y"}, {}]> : T
    %3 = sdy.all_slice [{"x"}, {}] %2 out_sharding=<@mesh, [{"y", "x"}, {}]> : T
    %4 = sdy.all_to_all [{"x"}: 0->1] %3 out_sharding=<@mesh, [{"y"}, {"x"}]> : T
    %5 = sdy.collective_permute %4 out_sharding=<@mesh, [{"x"}, {"y"}]> : T
    %6 = sdy.all_reduce max {"y"} %5 out_sharding=<@mesh, [{"x"}, {}]> : T
    %7 = sdy.reduce_scatter [{}, {"y"}] %6 out_sharding=<@mesh, [{"x"}, {"y"}]> : T
    %8 = sdy.sharded_to_unreduced [{"x"}, {}] %7
             out_sharding=<@mesh, [{}, {"y"}], unreduced={"x"}> : T
    %9 = sdy.replicated_to_unreduced {"x"} %8 out_sharding=<...> : T
    %c = sdy.constant dense<1.0> : tensor<8x16xf32>

Each collective's value is its operand's: it changes only how the value is
laid out (or, for ``all_reduce``/``reduce_scatter``, reduces axes over which
the operand was unreduced; the ``*_to_unreduced`` ops make axes
unreduced), to its ``out_sharding``.  The verifiers check
what Shardy's do where sbpc can tell: ranks, meshes and axes, and, when the
operand's sharding is written (a function argument's ``sdy.sharding``, an
op's ``sdy.sharding``, a reshard's or collective's), that applying the
collective's axes to it gives ``out_sharding`` (dimensions that involve
sub-axes are left to Shardy).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects import func
from xdsl.dialects.builtin import (
    DictionaryAttr,
    TensorType,
)
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    VarConstraint,
    base,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.irdl.declarative_assembly_format import (
    AttributeVariable,
    CustomDirective,
    ParsingState,
    PrintingState,
    irdl_custom_directive,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from sbpc.dialects.stablehlo.constants import DenseConstantOp

from .attrs import (
    AxisRefAttr,
    TensorShardingAttr,
    TensorShardingPerValueAttr,
)
from .axis_lists import (
    REDUCTIONS,
    AllToAllParamListAttr,
    AxisRefListAttr,
    ListOfAxisRefListsAttr,
    ReductionAttr,
)
from .mesh import mesh_of
from .ops import (
    ManualComputationOp,
    ShardingConstraintOp,
    TensorLayoutOp,
    check_in_module,
)
from .verifier import SHARDING

# --- the operand's sharding, where it is written ------------------------------


def sharding_of_value(value: SSAValue) -> TensorShardingAttr | None:
    """The sharding ``value`` is written with, if any (Shardy's getSharding)."""
    if isinstance(value, BlockArgument):
        f = value.block.parent_op()
        if not isinstance(f, func.FuncOp) or f.arg_attrs is None:
            return None
        d = f.arg_attrs.data[value.index]
        s = d.data.get(SHARDING) if isinstance(d, DictionaryAttr) else None
        return s if isinstance(s, TensorShardingAttr) else None
    op = value.owner
    if isinstance(op, ReshardOp | ShardingConstraintOp):
        return op.sharding
    if isinstance(op, CollectiveOp):
        return op.out_sharding
    if isinstance(op, ManualComputationOp):
        return op.out_shardings.shardings.data[value.index]
    per_value = op.attributes.get(SHARDING)
    if isinstance(per_value, TensorShardingPerValueAttr) and len(
        per_value.shardings.data
    ) == len(op.results):
        return per_value.shardings.data[value.index]
    return None


def _surely_unsharded(value: SSAValue) -> bool:
    """No sharding is written for ``value`` where Shardy would look for one:
    a function argument, or the result of a plain tensor op (not one whose
    regions or dialect may carry it otherwise)."""
    if isinstance(value, BlockArgument):
        return isinstance(value.block.parent_op(), func.FuncOp)
    op = value.owner
    return (
        op.dialect_name() in ("stablehlo", "chlo", "arith")
        and not op.regions
        and SHARDING not in op.attributes
    )


def _dims(s: TensorShardingAttr) -> list[list[str]]:
    return [[a.text() for a in d.axes.data] for d in s.dims.data]


def _has_sub(refs: Sequence[str]) -> bool:
    return any(":" in r for r in refs)


# --- checks -------------------------------------------------------------------


def _check_axes(
    op: Operation, s: TensorShardingAttr, refs: Sequence[AxisRefAttr]
) -> None:
    """The collective's axes are axes of ``s``'s mesh, each once."""
    mesh = mesh_of(op, s) if op.parent_op() is not None else None
    sizes = dict(mesh.axes) if mesh is not None else None
    seen: set[str] = set()
    for r in refs:
        if sizes is not None and r.axis.data not in sizes:
            raise VerifyException(f'{op.name}: unknown axis name "{r.axis.data}"')
        if r.text() in seen:
            raise VerifyException(f"{op.name}: duplicate axis ref: {r.text()}")
        seen.add(r.text())


# --- ops -------------------------------------------------------------------------


@irdl_op_definition
class ReshardOp(TensorLayoutOp):
    """``%r = sdy.reshard %x <@mesh, [...]> : T``: ``x`` laid out anew.

    Shardy's propagation writes it where a value's layout must change; the
    value itself is unchanged.
    """

    name = "sdy.reshard"

    traits = traits_def(Pure())


@irdl_op_definition
class ConstantOp(DenseConstantOp):
    """``%c = sdy.constant dense<...> : T``: a constant Shardy does not fold,
    so each use may be laid out on its own (to sbpc, a constant).  It reads
    and prints as ``stablehlo.constant``."""

    name = "sdy.constant"

    traits = traits_def(Pure())


class CollectiveOp(IRDLOperation):
    """A collective: ``tensor`` laid out (or reduced) as ``out_sharding`` says."""

    # all_slice, all_reduce and reduce_scatter take an operand without a
    # sharding as replicated; the others need to know how it is split.
    NEEDS_OPERAND_SHARDING: ClassVar[bool] = True

    T: ClassVar = VarConstraint("T", base(TensorType))
    tensor = operand_def(T)
    result = result_def(T)
    out_sharding = prop_def(TensorShardingAttr)

    traits = traits_def(Pure())

    def axis_refs(self) -> list[AxisRefAttr]:
        """The axes the collective runs over."""
        return []

    def expected(
        self, dims: list[list[str]], operand: TensorShardingAttr
    ) -> list[list[str]] | None:
        """The result's dimension shardings from the operand's (None: not checked)."""
        return None

    def verify_(self) -> None:
        s = self.out_sharding
        check_in_module(self, s, self.result.type)
        _check_axes(self, s, self.axis_refs())
        operand = sharding_of_value(self.tensor)
        if self.parent_op() is None:
            return
        if operand is None:
            if self.NEEDS_OPERAND_SHARDING and _surely_unsharded(self.tensor):
                raise VerifyException(
                    f"{self.name}: collective on operand without sharding"
                )
            return
        if not self._same_mesh(operand):
            raise VerifyException(
                f"{self.name}: result mesh does not match operand mesh"
            )
        want = self.expected(_dims(operand), operand)
        if want is None:
            return
        got = _dims(s)
        for d, (w, g) in enumerate(zip(want, got, strict=True)):
            if w != g and not _has_sub(w + g):
                raise VerifyException(
                    f"{self.name}: result sharding doesn't match expected sharding "
                    f"[{', '.join(w)}] on dimension {d}"
                )

    def _same_mesh(self, operand: TensorShardingAttr) -> bool:
        if operand.mesh == self.out_sharding.mesh:
            return True
        a, b = mesh_of(self, operand), mesh_of(self, self.out_sharding)
        return a is not None and b is not None and a.axes == b.axes and a.ids == b.ids

    def _rank(self, n: int, what: str) -> None:
        rank = len(self.out_sharding.dims.data)
        if n != rank:
            raise VerifyException(
                f"{self.name}: result sharding has rank {rank} but {what} has rank {n}"
            )


class _PerDimOp(CollectiveOp):
    """A collective with one axis list per dimension, in the property named
    ``AXES``; it adds them to each dimension's sharding, or with ``GATHERS``
    takes them off its end (``WORD`` names them in diagnostics)."""

    AXES: ClassVar[str]
    WORD: ClassVar[str]
    GATHERS: ClassVar[bool]

    def per_dim(self) -> tuple[tuple[AxisRefAttr, ...], ...]:
        return getattr(self, self.AXES).per_dim

    def expected(self, dims, operand):
        return self._apply(dims, self.WORD, gather=self.GATHERS)

    def axis_refs(self) -> list[AxisRefAttr]:
        return [a for axes in self.per_dim() for a in axes]

    def verify_(self) -> None:
        self._rank(len(self.per_dim()), "collective axes")
        super().verify_()

    def _apply(
        self, dims: list[list[str]], word: str, gather: bool
    ) -> list[list[str]] | None:
        out = []
        for d, (have, axes) in enumerate(zip(dims, self.per_dim(), strict=True)):
            names = [a.text() for a in axes]
            if not gather:
                out.append(have + names)
                continue
            if _has_sub(have + names):
                out.append(have)
                continue
            if names and have[len(have) - len(names) :] != names:
                raise VerifyException(
                    f"{self.name}: can't apply {word} axis {names[0]} to operand "
                    f"sharding on dimension {d}"
                )
            out.append(have[: len(have) - len(names)])
        return out


@irdl_custom_directive
class Reduction(CustomDirective):
    """``max``/``min`` before the axes; nothing for the default, ``sum``."""

    reduction: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        pos = parser.pos
        word = parser.parse_optional_identifier()
        if word is None:
            return
        if word not in REDUCTIONS:
            parser.raise_error(
                f"expected a reduction ({', '.join(REDUCTIONS)}) or the axes, got "
                f"'{word}'",
                pos,
                parser.pos,
            )
        self.reduction.set(state, ReductionAttr(word))

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        attr = self.reduction.get(op)
        if isinstance(attr, ReductionAttr) and attr.kind.data != "sum":
            state.print_whitespace(printer)
            printer.print_string(attr.kind.data)


_OUT = "`out_sharding` `` `=` `` $out_sharding attr-dict `:` type($result)"


@irdl_op_definition
class AllGatherOp(_PerDimOp):
    """Gathers each dimension over the axes listed for it (a suffix of the
    axes splitting it)."""

    name = "sdy.all_gather"

    AXES: ClassVar[str] = "gathering_axes"
    WORD: ClassVar[str] = "gathering"
    GATHERS: ClassVar[bool] = True

    gathering_axes = prop_def(ListOfAxisRefListsAttr)

    assembly_format = f"$gathering_axes $tensor {_OUT}"


@irdl_op_definition
class AllSliceOp(_PerDimOp):
    """Slices each dimension further over the axes listed for it."""

    NEEDS_OPERAND_SHARDING: ClassVar[bool] = False

    name = "sdy.all_slice"

    AXES: ClassVar[str] = "slicing_axes"
    WORD: ClassVar[str] = "slicing"
    GATHERS: ClassVar[bool] = False

    slicing_axes = prop_def(ListOfAxisRefListsAttr)

    assembly_format = f"$slicing_axes $tensor {_OUT}"


@irdl_op_definition
class ReduceScatterOp(_PerDimOp):
    """Reduces over the listed axes and scatters each dimension over them."""

    NEEDS_OPERAND_SHARDING: ClassVar[bool] = False

    name = "sdy.reduce_scatter"

    AXES: ClassVar[str] = "reduce_scatter_axes"
    WORD: ClassVar[str] = "reduce-scatter"
    GATHERS: ClassVar[bool] = False

    reduce_scatter_axes = prop_def(ListOfAxisRefListsAttr)
    reduction_op = prop_def(ReductionAttr, default_value=ReductionAttr("sum"))

    custom_directives = (Reduction,)
    assembly_format = (
        f"custom<Reduction>($reduction_op) $reduce_scatter_axes $tensor {_OUT}"
    )


@irdl_op_definition
class ShardedToUnreducedOp(_PerDimOp):
    """Makes sharded axes unreduced: each device's piece in place, zeros
    elsewhere (an ``all_reduce`` over the axes is an ``all_gather``)."""

    name = "sdy.sharded_to_unreduced"

    AXES: ClassVar[str] = "axes"
    WORD: ClassVar[str] = "shard-to-unreduce"
    GATHERS: ClassVar[bool] = True

    axes = prop_def(ListOfAxisRefListsAttr)

    assembly_format = f"$axes $tensor {_OUT}"


@irdl_op_definition
class ReplicatedToUnreducedOp(CollectiveOp):
    """Makes replicated axes unreduced (an ``all_reduce`` over them gives the
    operand back); the dimension shardings stay."""

    name = "sdy.replicated_to_unreduced"

    axes = prop_def(AxisRefListAttr)

    assembly_format = f"$axes $tensor {_OUT}"

    def axis_refs(self) -> list[AxisRefAttr]:
        return list(self.axes.refs)

    def verify_(self) -> None:
        if not self.axes.refs:
            raise VerifyException(f"{self.name}: r2u axes must not be empty")
        super().verify_()

    def expected(self, dims, operand):
        taken = {r for d in dims for r in d}
        for a in self.axes.refs:
            if a.text() in taken:
                raise VerifyException(
                    f"{self.name}: r2u axis {a.text()} overlaps with operand "
                    "dimension sharding"
                )
        return dims


@irdl_op_definition
class AllToAllOp(CollectiveOp):
    """Moves each parameter's axes from the end of its source dimension's
    sharding to the end of its target dimension's."""

    name = "sdy.all_to_all"

    params = prop_def(AllToAllParamListAttr)

    assembly_format = f"$params $tensor {_OUT}"

    def axis_refs(self) -> list[AxisRefAttr]:
        return [a for p in self.params.params.data for a in p.axes.data]

    def verify_(self) -> None:
        params = self.params.params.data
        if not params:
            raise VerifyException(f"{self.name}: parameter list is empty")
        rank = len(self.out_sharding.dims.data)
        used: set[int] = set()
        srcs = [p.src for p in params]
        for p in params:
            for d in (p.src, p.tgt):
                if d >= rank:
                    raise VerifyException(
                        f"{self.name}: dimension {d} is out of range for rank {rank}"
                    )
                if d in used:
                    raise VerifyException(
                        f"{self.name}: overlapping source/target dimensions in "
                        f"all-to-all params: {d}"
                    )
                used.add(d)
        if srcs != sorted(srcs):
            raise VerifyException(f"{self.name}: source dimensions are not sorted")
        super().verify_()

    def expected(self, dims, operand):
        out = [list(d) for d in dims]
        for p in self.params.params.data:
            names = [a.text() for a in p.axes.data]
            have = dims[p.src]
            if _has_sub(have + names + dims[p.tgt]):
                return None
            if have[len(have) - len(names) :] != names:
                raise VerifyException(
                    f"{self.name}: can't apply all-to-all axis {names[0]} to operand "
                    f"sharding on dimension {p.src}"
                )
            out[p.src] = have[: len(have) - len(names)]
            out[p.tgt] = dims[p.tgt] + names
        return out


@irdl_op_definition
class CollectivePermuteOp(CollectiveOp):
    """Sends pieces between devices: each dimension stays split into as many
    pieces, by other axes or in another order."""

    name = "sdy.collective_permute"

    assembly_format = f"$tensor {_OUT}"

    def _same_mesh(self, operand: TensorShardingAttr) -> bool:
        # It may also reorder the devices: a mesh of the same axes will do.
        a, b = mesh_of(self, operand), mesh_of(self, self.out_sharding)
        return a is not None and b is not None and a.axes == b.axes

    def expected(self, dims, operand):
        mesh = mesh_of(self, operand)
        if mesh is None:
            return None
        sizes = dict(mesh.axes)

        def count(d) -> int:
            return math.prod(
                a.sub_axis[1] if a.sub_axis else sizes.get(a.axis.data, 1)
                for a in d.axes.data
            )

        for k, (a, b) in enumerate(
            zip(operand.dims.data, self.out_sharding.dims.data, strict=True)
        ):
            if count(a) != count(b):
                raise VerifyException(
                    f"{self.name}: dimension {k} is split into {count(a)} pieces "
                    f"by the operand's sharding and {count(b)} by the result's"
                )
        return None


@irdl_op_definition
class AllReduceOp(CollectiveOp):
    """Reduces over ``reduction_axes`` (axes the operand is unreduced over);
    the dimension shardings stay."""

    NEEDS_OPERAND_SHARDING: ClassVar[bool] = False

    name = "sdy.all_reduce"

    reduction_axes = prop_def(AxisRefListAttr)
    reduction_op = prop_def(ReductionAttr, default_value=ReductionAttr("sum"))

    custom_directives = (Reduction,)
    assembly_format = f"custom<Reduction>($reduction_op) $reduction_axes $tensor {_OUT}"

    def axis_refs(self) -> list[AxisRefAttr]:
        return list(self.reduction_axes.refs)

    def verify_(self) -> None:
        unreduced = {a.text() for a in self.out_sharding.unreduced.data}
        for a in self.reduction_axes.refs:
            if a.text() in unreduced:
                raise VerifyException(
                    f"{self.name}: reduction axis {a.text()} overlaps with result "
                    "unreduced axes"
                )
        super().verify_()

    def expected(self, dims, operand):
        taken = {r for d in dims for r in d}
        taken |= {a.text() for a in operand.replicated.data}
        for a in self.reduction_axes.refs:
            if a.text() in taken:
                raise VerifyException(
                    f"{self.name}: reduction axis {a.text()} overlaps with operand "
                    "dimension sharding or replicated axes"
                )
        return dims


COLLECTIVES = (
    AllGatherOp,
    AllSliceOp,
    AllToAllOp,
    CollectivePermuteOp,
    AllReduceOp,
    ReduceScatterOp,
    ShardedToUnreducedOp,
    ReplicatedToUnreducedOp,
)

__all__ = [
    "COLLECTIVES",
    "AllGatherOp",
    "AllReduceOp",
    "AllSliceOp",
    "AllToAllOp",
    "CollectiveOp",
    "CollectivePermuteOp",
    "ConstantOp",
    "ReduceScatterOp",
    "ReplicatedToUnreducedOp",
    "ReshardOp",
    "ShardedToUnreducedOp",
    "sharding_of_value",
]
