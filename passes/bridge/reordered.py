"""Layouts on the mesh's axes reordered or split (Shardy's sub-axes), in the IR.

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

Sub-axes (``"x":(1)2``, ``"x":(2)2`` of an axis of 4) are the same: the
value lives on the mesh's placement with that axis split into its factors
(``Placement.refined``, the same ranks in the same order), whose mesh axes
the JAX lowering names as Shardy does (``x:(1)2``).  On the module's
placement its layout is the same with each axis whose factors do not all
split one dimension alike made ``B``.  Both at once (``[{"y", "x":(1)2}]``)
is the mesh's placement refined, then reordered.
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from sbpc.algebra.placement import Placement
from sbpc.algebra.sbp import B, NdSbp
from sbpc.dialects import sbp as sbp_dialect


def on_default(nd: NdSbp, there: Placement, default: Placement) -> NdSbp:
    """``nd`` (on ``there``, the module's placement refined, reordered or
    both) with the same axes splitting the same dimensions on ``default``;
    an axis whose factors do not all do the same is ``B``."""
    arrangement = there.arrangement_in(default)
    assert arrangement is not None, f"{there} is not {default} reordered or refined"
    factors, order = arrangement
    refined = [nd[order.index(m)] for m in range(len(order))]
    out, k = [], 0
    for f in factors:
        parts = set(refined[k : k + len(f)])
        out.append(parts.pop() if len(parts) == 1 else B)
        k += len(f)
    return tuple(out)


def reordered_casts(
    value: SSAValue, nd: NdSbp, there: Placement, default: Placement, back: NdSbp
) -> list[Operation]:
    """A layout constraint ``nd`` on ``there``: ``value`` cast there and
    back to the module's placement in ``back`` (the last result is the value)."""
    first = sbp_dialect.CastOp(value, nd, there)
    second = sbp_dialect.CastOp(first, back, default)
    second.results[0].name_hint = value.name_hint
    return [first, second]


def place_argument(
    f: func.FuncOp,
    i: int,
    nd: NdSbp,
    there: Placement,
    default: Placement,
    back: NdSbp,
) -> None:
    """Argument ``i`` given in ``nd`` on ``there``, cast to the module's
    placement in ``back`` where the body starts."""
    sbp_dialect.set_nd_sbp_arg_attr(f, i, nd)
    sbp_dialect.set_arg_attr(
        f, i, sbp_dialect.PLACEMENT, sbp_dialect.PlacementAttr(there)
    )
    arg = f.body.block.args[i]
    cast = sbp_dialect.CastOp(arg, back, default)
    cast.results[0].name_hint = arg.name_hint
    Rewriter.insert_op(cast, InsertPoint.at_start(f.body.block))
    arg.replace_uses_with_if(cast.results[0], lambda u: u.operation is not cast)


def place_result(
    f: func.FuncOp,
    i: int,
    nd: NdSbp,
    there: Placement,
    default: Placement,
    back: NdSbp | None = None,
) -> None:
    """Result ``i`` returned in ``nd`` on ``there``."""
    sbp_dialect.set_nd_sbp_res_attr(f, i, nd)
    for block in f.body.blocks:
        ret = block.last_op
        if isinstance(ret, func.ReturnOp):
            cast = sbp_dialect.CastOp(ret.operands[i], nd, there)
            Rewriter.insert_op(cast, InsertPoint.before(ret))
            ret.operands[i] = cast.results[0]
