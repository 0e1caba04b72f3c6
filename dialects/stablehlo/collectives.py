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

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    IntegerAttr,
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
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.traits import RecursiveMemoryEffect
from xdsl.utils.exceptions import VerifyException

from .reduction import combiner_kind
from .syntax import parse_int_struct


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


@irdl_op_definition
class ReduceScatterOp(_ReducingCollective):
    name = "stablehlo.reduce_scatter"

    scatter_dimension = prop_def(IntegerAttr)


@irdl_op_definition
class AllToAllOp(_Collective):
    name = "stablehlo.all_to_all"

    split_dimension = prop_def(IntegerAttr)
    concat_dimension = prop_def(IntegerAttr)
    split_count = prop_def(IntegerAttr)
    replica_groups = prop_def(DenseIntOrFPElementsAttr)


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


COLLECTIVE_OPS = (
    AllReduceOp,
    AllGatherOp,
    ReduceScatterOp,
    AllToAllOp,
    CollectivePermuteOp,
)
