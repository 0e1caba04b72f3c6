"""StableHLO's indexed ops: ``gather`` and ``scatter``.

Like JAX, they have only the generic syntax
(``"stablehlo.gather"(%x, %idx) <{dimension_numbers = #stablehlo.gather<...>,
...}> : (...) -> R``), so no parser or printer of their own.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from xdsl.dialects.builtin import IntegerAttr, TensorType
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    SameVariadicOperandSize,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import Pure, RecursiveMemoryEffect
from xdsl.utils.exceptions import VerifyException

from .attrs import (
    GatherDimensionNumbersAttr,
    ScatterDimensionNumbersAttr,
    flag_view,
    i64_array_prop,
    ints_view,
    plain_views,
)
from .base import (
    check_alike,
    check_return,
    check_slice_sizes,
    check_unique_in_range,
    element_type,
    shape_of,
)
from .reduction import ReturnOp, combiner_body, combiner_kind
from .syntax import dims_text


@irdl_op_definition
class GatherOp(IRDLOperation):
    """``stablehlo.gather``; like JAX, it only has the generic syntax.

    ``"stablehlo.gather"(%x, %idx) <{dimension_numbers = #stablehlo.gather<...>,
    indices_are_sorted = false, slice_sizes = array<i64: 1, 16>}> : (...) -> R``
    """

    name = "stablehlo.gather"

    operand = operand_def(TensorType)
    start_indices = operand_def(TensorType)
    result = result_def(TensorType)
    dimension_numbers = prop_def(GatherDimensionNumbersAttr)
    slice_sizes_attr = i64_array_prop("slice_sizes")
    indices_are_sorted_attr = opt_prop_def(IntegerAttr, prop_name="indices_are_sorted")

    traits = traits_def(Pure())

    slice_sizes = ints_view("slice_sizes_attr")
    indices_are_sorted = flag_view("indices_are_sorted_attr")

    def plain_attrs(self) -> dict[str, object]:
        return {**self.dimension_numbers.plain(), **plain_views(self)}

    def verify_(self) -> None:
        numbers = self.dimension_numbers
        shape = shape_of(self.operand)
        sizes = self.slice_sizes
        check_slice_sizes(self, sizes, shape)
        for d in numbers.collapsed_slice_dims + numbers.operand_batching_dims:
            if not 0 <= d < len(shape) or sizes[d] > 1:
                raise VerifyException(
                    f"{self.name}: collapsed/batching dimension {d} must be in range "
                    f"and have slice size at most 1"
                )
        index_shape = shape_of(self.start_indices)
        if not 0 <= numbers.index_vector_dim <= len(index_shape):
            raise VerifyException(
                f"{self.name}: index_vector_dim {numbers.index_vector_dim} is out of "
                f"range for start indices of rank {len(index_shape)}"
            )
        expected = gather_result_shape(index_shape, numbers, sizes)
        if shape_of(self.result) != expected:
            raise VerifyException(
                f"{self.name}: result shape {dims_text(shape_of(self.result))} should "
                f"be {dims_text(expected)}"
            )


def gather_result_shape(
    index_shape: Sequence[int],
    numbers: GatherDimensionNumbersAttr,
    slice_sizes: Sequence[int],
) -> tuple[int, ...]:
    """The spec's shape rule: batch dims of the indices, offset dims of the slice."""
    batch = [s for d, s in enumerate(index_shape) if d != numbers.index_vector_dim]
    dropped = set(numbers.collapsed_slice_dims) | set(numbers.operand_batching_dims)
    offsets = [s for d, s in enumerate(slice_sizes) if d not in dropped]
    offset_dims = numbers.offset_dims
    rank = len(batch) + len(offset_dims)
    shape: list[int] = []
    batch_iter, offset_iter = iter(batch), iter(offsets)
    for d in range(rank):
        source = offset_iter if d in offset_dims else batch_iter
        shape.append(next(source, -1))
    return tuple(shape)


