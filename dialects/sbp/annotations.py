"""Where sbp annotations go, and how to read and write them.

DESIGN.md's IR contract puts ``sbp.placement`` on the module (the default
placement) and on func arguments (their own), ``sbp.nd_sbp`` on func
arguments (their given layout) and results (the layout the caller wants
back), and ``sbp.sig`` on any op (its signature).  These accessors are the
one place that knows those names and where func stores argument and result
attributes; they return plain ``sbpc.algebra`` values.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import lru_cache

from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    UnitAttr,
)
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Operation

from sbpc.algebra.placement import Placement
from sbpc.algebra.sbp import NdSbp
from sbpc.algebra.signature import Signature

from .attrs import NdSbpAttr, PlacementAttr, SignatureAttr

# Names of the discardable attributes the dialect gives meaning to.
ND_SBP = "sbp.nd_sbp"  # func argument / result: its layout
PLACEMENT = "sbp.placement"  # module: default placement; func argument: its own
SIG = "sbp.sig"  # any op: its SBP signature
TIED_TO = "sbp.tied_to"  # func result: the argument it returns in the layout of
# func argument: gathered before each op reading it whole (FSDP), not once
GATHER_PER_USE = "sbp.gather_per_use"

NO_PLACEMENT = "no placement: add sbp.placement to the module"

# ---------------------------------------------------------------------------
# The module's placement
# ---------------------------------------------------------------------------


def module_placement(op: Operation) -> Placement | None:
    """The default placement in force at ``op``: ``sbp.placement`` of the
    nearest enclosing (or own) module that has one, None if none has."""
    attr = module_placement_attr(op)
    return attr.placement if attr is not None else None


def module_placement_attr(op: Operation) -> PlacementAttr | None:
    cur: Operation | None = op
    while cur is not None:
        if isinstance(cur, ModuleOp):
            attr = cur.attributes.get(PLACEMENT)
            if isinstance(attr, PlacementAttr):
                return attr
        cur = cur.parent_op()
    return None


def set_module_placement(module: ModuleOp, placement: Placement) -> None:
    module.attributes[PLACEMENT] = PlacementAttr(placement)


# ---------------------------------------------------------------------------
# Func arguments and results, op signatures
# ---------------------------------------------------------------------------


def _dict_at(attrs: ArrayAttr[DictionaryAttr] | None, i: int) -> DictionaryAttr | None:
    if attrs is None or i >= len(attrs.data):
        return None
    return attrs.data[i]


def get_arg_attr(func: FuncOp, i: int, name: str) -> Attribute | None:
    d = _dict_at(func.arg_attrs, i)
    return d.data.get(name) if d is not None else None


def get_res_attr(func: FuncOp, i: int, name: str) -> Attribute | None:
    d = _dict_at(func.res_attrs, i)
    return d.data.get(name) if d is not None else None


def _with_entry(
    attrs: ArrayAttr[DictionaryAttr] | None, n: int, i: int, name: str, value: Attribute
) -> ArrayAttr[DictionaryAttr]:
    dicts = list(attrs.data) if attrs is not None else []
    dicts += [DictionaryAttr({})] * (n - len(dicts))
    entries = dict(dicts[i].data)
    entries[name] = value
    dicts[i] = DictionaryAttr(entries)
    return ArrayAttr(dicts)


def set_arg_attr(func: FuncOp, i: int, name: str, value: Attribute) -> None:
    n = len(func.function_type.inputs.data)
    func.arg_attrs = _with_entry(func.arg_attrs, n, i, name, value)


def set_res_attr(func: FuncOp, i: int, name: str, value: Attribute) -> None:
    n = len(func.function_type.outputs.data)
    func.res_attrs = _with_entry(func.res_attrs, n, i, name, value)


def get_nd_sbp_arg_attr(func: FuncOp, i: int) -> NdSbp | None:
    """``sbp.nd_sbp`` of argument ``i`` (None when absent or not an nd_sbp)."""
    attr = get_arg_attr(func, i, ND_SBP)
    return attr.nd_sbp if isinstance(attr, NdSbpAttr) else None


def get_nd_sbp_res_attr(func: FuncOp, i: int) -> NdSbp | None:
    """``sbp.nd_sbp`` of result ``i``: the layout the caller wants back."""
    attr = get_res_attr(func, i, ND_SBP)
    return attr.nd_sbp if isinstance(attr, NdSbpAttr) else None


def get_tied_to(func: FuncOp, i: int) -> int | None:
    """``sbp.tied_to`` of result ``i``: the argument whose layout it must
    come back in (state that is the next call's argument; None: untied).
    The verifier checks it names an argument of the result's type."""
    attr = get_res_attr(func, i, TIED_TO)
    return attr.value.data if isinstance(attr, IntegerAttr) else None


def set_tied_to(func: FuncOp, i: int, argument: int) -> None:
    set_res_attr(func, i, TIED_TO, IntegerAttr(argument, IntegerType(64)))


def gathered_per_use(func: FuncOp, i: int) -> bool:
    """Whether argument ``i`` carries ``sbp.gather_per_use``: stored in its
    layout, gathered anew before each op that reads it in a larger one
    (``sbp-lower-boxing``), as FSDP/ZeRO-3 does."""
    return get_arg_attr(func, i, GATHER_PER_USE) is not None


def set_gathered_per_use(func: FuncOp, i: int) -> None:
    set_arg_attr(func, i, GATHER_PER_USE, UnitAttr())


def set_nd_sbp_arg_attr(func: FuncOp, i: int, nd_sbp: NdSbp) -> None:
    set_arg_attr(func, i, ND_SBP, NdSbpAttr(nd_sbp))


def set_nd_sbp_res_attr(func: FuncOp, i: int, nd_sbp: NdSbp) -> None:
    set_res_attr(func, i, ND_SBP, NdSbpAttr(nd_sbp))


def set_nd_sbp_arg_attrs(func: FuncOp, layouts: Mapping[int, NdSbp]) -> None:
    """``sbp.nd_sbp`` of several arguments (index -> layout), with the
    argument attribute array rebuilt once rather than once per argument (a
    big model has thousands of weights)."""
    if not layouts:
        return
    n = len(func.function_type.inputs.data)
    dicts = list(func.arg_attrs.data) if func.arg_attrs is not None else []
    dicts += [DictionaryAttr({})] * (n - len(dicts))
    for i, nd_sbp in layouts.items():
        dicts[i] = DictionaryAttr({**dicts[i].data, ND_SBP: nd_sbp_attr(nd_sbp)})
    func.arg_attrs = ArrayAttr(dicts)


def get_arg_placement(func: FuncOp, i: int) -> Placement | None:
    """Argument ``i``'s placement: its ``sbp.placement``, else the module's."""
    attr = get_arg_attr(func, i, PLACEMENT)
    if isinstance(attr, PlacementAttr):
        return attr.placement
    return module_placement(func)


def get_signature(op: Operation) -> Signature | None:
    """``op``'s ``sbp.sig`` (None when absent or not a signature)."""
    attr = op.attributes.get(SIG)
    if attr is None:  # most ops before propagation: skip the (slow) ABC check
        return None
    return attr.signature if isinstance(attr, SignatureAttr) else None


def set_signature(op: Operation, signature: Signature) -> None:
    op.attributes[SIG] = signature_attr(signature)


def set_signatures(ops: Iterable[tuple[Operation, Signature]]) -> None:
    """``set_signature`` on many ops: a plan's signatures are a few shared
    objects, so each attribute is found once per object (hashing a
    signature costs more than writing it)."""
    by_id: dict[int, tuple[Signature, SignatureAttr]] = {}
    for op, signature in ops:
        known = by_id.get(id(signature))
        if known is None:  # the entry holds the signature: its id stays its own
            known = by_id[id(signature)] = (signature, signature_attr(signature))
        op.attributes[SIG] = known[1]


@lru_cache(maxsize=4096)
def nd_sbp_attr(nd_sbp: NdSbp) -> NdSbpAttr:
    """The attribute of ``nd_sbp``, built (and verified) once per layout."""
    return NdSbpAttr(nd_sbp)


@lru_cache(maxsize=4096)
def signature_attr(signature: Signature) -> SignatureAttr:
    """The attribute of ``signature``, built (and verified) once: a plan
    writes the same few signatures on thousands of ops, and attributes are
    immutable, so ops may share one."""
    return SignatureAttr(signature)
