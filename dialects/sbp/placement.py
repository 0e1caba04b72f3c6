"""Placement resolution: where every value lives, and the layouts the IR fixes.

A value lives on the placement its definition names (``sbp.cast ... on``,
``sbp.transfer``, a collective's ``on``, a func argument's
``sbp.placement``), else on that of the values it is computed from, else on
the module's.  Constants, and values computed from constants only, float:
they live wherever they are used.  ``value_placement`` answers for one value
(cheaply, with a hop budget, for op verifiers); ``placement_map`` for a whole
module in one walk.

The sbp ops say what they fix through ``LayoutOpInterface``, so this module
reads them without depending on their definitions (the ops' verifiers in turn
use the resolution here).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence

from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.ir import Block, BlockArgument, Operation, OpResult, SSAValue
from xdsl.traits import OpTrait

from sbpc.algebra.placement import Placement
from sbpc.algebra.sbp import NdSbp

from .annotations import (
    PLACEMENT,
    SIG,
    get_arg_attr,
    get_nd_sbp_arg_attr,
    module_placement,
)
from .attrs import PlacementAttr, SignatureAttr
from .checks import is_tensor


class LayoutOpInterface(OpTrait, ABC):
    """An op that fixes its result's layout and may name its placement.

    Implemented by every sbp op (cast, collectives, transfer); others say
    nothing about layouts except through ``sbp.sig``.
    """

    @abstractmethod
    def result_layout(self, op: Operation) -> NdSbp:
        """The layout ``op``'s result has."""

    @abstractmethod
    def named_placement(self, op: Operation) -> Placement | None:
        """The placement ``op`` puts its result on, None when it names none."""


_LAYOUT_TRAIT: dict[type[Operation], LayoutOpInterface | None] = {}


def _layout_op(op: Operation) -> LayoutOpInterface | None:
    """The op's ``LayoutOpInterface``; traits belong to the op class, so it is
    looked up once per class (a trait search per value was a third of
    ``placement_map``)."""
    cls = type(op)
    try:
        return _LAYOUT_TRAIT[cls]
    except KeyError:
        trait = _LAYOUT_TRAIT[cls] = cls.get_trait(LayoutOpInterface)
        return trait


def _explicit_placement(value: SSAValue) -> Placement | None:
    """The placement ``value``'s definition names, None when it names none."""
    if isinstance(value, OpResult):
        op = value.op
        interface = _layout_op(op)
        return None if interface is None else interface.named_placement(op)
    if isinstance(value, BlockArgument):
        func = _entry_block_func(value.block)
        if func is not None:
            attr = get_arg_attr(func, value.index, PLACEMENT)
            if isinstance(attr, PlacementAttr):
                return attr.placement
    return None


def _entry_block_func(block: Block) -> FuncOp | None:
    parent = block.parent_op()
    if isinstance(parent, FuncOp) and parent.body.first_block is block:
        return parent
    return None


def _placement_sources(value: SSAValue) -> tuple[list[SSAValue], bool]:
    """The tensor values ``value`` inherits its placement from, and whether
    ``value`` is a function argument (which lives on the module's placement)."""
    if isinstance(value, OpResult):
        return [v for v in value.op.operands if is_tensor(v)], False
    parent = value.block.parent_op()
    if parent is None or isinstance(parent, FuncOp):
        return [], True
    # Region arguments (loop-carried values): the enclosing op's placement.
    return [v for v in parent.operands if is_tensor(v)], False


def _owner(value: SSAValue) -> Operation | None:
    return value.op if isinstance(value, OpResult) else value.block.parent_op()


# (placement, floating): a floating value (a constant, or computed from
# constants only) has no placement of its own; it lives where it is used.
Resolved = tuple[Placement | None, bool]


def _combine(value: SSAValue, sources: Sequence[Resolved], is_arg: bool) -> Resolved:
    for placement, floating in sources:
        if not floating:
            return placement, False
    if sources:
        return sources[0]
    owner = _owner(value)
    default = module_placement(owner) if owner is not None else None
    return default, not is_arg


def resolve_placement(value: SSAValue, budget: list[int]) -> Resolved | None:
    """(placement, floating) of ``value`` by bounded depth-first search; None
    when ``budget`` (a one-element list, decremented per value visited) runs out."""
    explicit = _explicit_placement(value)
    if explicit is not None:
        return explicit, False
    sources, is_arg = _placement_sources(value)
    resolved: list[Resolved] = []
    for src in sources:
        budget[0] -= 1
        if budget[0] < 0:
            return None
        got = resolve_placement(src, budget)
        if got is None:
            return None
        resolved.append(got)
        if not got[1]:
            break  # the first operand with a placement of its own decides
    return _combine(value, resolved, is_arg)


