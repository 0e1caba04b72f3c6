"""StableHLO's windowed ops: ``reduce_window`` and ``select_and_scatter``.

Like JAX, they have only the generic syntax::

    %1 = "stablehlo.reduce_window"(%x, %init) <{base_dilations = array<i64: 1, 1>,
           padding = dense<[[0, 0], [7, 0]]> : tensor<2x2xi64>, window_dilations = ...,
           window_dimensions = array<i64: 1, 8>, window_strides = array<i64: 1, 1>}> ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %2 = stablehlo.add %a, %b : tensor<f32>
        stablehlo.return %2 : tensor<f32>
    }) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>

``reduce_window`` is what pooling (``flax.linen.max_pool``/``avg_pool``),
``jnp.cumsum`` and ``lax.cummax`` lower to; ``select_and_scatter`` is the
gradient of max pooling.  The accessors name the bodies sbpc understands:
``ReduceWindowOp.reduction_kind`` (as ``reduce``'s) and
``SelectAndScatterOp.select_direction`` / ``scatter_kind``.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    TensorType,
)
from xdsl.ir import Region
from xdsl.irdl import (
    IRDLOperation,
    SameVariadicOperandSize,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import RecursiveMemoryEffect
from xdsl.utils.exceptions import VerifyException

from .attrs import i64_array_prop, ints_view
from .base import check_body_args, check_return, element_type, shape_of
from .convolution import padding_pairs
from .elementwise import CompareOp
from .reduction import ReturnOp, combiner_kind
from .syntax import dims_text


def window_output_shape(
    shape: Sequence[int],
    window: Sequence[int],
    strides: Sequence[int],
    padding: Sequence[tuple[int, int]],
    base_dilations: Sequence[int],
    window_dilations: Sequence[int],
) -> tuple[int, ...]:
    """The spec's shape rule of ``reduce_window``."""
    out = []
    for s, w, st, (lo, hi), bd, wd in zip(
        shape, window, strides, padding, base_dilations, window_dilations, strict=True
    ):
        dilated = (s - 1) * bd + 1 if s else 0
        padded = dilated + lo + hi
        span = (w - 1) * wd + 1 if w else 0
        out.append(0 if padded < span else (padded - span) // st + 1)
    return tuple(out)


def _ones(op: _WindowAttrs) -> tuple[int, ...]:
    """An absent stride or dilation: 1 for every window dimension."""
    return (1,) * len(op.window_dimensions)


class _WindowAttrs(IRDLOperation):
    """The window attributes both ops share, with their defaults filled in."""

    window_dimensions_attr = i64_array_prop("window_dimensions", optional=True)
    window_strides_attr = i64_array_prop("window_strides", optional=True)
    padding_attr = opt_prop_def(DenseIntOrFPElementsAttr, prop_name="padding")

    window_dimensions = ints_view("window_dimensions_attr")
    window_strides = ints_view("window_strides_attr", default=_ones)

    @property
    def padding(self) -> tuple[tuple[int, int], ...]:
        attr = self.properties.get("padding")
        if isinstance(attr, DenseIntOrFPElementsAttr):
            return padding_pairs(attr)
        return ((0, 0),) * len(self.window_dimensions)

    def _window_plain(self, **rest: object) -> dict[str, object]:
        """The window attributes as plain values, then ``rest``."""
        return {
            "window_dimensions": self.window_dimensions,
            "window_strides": self.window_strides,
            "padding": self.padding,
            **rest,
        }

    def _check_window(self, rank: int, keys: Sequence[str]) -> None:
        """Each window list has one entry per operand dimension; sizes,
        strides and dilations are positive (padding may be negative)."""
        if len(self.padding) != rank:
            raise VerifyException(
                f"{self.name}: padding has {len(self.padding)} entries, the operand "
                f"has rank {rank}"
            )
        for key in keys:
            values = getattr(self, key)
            if len(values) != rank:
                raise VerifyException(
                    f"{self.name}: {key} has {len(values)} entries, the operand "
                    f"has rank {rank}"
                )
            if any(v < 1 for v in values):
                raise VerifyException(
                    f"{self.name}: {key} must be positive, got {dims_text(values)}"
                )


@irdl_op_definition
class ReduceWindowOp(_WindowAttrs):
    """``stablehlo.reduce_window``: each result element reduces one window."""

    name = "stablehlo.reduce_window"

    inputs = var_operand_def(TensorType)
    init_values = var_operand_def(TensorType)
    results_ = var_result_def(TensorType)
    base_dilations_attr = i64_array_prop("base_dilations", optional=True)
    window_dilations_attr = i64_array_prop("window_dilations", optional=True)
    body = region_def("single_block")

    irdl_options = (SameVariadicOperandSize(),)
    traits = traits_def(RecursiveMemoryEffect())

    base_dilations = ints_view("base_dilations_attr", default=_ones)
    window_dilations = ints_view("window_dilations_attr", default=_ones)

    @property
    def reduction_kind(self) -> str | None:
        """``add``/``max``/``min``/... when the body is one commutative binary op."""
        return combiner_kind(self.body)

    def plain_attrs(self) -> dict[str, object]:
        return self._window_plain(
            base_dilations=self.base_dilations,
            window_dilations=self.window_dilations,
            kind=self.reduction_kind,
        )

    def verify_(self) -> None:
        name = self.name
        n = len(self.inputs)
        if n == 0 or len(self.init_values) != n or len(self.results_) != n:
            raise VerifyException(
                f"{name}: expects N inputs, N init values and N results (N >= 1)"
            )
        if self.window_dimensions_attr is None:
            raise VerifyException(f"{name}: window_dimensions is required")
        shape = shape_of(self.inputs[0])
        self._check_window(
            len(shape),
            (
                "window_dimensions",
                "window_strides",
                "base_dilations",
                "window_dilations",
            ),
        )
        expected = window_output_shape(
            shape,
            self.window_dimensions,
            self.window_strides,
            self.padding,
            self.base_dilations,
            self.window_dilations,
        )
        for i, (x, init, r) in enumerate(
            zip(self.inputs, self.init_values, self.results_, strict=True)
        ):
            if shape_of(x) != shape:
                raise VerifyException(
                    f"{name}: input {i} differs in shape from input 0"
                )
            if shape_of(init) != ():
                raise VerifyException(f"{name}: init value {i} must be rank 0")
            if shape_of(r) != expected:
                raise VerifyException(
                    f"{name}: result {i} has shape {dims_text(shape_of(r))}, "
                    f"expected {dims_text(expected)}"
                )
            if element_type(r) != element_type(init):
                raise VerifyException(
                    f"{name}: result {i} element type differs from its init value's"
                )
        _check_body(self, self.body, 2 * n, n)


@irdl_op_definition
class SelectAndScatterOp(_WindowAttrs):
    """``stablehlo.select_and_scatter``: each source element goes to the
    position its window's ``select`` picks, combined there by ``scatter``."""

    name = "stablehlo.select_and_scatter"

    operand = operand_def(TensorType)
    source = operand_def(TensorType)
    init_value = operand_def(TensorType)
    result = result_def(TensorType)
    select = region_def("single_block")
    scatter = region_def("single_block")

    traits = traits_def(RecursiveMemoryEffect())

    @property
    def select_direction(self) -> str | None:
        """``GE``/``GT``/``LE``/``LT`` when the select body is one compare of its
        arguments in order (``GE``: the first maximum of a window wins)."""
        block = self.select.blocks.first
        if block is None or len(block.ops) != 2 or len(block.args) != 2:
            return None
        inner, ret = block.first_op, block.last_op
        if not isinstance(inner, CompareOp) or not isinstance(ret, ReturnOp):
            return None
        if tuple(inner.operands) != tuple(block.args):
            return None
        if tuple(ret.operands) != tuple(inner.results):
            return None
        direction = inner.comparison_direction
        return direction if direction in ("GE", "GT", "LE", "LT") else None

    @property
    def scatter_kind(self) -> str | None:
        return combiner_kind(self.scatter)

    def plain_attrs(self) -> dict[str, object]:
        return self._window_plain(select=self.select_direction, kind=self.scatter_kind)

    def verify_(self) -> None:
        name = self.name
        if self.window_dimensions_attr is None:
            raise VerifyException(f"{name}: window_dimensions is required")
        shape = shape_of(self.operand)
        self._check_window(len(shape), ("window_dimensions", "window_strides"))
        expected = window_output_shape(
            shape,
            self.window_dimensions,
            self.window_strides,
            self.padding,
            (1,) * len(shape),
            (1,) * len(shape),
        )
        if shape_of(self.source) != expected:
            raise VerifyException(
                f"{name}: source has shape {dims_text(shape_of(self.source))}, the "
                f"windows give {dims_text(expected)}"
            )
        if shape_of(self.init_value) != ():
            raise VerifyException(f"{name}: init value must be rank 0")
        if self.result.type != self.operand.type:
            raise VerifyException(f"{name}: result type must be the operand's")
        _check_body(self, self.select, 2, 1)
        _check_body(self, self.scatter, 2, 1)


def _check_body(op: IRDLOperation, region: Region, n_args: int, n_returns: int) -> None:
    """A body block of ``n_args`` rank-0 arguments returning ``n_returns`` values."""
    block = region.blocks.first
    if block is None or len(block.args) != n_args:
        raise VerifyException(f"{op.name}: a body must take {n_args} arguments")
    check_body_args(op, block)
    check_return(op, block, n_returns, "a body")
