"""The whole-module check of sbp annotations, run by ``sbpc-opt`` after parsing.

Op verifiers see only a few hops of dataflow; this one sees the module:
``sbp.placement`` on the module, ``sbp.nd_sbp``/``sbp.placement`` on func
arguments and results, ``sbp.sig`` on ops, every sbp op against the
placement in force, and that each op computes on one placement.  A problem
raises ``LocatedError`` naming the op at fault (the ``func.func`` for
argument and result attributes).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import cast

from xdsl.dialects.builtin import IntegerAttr, ModuleOp
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.utils.exceptions import VerifyException

from sbpc.algebra.placement import Placement
from sbpc.algebra.sbp import format_nd_sbp
from sbpc.dialects.diagnostics import LocatedError

from .annotations import (
    ND_SBP,
    NO_PLACEMENT,
    PLACEMENT,
    SIG,
    TIED_TO,
    get_arg_attr,
    get_arg_placement,
    get_res_attr,
    module_placement,
)
from .attrs import NdSbpAttr, PlacementAttr, SignatureAttr
from .checks import InvalidLayout, check_layout, is_tensor
from .ops import CollectiveOp, LayoutOp, TransferOp
from .placement import PlacementMap, placement_in_force, placement_map


def verify_sbp_annotations(module: ModuleOp) -> PlacementMap:
    """Check every sbp annotation of ``module``; raise ``LocatedError`` at the op
    at fault (the func.func for argument/result attributes).  Returns the
    placement of every value, which the check had to compute anyway."""
    ops = list(module.walk())
    for op in ops:
        if _is_a(type(op), ModuleOp) and PLACEMENT in op.attributes:
            attr = op.attributes[PLACEMENT]
            if not isinstance(attr, PlacementAttr):
                raise LocatedError(
                    op,
                    f"{PLACEMENT} on the module must be a #sbp.placement<...> "
                    f"attribute, got {attr}",
                )
    placements = placement_map(module, ops)
    # On one placement no op can compute on two: the per-op check is moot.
    uniform = placements.is_uniform()
    # The signatures found to fit, by identity (``_verify_sig``).
    fitted: dict[tuple[int, ...], Placement] = {}
    for op in ops:
        cls = type(op)
        try:
            if _is_a(cls, FuncOp):
                _verify_func(cast(FuncOp, op), placements)
            layout_op = _is_a(cls, LayoutOp)
            if layout_op:
                _verify_layout_op(cast(LayoutOp, op), placements)
            if SIG in op.attributes:
                _verify_sig(op, placements, uniform, fitted)
            elif not (uniform or layout_op or _is_a(cls, ReturnOp)):
                _verify_same_placement(op, placements)
        except InvalidLayout as err:
            raise LocatedError(op, str(err)) from err
    return placements


def _need_placement(op: Operation, placement: Placement | None) -> Placement:
    if placement is None:
        raise InvalidLayout(NO_PLACEMENT)
    return placement


def _layout_attrs(
    p_attr: Attribute | None, nd_attr: Attribute | None, where: str
) -> tuple[PlacementAttr | None, NdSbpAttr | None]:
    """Check the kinds of an argument's or result's placement and nd_sbp attributes."""
    if p_attr is not None and not isinstance(p_attr, PlacementAttr):
        raise InvalidLayout(
            f"{PLACEMENT} of {where} must be a #sbp.placement<...> attribute, "
            f"got {p_attr}"
        )
    if nd_attr is not None and not isinstance(nd_attr, NdSbpAttr):
        raise InvalidLayout(
            f"{ND_SBP} of {where} must be an #sbp.nd<[...]> attribute, got {nd_attr}"
        )
    return p_attr, nd_attr


def _verify_func(func: FuncOp, placements: PlacementMap) -> None:
    inputs = func.function_type.inputs.data
    for i, ty in enumerate(inputs):
        where = f"argument {i}"
        p_attr, nd_attr = _layout_attrs(
            get_arg_attr(func, i, PLACEMENT), get_arg_attr(func, i, ND_SBP), where
        )
        if nd_attr is None:
            continue
        placement = _need_placement(func, get_arg_placement(func, i))
        check_layout(nd_attr.nd_sbp, ty, placement, f"{ND_SBP} of {where}:")
    returned = _returned_values(func)
    for i, ty in enumerate(func.function_type.outputs.data):
        where = f"result {i}"
        p_attr, nd_attr = _layout_attrs(
            get_res_attr(func, i, PLACEMENT), get_res_attr(func, i, ND_SBP), where
        )
        _verify_tie(func, i, ty, nd_attr)
        if nd_attr is None:
            continue
        if isinstance(p_attr, PlacementAttr):
            placement = p_attr.placement
        elif returned is not None and i < len(returned):
            placement = placements.get(returned[i]) or module_placement(func)
        else:
            placement = module_placement(func)
        placement = _need_placement(func, placement)
        check_layout(nd_attr.nd_sbp, ty, placement, f"{ND_SBP} of {where}:")


def _verify_tie(func: FuncOp, i: int, ty: Attribute, nd_attr: NdSbpAttr | None) -> None:
    """``sbp.tied_to`` of result ``i`` names an argument of its type, and
    the two are not given different layouts."""
    attr = get_res_attr(func, i, TIED_TO)
    if attr is None:
        return
    inputs = func.function_type.inputs.data
    if not isinstance(attr, IntegerAttr) or not 0 <= attr.value.data < len(inputs):
        raise InvalidLayout(
            f"{TIED_TO} of result {i} must be the index of an argument "
            f"(0 to {len(inputs) - 1}), got {attr}"
        )
    arg = attr.value.data
    if inputs[arg] != ty:
        raise InvalidLayout(
            f"result {i} ({ty}) is tied to argument {arg} of another type "
            f"({inputs[arg]})"
        )
    given = get_arg_attr(func, arg, ND_SBP)
    if (
        nd_attr is not None
        and isinstance(given, NdSbpAttr)
        and given.nd_sbp != nd_attr.nd_sbp
    ):
        raise InvalidLayout(
            f"result {i} is tied to argument {arg} but is given another layout "
            f"({format_nd_sbp(nd_attr.nd_sbp)} against "
            f"{format_nd_sbp(given.nd_sbp)})"
        )


def _returned_values(func: FuncOp) -> Sequence[SSAValue] | None:
    block = func.body.first_block
    if block is None or not isinstance(block.last_op, ReturnOp):
        return None
    return block.last_op.operands


@cache
def _is_a(cls: type[Operation], kind: type[Operation]) -> bool:
    """``issubclass``, once per pair: op classes are abstract base classes,
    whose isinstance checks cost more than the rest of the walk."""
    return issubclass(cls, kind)


def _verify_sig(
    op: Operation,
    placements: PlacementMap,
    uniform: bool,
    fitted: dict[tuple[int, ...], Placement],
) -> None:
    """``op``'s ``sbp.sig`` fits its operands and results on its placement.

    ``fitted``: the (signature, placement, types) already found to fit, by
    identity (a plan writes a few shared signature attributes on thousands
    of ops of a few shared types).  The module holds the attributes and
    types while the check runs and ``fitted`` holds the placements, so an id
    stays its object's."""
    attr = op.attributes[SIG]
    if not isinstance(attr, SignatureAttr):
        raise InvalidLayout(f"{SIG} must be an #sbp.sig<...> attribute, got {attr}")
    sig = attr.signature
    sides = (("operand", sig.inputs, op.operands), ("result", sig.outputs, op.results))
    for what, layouts, values in sides:
        if len(layouts) != len(values):
            raise InvalidLayout(
                f"signature has {len(layouts)} {what} layouts but the op has "
                f"{len(values)} {what}s"
            )
    placement = _need_placement(op, placement_in_force(op, placements))
    if not uniform:
        _verify_same_placement(op, placements)
    key = (
        id(attr),
        id(placement),
        *(id(v.type) for v in op.operands),
        *(id(v.type) for v in op.results),
    )
    if key in fitted:
        return
    for what, layouts, values in sides:
        for i, (nd, v) in enumerate(zip(layouts, values, strict=True)):
            check_layout(nd, v.type, placement, f"signature: layout of {what} {i}")
    fitted[key] = placement