def value_placement(value: SSAValue, max_hops: int | None = None) -> Placement | None:
    """The placement ``value`` lives on.

    Explicit where the IR names one (``sbp.cast ... on``, ``sbp.transfer``, a
    collective's ``on``, a func argument's ``sbp.placement``); a func argument
    without one lives on the module's placement; any other value on that of
    the first of its defining op's tensor operands (the enclosing op's, for
    region arguments) that has a placement of its own.  Constants, and values
    computed from constants only, have none: they take the module's here, and
    ``placement_map`` marks them ``floating``.

    With ``max_hops``, gives up (None) after visiting that many values, so
    local verifiers stay cheap; without, falls back to ``placement_map``.
    """
    got = resolve_placement(value, [64 if max_hops is None else max_hops])
    if got is not None:
        return got[0]
    if max_hops is not None:
        return None
    top = _owner(value)
    while top is not None and top.parent_op() is not None:
        top = top.parent_op()
    if isinstance(top, ModuleOp):
        return placement_map(top).get(value)
    return None


class PlacementMap(dict[SSAValue, Placement]):
    """Placement of every value of a module; ``floating`` holds the values that
    have none of their own (constants and what is computed from them only).

    With ``everywhere`` set, every value not entered lives on that one
    placement (``placement_map``'s answer for a module that names no other:
    most modules, whose values then need not be walked one by one)."""

    def __init__(self, everywhere: Placement | None = None) -> None:
        super().__init__()
        self.floating: set[SSAValue] = set()
        self.everywhere = everywhere

    def __missing__(self, value: SSAValue) -> Placement:
        if self.everywhere is None:
            raise KeyError(value)
        return self.everywhere

    def __contains__(self, value: object) -> bool:
        return self.everywhere is not None or dict.__contains__(self, value)

    def get(  # type: ignore[override]  # an SSAValue key, a placement default
        self, value: SSAValue, default: Placement | None = None
    ) -> Placement | None:
        found = dict.get(self, value)
        if found is not None:
            return found
        return self.everywhere if self.everywhere is not None else default

    def is_uniform(self) -> bool:
        """Whether every value lives on one placement (no op can then compute
        on two): most modules, and a cheap question (placements are shared
        objects)."""
        distinct = {id(p): p for p in self.values()}
        if self.everywhere is not None:
            distinct[id(self.everywhere)] = self.everywhere
        return len(set(distinct.values())) <= 1


def placement_map(
    module: ModuleOp, ops: Sequence[Operation] | None = None
) -> PlacementMap:
    """Placement of every value of ``module`` (the rules of ``value_placement``),
    in one forward walk (``ops``: ``module.walk()`` when the caller has it).
    A module that names no placement but its own gets a map that answers
    that one for every value (``PlacementMap.everywhere``; its ``floating``
    is empty: a constant used there lives there)."""
    walked = list(module.walk()) if ops is None else ops
    single = _single_placement(module, walked)
    if single is not None:
        return PlacementMap(single)
    return walked_placement_map(walked)


def walked_placement_map(walked: Sequence[Operation]) -> PlacementMap:
    """``placement_map`` value by value, over a module's ops in walk order."""
    out = PlacementMap()
    floating = out.floating

    def resolved(value: SSAValue) -> Resolved:
        if value in out:
            return out[value], value in floating
        got = resolve_placement(value, [1 << 30])  # defined later (graph regions): rare
        assert got is not None
        return got

    def record(value: SSAValue, placement: Placement | None, floats: bool) -> None:
        if placement is not None:
            out[value] = placement
        if floats:
            floating.add(value)

    def inherited(op: Operation) -> Resolved:
        """(placement, floating) of ``op``'s results when ``op`` names none:
        ``_combine`` over its tensor operands, the first one with a
        placement of its own deciding."""
        first: Resolved | None = None
        for v in op.operands:
            if is_tensor(v):
                got = resolved(v)
                if not got[1]:
                    return got[0], False
                first = first or got
        if first is not None:
            return first
        return module_placement(op), True

    for op in walked:
        for region in op.regions:
            for block in region.blocks:
                for arg in block.args:
                    explicit = _explicit_placement(arg)
                    if explicit is not None:
                        record(arg, explicit, False)
                    else:
                        sources, is_arg = _placement_sources(arg)
                        record(
                            arg, *_combine(arg, [resolved(v) for v in sources], is_arg)
                        )
        if not op.results:
            continue
        interface = _layout_op(op)
        named = interface.named_placement(op) if interface is not None else None
        placement, floats = (named, False) if named is not None else inherited(op)
        for res in op.results:
            record(res, placement, floats)
    if floating and not out.is_uniform():
        _settle_floating(walked, out)
    return out


