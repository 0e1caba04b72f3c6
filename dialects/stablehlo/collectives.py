"""StableHLO's collectives, as JAX prints them inside ``sdy.manual_computation``.

``all_reduce``, ``all_gather``, ``reduce_scatter``, ``all_to_all`` and
``collective_permute`` have no custom syntax in StableHLO: JAX prints them in
the generic form, with device groups as dense ``i64`` tensors::

    %4 = "stablehlo.all_reduce"(%3) <{channel_handle = #stablehlo.channel_handle<
        handle = 1, type = 1>, replica_groups = dense<[[0, 1], [2, 3]]> :
        tensor<2x2xi64>, use_global_device_ids}> ({ ^bb0(...): ... }) : ...

The ops keep every property and their reduction body; ``groups`` gives the
device groups as plain tuples and ``reduction_kind`` the body's combiner.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    IntegerAttr,
    IntegerType,
    Signedness,
    TensorType,
    UnitAttr,
)
from xdsl.ir import Attribute, ParametrizedAttribute
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.traits import RecursiveMemoryEffect
from xdsl.utils.exceptions import VerifyException

from .base import shape_of
from .reduction import combiner_kind
from .syntax import dims_text, parse_int_struct


@irdl_attr_definition
class ChannelHandleAttr(ParametrizedAttribute):
    """``#stablehlo.channel_handle<handle = 1, type = 1>``."""

    name = "stablehlo.channel_handle"

    handle: IntegerAttr
    type: IntegerAttr

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        values = parse_int_struct(parser, {"handle": "int", "type": "int"})
        return (
            IntegerAttr(int(values.get("handle", 0)), 64),  # type: ignore[arg-type]
            IntegerAttr(int(values.get("type", 0)), 64),  # type: ignore[arg-type]
        )

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(
            f"<handle = {self.handle.value.data}, type = {self.type.value.data}>"
        )


def _pairs(attr: DenseIntOrFPElementsAttr, what: str) -> tuple[tuple[int, ...], ...]:
    shape = attr.get_shape()
    if shape is None or len(shape) != 2:
        raise VerifyException(f"{what} must be a rank-2 tensor, got {attr.type}")
    values = [int(v) for v in attr.get_values()]
    width = shape[1]
    return tuple(tuple(values[i * width : (i + 1) * width]) for i in range(shape[0]))


class _Collective(IRDLOperation):
    """Shared accessors: operands, results, groups, the body's combiner."""

    operands_ = var_operand_def(TensorType)
    results_ = var_result_def(TensorType)
    channel_handle = opt_prop_def(ChannelHandleAttr)

    traits = traits_def(RecursiveMemoryEffect())

    @property
    def groups(self) -> tuple[tuple[int, ...], ...]:
        """The device groups (``replica_groups``), one tuple per group."""
        attr = self.properties.get("replica_groups")
        assert isinstance(attr, DenseIntOrFPElementsAttr)
        return _pairs(attr, f"{self.name}: replica_groups")

    @property
    def reduction_kind(self) -> str | None:
        """``add``/``max``/``min``/... of a one-op body, else None."""
        return combiner_kind(self.regions[0]) if self.regions else None

    def verify_(self) -> None:
        if len(self.operands_) != len(self.results_):
            raise VerifyException(
                f"{self.name}: {len(self.operands_)} operands but "
                f"{len(self.results_)} results"
            )
        if "replica_groups" in self.properties:
            groups = self.groups
            flat = [d for g in groups for d in g if d >= 0]
            if len(set(flat)) != len(flat):
                raise VerifyException(
                    f"{self.name}: a device appears in two replica groups"
                )

    def group_size(self) -> int | None:
        """Devices per replica group, None where the groups do not say (none
        given: every device; or padded with -1)."""
        if "replica_groups" not in self.properties:
            return None
        groups = self.groups
        if not groups or not groups[0] or any(d < 0 for g in groups for d in g):
            return None
        return len(groups[0])

    def dimension(self, prop: str) -> int:
        """The op's dimension ``prop``, checked against each operand's rank."""
        attr = self.properties[prop]
        assert isinstance(attr, IntegerAttr)
        dim = attr.value.data
        for value in self.operands_:
            rank = len(shape_of(value))
            if not 0 <= dim < rank:
                raise VerifyException(
                    f"{self.name}: {prop} {dim} is out of range for an operand "
                    f"of rank {rank}"
                )
        return dim

    def check_results(self, dims: dict[int, Callable[[int], int | None]]) -> None:
        """Each result is its operand with dimension ``d`` sized ``dims[d](n)``
        (None: not checked) and its rank and other sizes unchanged."""
        for value, res in zip(self.operands_, self.results_, strict=True):
            shape = shape_of(value)
            want = [dims[d](n) if d in dims else n for d, n in enumerate(shape)]
            got = shape_of(res)
            if len(got) != len(shape) or any(
                w is not None and w != g for w, g in zip(want, got, strict=False)
            ):
                text = ", ".join("?" if w is None else str(w) for w in want)
                raise VerifyException(
                    f"{self.name}: result shape {dims_text(got)} should be "
                    f"[{text}] for operand shape {dims_text(shape)}"
                )