def _verify_same_placement(op: Operation, placements: PlacementMap) -> None:
    """An op computes on one placement: all its tensor operands live there
    (constants live wherever they are used)."""
    if not op.results:
        return
    seen: tuple[int, Placement] | None = None
    for i, v in enumerate(op.operands):
        p = placements.get(v)
        if p is None or v in placements.floating or not is_tensor(v):
            continue
        if seen is None:
            seen = (i, p)
        elif p != seen[1]:
            raise InvalidLayout(
                f"operands live on different placements: operand {seen[0]} on "
                f"{PlacementAttr(seen[1])}, operand {i} on {PlacementAttr(p)}; "
                "move one with sbp.cast ... on or sbp.transfer"
            )


def _verify_layout_op(op: LayoutOp, placements: PlacementMap) -> None:
    try:
        op.verify_types()
    except VerifyException as err:
        raise InvalidLayout(str(err)) from err
    placement = placement_in_force(op, placements)
    if not isinstance(op, TransferOp):
        placement = _need_placement(op, placement)
    if isinstance(op, CollectiveOp) and op.placement is not None:
        here = placements.get(op.input)
        floating = op.input in placements.floating
        if here is not None and not floating and here != op.placement.placement:
            raise InvalidLayout(
                f"{op.name} on {op.placement}, but its operand lives on "
                f"{PlacementAttr(here)}; move it with sbp.transfer first"
            )
    op.verify_layouts(placement)