@irdl_op_definition
class ScatterOp(IRDLOperation):
    """``stablehlo.scatter``; like JAX, it only has the generic syntax.

    ``"stablehlo.scatter"(%x, %idx, %upd) <{indices_are_sorted = false,
    scatter_dimension_numbers = #stablehlo.scatter<...>, unique_indices = false}>
    ({ ^bb0(%a: tensor<f32>, %b: tensor<f32>): ... }) : (X, I, U) -> X``

    The body combines the current element (first argument) with the update
    (second).  StableHLO allows N inputs and N updates; only N = 1 verifies.
    """

    name = "stablehlo.scatter"

    inputs = var_operand_def(TensorType)
    scatter_indices = operand_def(TensorType)
    updates = var_operand_def(TensorType)
    results_ = var_result_def(TensorType)
    scatter_dimension_numbers = prop_def(ScatterDimensionNumbersAttr)
    indices_are_sorted_attr = opt_prop_def(IntegerAttr, prop_name="indices_are_sorted")
    unique_indices_attr = opt_prop_def(IntegerAttr, prop_name="unique_indices")
    update_computation = region_def("single_block")

    irdl_options = (SameVariadicOperandSize(),)
    traits = traits_def(RecursiveMemoryEffect())

    def __init__(
        self,
        operand: SSAValue | Operation,
        scatter_indices: SSAValue | Operation,
        updates: SSAValue | Operation,
        scatter_dimension_numbers: ScatterDimensionNumbersAttr,
        update_computation: Region,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
        result_type: Attribute | None = None,
        attributes: dict[str, Attribute] | None = None,
    ):
        operand = SSAValue.get(operand)
        super().__init__(
            operands=[
                [operand],
                SSAValue.get(scatter_indices),
                [SSAValue.get(updates)],
            ],
            result_types=[[result_type or operand.type]],
            properties={
                "indices_are_sorted": IntegerAttr.from_bool(indices_are_sorted),
                "scatter_dimension_numbers": scatter_dimension_numbers,
                "unique_indices": IntegerAttr.from_bool(unique_indices),
            },
            regions=[update_computation],
            attributes=attributes,
        )

    @classmethod
    def of_kind(
        cls,
        kind: str,
        operand: SSAValue | Operation,
        scatter_indices: SSAValue | Operation,
        updates: SSAValue | Operation,
        scatter_dimension_numbers: ScatterDimensionNumbersAttr,
        **kwargs: Any,
    ) -> ScatterOp:
        """A scatter whose body is ``REDUCTION_OPS[kind]`` or, for ``replace``,
        returns the update."""
        operand = SSAValue.get(operand)
        scalar = TensorType(element_type(operand), [])
        if kind == "replace":
            block = Block(arg_types=[scalar, scalar])
            block.add_op(ReturnOp([block.args[1]]))
            body = Region(block)
        else:
            body = combiner_body(kind, scalar)
        return cls(
            operand,
            scatter_indices,
            updates,
            scatter_dimension_numbers,
            body,
            **kwargs,
        )

    @property
    def operand(self) -> SSAValue:
        return self.inputs[0]

    @property
    def update(self) -> SSAValue:
        return self.updates[0]

    @property
    def result(self) -> SSAValue:
        return self.results_[0]

    indices_are_sorted = flag_view("indices_are_sorted_attr")
    unique_indices = flag_view("unique_indices_attr")

    def plain_attrs(self) -> dict[str, object]:
        numbers = self.scatter_dimension_numbers.plain()
        return {**numbers, **plain_views(self), "kind": self.combiner_kind}

    @property
    def combiner_kind(self) -> str | None:
        """``add``/``mul``/``max``/``min``/``and``/``or``/``xor``, ``replace``
        (the body returns the update, as ``x.at[i].set(u)`` emits), or None."""
        block = self.update_computation.blocks.first
        if block is not None and len(block.args) == 2 and len(block.ops) == 1:
            ret = block.first_op
            if isinstance(ret, ReturnOp) and tuple(ret.operands) == (block.args[1],):
                return "replace"
        return combiner_kind(self.update_computation)

    def verify_(self) -> None:
        name = self.name
        if len(self.inputs) != 1 or len(self.results_) != 1:
            raise VerifyException(
                f"{name}: only single-operand scatter is supported, got "
                f"{len(self.inputs)} inputs and {len(self.results_)} results"
            )
        numbers = self.scatter_dimension_numbers
        shape, index_shape = shape_of(self.operand), shape_of(self.scatter_indices)
        update_shape = shape_of(self.update)
        rank, index_rank = len(shape), len(index_shape)
        uwd, iwd = numbers.update_window_dims, numbers.inserted_window_dims
        ibd, sibd = numbers.input_batching_dims, numbers.scatter_indices_batching_dims
        sdod, ivd = numbers.scatter_dims_to_operand_dims, numbers.index_vector_dim
        if shape_of(self.result) != shape or element_type(self.result) != element_type(
            self.operand
        ):
            raise VerifyException(
                f"{name}: result type {self.result.type} differs from the operand's "
                f"{self.operand.type}"
            )
        check_alike(
            self, self.update, self.operand, "updates and operand", shapes=False
        )
        if not 0 <= ivd <= index_rank:
            raise VerifyException(
                f"{name}: index_vector_dim {ivd} is out of range for scatter indices "
                f"of rank {index_rank}"
            )
        check_unique_in_range(name, "update window dimension", uwd, len(update_shape))
        check_unique_in_range(name, "inserted window dimension", iwd, rank)
        check_unique_in_range(name, "input batching dimension", ibd, rank)
        check_unique_in_range(
            name, "scatter indices batching dimension", sibd, index_rank
        )
        check_unique_in_range(name, "scatter_dims_to_operand_dims entry", sdod, rank)
        if list(uwd) != sorted(uwd) or list(iwd) != sorted(iwd):
            raise VerifyException(
                f"{name}: update_window_dims and inserted_window_dims must be sorted"
            )
        if set(iwd) & set(ibd) or set(sdod) & set(ibd):
            raise VerifyException(
                f"{name}: input batching dimensions may be neither inserted window "
                f"dimensions nor scattered to"
            )
        if ivd in sibd:
            raise VerifyException(
                f"{name}: index_vector_dim {ivd} cannot be a batching dimension"
            )
        if len(ibd) != len(sibd):
            raise VerifyException(
                f"{name}: {len(ibd)} input batching dimensions but {len(sibd)} "
                f"scatter indices batching dimensions"
            )
        if rank != len(uwd) + len(iwd) + len(ibd):
            raise VerifyException(
                f"{name}: operand rank {rank} should be the number of update window "
                f"({len(uwd)}), inserted window ({len(iwd)}) and input batching "
                f"({len(ibd)}) dimensions"
            )
        vector = index_shape[ivd] if ivd < index_rank else 1
        if len(sdod) != vector:
            raise VerifyException(
                f"{name}: scatter_dims_to_operand_dims has {len(sdod)} entries but "
                f"the index vector has {vector}"
            )
        for d, i in zip(ibd, sibd, strict=True):
            if shape[d] != index_shape[i]:
                raise VerifyException(
                    f"{name}: batching dimension sizes differ: operand dimension {d} "
                    f"is {shape[d]}, scatter indices dimension {i} is {index_shape[i]}"
                )
        scatter_sizes = [s for d, s in enumerate(index_shape) if d != ivd]
        if len(update_shape) != len(uwd) + len(scatter_sizes):
            raise VerifyException(
                f"{name}: updates rank {len(update_shape)} should be "
                f"{len(uwd) + len(scatter_sizes)} (window plus scatter dimensions)"
            )
        window = iter(d for d in range(rank) if d not in iwd and d not in ibd)
        batch = iter(scatter_sizes)
        for d, size in enumerate(update_shape):
            if d in uwd:
                od = next(window)
                if size > shape[od]:
                    raise VerifyException(
                        f"{name}: update window dimension {d} has size {size}, larger "
                        f"than operand dimension {od} ({shape[od]})"
                    )
            elif size != (want := next(batch)):
                raise VerifyException(
                    f"{name}: update scatter dimension {d} has size {size}, the "
                    f"scatter indices say {want}"
                )
        block = self.update_computation.blocks.first
        assert block is not None
        if len(block.args) != 2 or any(shape_of(a.type) != () for a in block.args):
            raise VerifyException(
                f"{name}: update_computation must take two rank-0 tensors"
            )
        check_return(self, block, 1)