def _scaled(factor: int | None, divide: bool = False) -> Callable[[int], int | None]:
    """A dimension's size times (or divided by) ``factor``; None when unknown."""

    def size(n: int) -> int | None:
        if factor is None or n < 0:
            return None
        return n // factor if divide else n * factor

    return size


def _check_divides(op: _Collective, dim: int, pieces: int | None, prop: str) -> None:
    """Each operand's dimension ``dim`` splits into ``pieces`` equal pieces."""
    if pieces is None:
        return
    for value in op.operands_:
        n = shape_of(value)[dim]
        if n >= 0 and n % pieces:
            raise VerifyException(
                f"{op.name}: {prop} {dim} has size {n}, not a multiple of "
                f"{pieces} (the devices it is split over)"
            )


class _GroupedCollective(_Collective):
    """A collective over ``replica_groups`` (device ids when
    ``use_global_device_ids``)."""

    replica_groups = prop_def(DenseIntOrFPElementsAttr)
    use_global_device_ids = opt_prop_def(UnitAttr)


class _ReducingCollective(_GroupedCollective):
    """A grouped collective that combines its pieces with its body."""

    computation = region_def("single_block")


@irdl_op_definition
class AllReduceOp(_ReducingCollective):
    name = "stablehlo.all_reduce"


@irdl_op_definition
class AllGatherOp(_GroupedCollective):
    name = "stablehlo.all_gather"

    all_gather_dim = prop_def(IntegerAttr)

    def verify_(self) -> None:
        super().verify_()
        dim = self.dimension("all_gather_dim")
        self.check_results({dim: _scaled(self.group_size())})


@irdl_op_definition
class ReduceScatterOp(_ReducingCollective):
    name = "stablehlo.reduce_scatter"

    scatter_dimension = prop_def(IntegerAttr)

    def verify_(self) -> None:
        super().verify_()
        dim = self.dimension("scatter_dimension")
        _check_divides(self, dim, self.group_size(), "scatter_dimension")
        self.check_results({dim: _scaled(self.group_size(), divide=True)})


@irdl_op_definition
class AllToAllOp(_Collective):
    name = "stablehlo.all_to_all"

    split_dimension = prop_def(IntegerAttr)
    concat_dimension = prop_def(IntegerAttr)
    split_count = prop_def(IntegerAttr)
    replica_groups = prop_def(DenseIntOrFPElementsAttr)

    def verify_(self) -> None:
        super().verify_()
        split = self.dimension("split_dimension")
        concat = self.dimension("concat_dimension")
        count = self.split_count.value.data
        if count < 1:
            raise VerifyException(f"{self.name}: split_count must be positive")
        size = self.group_size()
        if size is not None and size != count:
            raise VerifyException(
                f"{self.name}: split_count {count} differs from the replica "
                f"groups' size {size}"
            )
        _check_divides(self, split, count, "split_dimension")
        if split == concat:
            self.check_results({split: lambda n: n})
        else:
            self.check_results(
                {split: _scaled(count, divide=True), concat: _scaled(count)}
            )


@irdl_op_definition
class CollectivePermuteOp(_Collective):
    name = "stablehlo.collective_permute"

    source_target_pairs = prop_def(DenseIntOrFPElementsAttr)

    @property
    def pairs(self) -> tuple[tuple[int, ...], ...]:
        return _pairs(self.source_target_pairs, f"{self.name}: source_target_pairs")

    def verify_(self) -> None:
        super().verify_()
        if any(len(p) != 2 for p in self.pairs):
            raise VerifyException(f"{self.name}: source_target_pairs must be Nx2")


MANUAL_COMPUTATION = "sdy.manual_computation"


@irdl_op_definition
class PartitionIdOp(IRDLOperation):
    """``%0 = stablehlo.partition_id : tensor<ui32>``: the running device's id
    (JAX's ``axis_index`` inside ``shard_map`` reads it), meaningful only in
    per-device code, a manual computation's body (outside one, only where
    nothing reads it: ``sbp-import-sdy`` drops it)."""

    name = "stablehlo.partition_id"

    output = result_def(TensorType)

    assembly_format = "attr-dict `:` type($output)"

    def verify_(self) -> None:
        t = self.output.type
        ui32 = IntegerType(32, Signedness.UNSIGNED)
        if not isinstance(t, TensorType) or shape_of(t) or t.element_type != ui32:
            raise VerifyException(f"{self.name}: result must be tensor<ui32>, got {t}")
        parent = self.parent_op()
        while parent is not None and parent.name != MANUAL_COMPUTATION:
            parent = parent.parent_op()
        if parent is None and self.output.uses:
            raise VerifyException(
                f"{self.name} read outside a manual computation (shard_map) is "
                "not supported: sbpc compiles a global-view program, where no "
                "device id exists (each device would hold a different value, not "
                "a piece of one array); read it inside sdy.manual_computation"
            )


COLLECTIVE_OPS = (
    AllReduceOp,
    AllGatherOp,
    ReduceScatterOp,
    AllToAllOp,
    CollectivePermuteOp,
)
