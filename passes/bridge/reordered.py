"""Layouts that split by mesh axes in another order than the mesh's, in the IR.

JAX's ``P(("y", "x"))`` (Shardy's ``[{"y", "x"}]``) on a mesh ``("x", "y")``
lays its pieces over the devices y-major.  No nd_sbp on the mesh's placement
says that (its hierarchy dim 0, ``x``, cuts first), but one on the same
devices with the axes reordered does: ``[S(0), S(0)]`` on
``Placement.permuted(order)``, the rank array transposed.  Such a value
lives on that placement and moves to and from the module's one by
``sbp.cast ... on`` (a transfer), where the same axes split the same
dimensions in mesh order; ops run on the module's placement.  The JAX
lowering names the reordered placement's mesh axes in its order, so the
emitted ``IN_SPECS``/``OUT_SPECS`` are the user's (``placement_axes``).
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from sbpc.algebra.placement import Placement
from sbpc.algebra.sbp import NdSbp
from sbpc.dialects import sbp as sbp_dialect

Order = tuple[int, ...]  # mesh axis order[k] is hierarchy dim k


def is_reordered(order: Order) -> bool:
    return order != tuple(range(len(order)))


def in_mesh_order(nd: NdSbp, order: Order) -> NdSbp:
    """``nd`` (on the axes in ``order``) with the same axes splitting the
    same dimensions, on the mesh's own order."""
    return tuple(nd[order.index(m)] for m in range(len(order)))


def reordered_casts(
    value: SSAValue, nd: NdSbp, order: Order, default: Placement
) -> list[Operation]:
    """A layout constraint ``nd`` on the reordered placement: ``value`` cast
    there and back to the module's placement (the last result is the value)."""
    there = sbp_dialect.CastOp(value, nd, default.permuted(order))
    back = sbp_dialect.CastOp(there, in_mesh_order(nd, order), default)
    back.results[0].name_hint = value.name_hint
    return [there, back]


def place_argument(
    f: func.FuncOp, i: int, nd: NdSbp, order: Order, default: Placement
) -> None:
    """Argument ``i`` given in ``nd`` on the reordered placement, cast to the
    module's placement where the body starts."""
    sbp_dialect.set_nd_sbp_arg_attr(f, i, nd)
    sbp_dialect.set_arg_attr(
        f, i, sbp_dialect.PLACEMENT, sbp_dialect.PlacementAttr(default.permuted(order))
    )
    arg = f.body.block.args[i]
    cast = sbp_dialect.CastOp(arg, in_mesh_order(nd, order), default)
    cast.results[0].name_hint = arg.name_hint
    Rewriter.insert_op(cast, InsertPoint.at_start(f.body.block))
    arg.replace_uses_with_if(cast.results[0], lambda u: u.operation is not cast)


def place_result(
    f: func.FuncOp, i: int, nd: NdSbp, order: Order, default: Placement
) -> None:
    """Result ``i`` returned in ``nd`` on the reordered placement."""
    sbp_dialect.set_nd_sbp_res_attr(f, i, nd)
    for block in f.body.blocks:
        ret = block.last_op
        if isinstance(ret, func.ReturnOp):
            cast = sbp_dialect.CastOp(ret.operands[i], nd, default.permuted(order))
            Rewriter.insert_op(cast, InsertPoint.before(ret))
            ret.operands[i] = cast.results[0]
