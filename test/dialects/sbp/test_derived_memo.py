"""Placements and signatures read from attributes are built once per attribute
object, and equal what a fresh build gives; the layout interface is looked
up once per op class."""

from __future__ import annotations

from xdsl.dialects import test as xdsl_test

from sbpc.algebra.placement import Placement
from sbpc.algebra.sbp import B, Partial, S
from sbpc.algebra.signature import Signature
from sbpc.dialects import sbp as sbp_dialect
from sbpc.dialects.sbp import PlacementAttr, SignatureAttr
from sbpc.dialects.sbp.placement import LayoutOpInterface, _layout_op


def test_a_placement_attribute_builds_its_placement_once() -> None:
    attr = PlacementAttr(Placement.of_size((2, 4)))
    first = attr.placement
    assert attr.placement is first
    assert first == PlacementAttr.placement.build(attr) == Placement.of_size((2, 4))


def test_many_attributes_past_the_memo_bound_stay_right() -> None:
    attrs = [PlacementAttr(Placement("cpu", (1,), (r,))) for r in range(8300)]
    assert len(PlacementAttr.placement.memo) <= PlacementAttr.placement.LIMIT
    for r, attr in enumerate(attrs):
        assert attr.placement.ranks == (r,)


def test_a_signature_attribute_builds_its_signature_once() -> None:
    sig = Signature(((S(0), B), (B, Partial())), ((S(0), Partial()),))
    attr = SignatureAttr(sig)
    assert attr.signature == sig
    assert attr.signature is attr.signature
    other = SignatureAttr(Signature(((B, B),), ((B, B),)))
    assert other.signature != attr.signature


def test_the_layout_interface_is_the_class_trait() -> None:
    x = xdsl_test.TestOp(result_types=[])
    cast = sbp_dialect.CastOp.__new__(sbp_dialect.CastOp)
    for op in (x, cast, x, cast):
        assert _layout_op(op) is type(op).get_trait(LayoutOpInterface)
    assert _layout_op(cast) is not None
    assert _layout_op(x) is None