def _single_placement(module: ModuleOp, ops: Sequence[Operation]) -> Placement | None:
    """The module's placement when nothing in it names another (no sbp op
    ``on`` one, no argument's ``sbp.placement``, no inner module's): then
    every value lives there, constants included, and ``placement_map`` need
    not resolve them one by one (a fifth of a second on an 8-layer decoder's
    training step, resolved four times per ``sbpc.jax.distribute``).  None
    when the module has none, or something names another."""
    default = module_placement(module)
    if default is None:
        return None

    def other(attr: object) -> bool:
        return isinstance(attr, PlacementAttr) and attr.placement != default

    for op in ops:
        interface = _layout_op(op)
        if interface is not None:
            named = interface.named_placement(op)
            if named is not None and named != default:
                return None
        elif isinstance(op, FuncOp):
            for attrs in op.arg_attrs.data if op.arg_attrs is not None else ():
                if other(attrs.data.get(PLACEMENT)):
                    return None
        elif isinstance(op, ModuleOp) and other(op.attributes.get(PLACEMENT)):
            return None
    return default


# Ops that name the placement their result moves to (their operand stays).
_MOVING_OPS = frozenset({"sbp.cast", "sbp.transfer"})


def _settle_floating(ops: Sequence[Operation], out: PlacementMap) -> None:
    """A floating value lives where it is used: the placement of its first
    user that computes on one (``sbp-pipeline`` gives each stage its own
    copy of a constant).  Walked backwards, so a chain of floating ops
    follows its last user."""
    for op in reversed(ops):
        results = op.results
        if not results or not all(r in out.floating for r in results):
            continue
        for r in results:
            for use in r.uses:
                user = use.operation
                interface = _layout_op(user)
                named = None if interface is None else interface.named_placement(user)
                if named is not None:
                    if user.name in _MOVING_OPS:  # names the target, not the source
                        continue
                    for res in results:
                        out[res] = named
                    break
                if user.results and user.results[0] in out:
                    for res in results:
                        out[res] = out[user.results[0]]
                    break
            else:
                continue
            break


def placement_in_force(
    op: Operation, placements: dict[SSAValue, Placement] | None = None
) -> Placement | None:
    """The placement ``op`` computes on: an sbp op's own ``on`` (the target of a
    transfer), else that of its first tensor operand with a placement of its
    own, else the module's."""
    interface = _layout_op(op)
    if interface is not None:
        named = interface.named_placement(op)
        if named is not None:
            return named
    if (
        isinstance(placements, PlacementMap)
        and placements.everywhere is not None
        and not dict.__len__(placements)
    ):
        return placements.everywhere  # one placement, no value entered since
    floating = placements.floating if isinstance(placements, PlacementMap) else set()
    first: Placement | None = None
    for operand in op.operands:
        if not is_tensor(operand):
            continue
        if placements is not None and operand in placements:
            here = placements[operand]
            if operand not in floating:
                return here
            first = first or here
        else:
            got = resolve_placement(operand, [64])
            if got is None:
                return value_placement(operand)
            if not got[1]:
                return got[0]
            first = first or got[0]
    if first is None and placements is not None and op.results:
        # Made from no tensor (a constant): where its value was settled.
        first = placements.get(op.results[0])
    return first or module_placement(op)


def value_layout(value: SSAValue) -> NdSbp | None:
    """The layout ``value`` is known to have, from its definition alone.

    ``sbp.cast``/collectives/``sbp.transfer`` results, results of an op with
    ``sbp.sig``, and func arguments with ``sbp.nd_sbp``; None otherwise.
    """
    if isinstance(value, OpResult):
        op = value.op
        if (interface := _layout_op(op)) is not None:
            return interface.result_layout(op)
        sig = op.attributes.get(SIG)
        if isinstance(sig, SignatureAttr) and value.index < len(sig.outputs.data):
            return sig.outputs.data[value.index].nd_sbp
        return None
    if isinstance(value, BlockArgument):
        func = _entry_block_func(value.block)
        if func is not None:
            return get_nd_sbp_arg_attr(func, value.index)
        # A region whose arguments mirror its op's operands (a loop's carried
        # values): the argument has the layout the op's signature gives it.
        parent = value.block.parent_op()
        sig = parent.attributes.get(SIG) if parent is not None else None
        if (
            isinstance(sig, SignatureAttr)
            and len(value.block.args) == len(parent.operands)
            and value.index < len(sig.inputs.data)
            and all(
                a.type == o.type
                for a, o in zip(value.block.args, parent.operands, strict=True)
            )
        ):
            return sig.inputs.data[value.index].nd_sbp
    return None
