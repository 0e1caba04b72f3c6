"""sbp attributes: round trips, Python API, verifiers, parse errors at the bad token."""

from __future__ import annotations

import re

import pytest
from xdsl.dialects.builtin import (
    ArrayAttr,
    IntAttr,
    StringAttr,
)
from xdsl.utils.exceptions import ParseError, VerifyException

from sbpc.algebra.placement import Placement
from sbpc.algebra.sbp import B, Partial, S
from sbpc.algebra.signature import Signature
from sbpc.dialects.sbp import (
    NdSbpAttr,
    PlacementAttr,
    SignatureAttr,
)

ATTR_ROUND_TRIPS = [
    "#sbp.nd<[S(0)]>",
    "#sbp.nd<[S(0), B, P(sum)]>",
    "#sbp.nd<[P(max), P(min), S(3)]>",
    "#sbp.placement<cuda, [0, 1, 2, 3]>",
    "#sbp.placement<cuda, [[0, 1, 2, 3], [4, 5, 6, 7]]>",
    "#sbp.placement<cpu, [[[0], [1]], [[2], [3]]]>",
    "#sbp.placement<cuda, [7]>",
    '#sbp.placement<"gpu:a100", [0, 1]>',
    "#sbp.sig<([S(0), B], [B, S(1)]) -> ([S(0), S(1)])>",
    "#sbp.sig<([P(sum)]) -> ([B], [P(max)])>",
    "#sbp.sig<() -> ([B])>",
    "#sbp.sig<() -> ()>",
]


@pytest.mark.parametrize("text", ATTR_ROUND_TRIPS)
def test_attribute_round_trip(attr, text: str) -> None:
    parsed = attr(text)
    assert str(parsed) == text
    assert attr(str(parsed)) == parsed


def test_device_kind_may_be_a_string(attr) -> None:
    assert str(attr('#sbp.placement<"cpu", [0]>')) == "#sbp.placement<cpu, [0]>"


@pytest.mark.parametrize(
    ("params", "message"),
    [
        (
            lambda: [
                StringAttr("cuda"),
                ArrayAttr([IntAttr(2)]),
                ArrayAttr([IntAttr(0), IntAttr(0)]),
            ],
            "rank 0 appears more than once",
        ),
        (
            lambda: [
                StringAttr("cuda"),
                ArrayAttr([IntAttr(3)]),
                ArrayAttr([IntAttr(0)]),
            ],
            "hierarchy [3] does not hold 1 ranks",
        ),
    ],
)
def test_placement_attr_verifies_when_built_generically(params, message) -> None:
    with pytest.raises(VerifyException, match=re.escape(message)):
        PlacementAttr.new(params())


def test_nd_sbp_and_signature_attrs_verify_when_built_generically() -> None:
    with pytest.raises(VerifyException, match="not canonical"):
        NdSbpAttr.new([ArrayAttr([StringAttr("P")])])
    with pytest.raises(VerifyException, match="at least one entry"):
        NdSbpAttr.new([ArrayAttr([])])
    with pytest.raises(VerifyException, match="expected an SBP"):
        NdSbpAttr.new([ArrayAttr([StringAttr("X")])])
    with pytest.raises(VerifyException, match="same length, got 1, 2"):
        SignatureAttr.new([ArrayAttr([NdSbpAttr([B])]), ArrayAttr([NdSbpAttr([B, B])])])


def test_partial_defaults_to_sum(attr) -> None:
    a = attr("#sbp.nd<[P, B]>")
    assert str(a) == "#sbp.nd<[P(sum), B]>"
    assert a == attr("#sbp.nd<[P(sum), B]>")
    assert str(attr("#sbp.sig<([P]) -> ([P])>")) == "#sbp.sig<([P(sum)]) -> ([P(sum)])>"


def test_whitespace_is_free(attr) -> None:
    assert str(attr("#sbp.nd< [ S( 1 ) ,B ] >")) == "#sbp.nd<[S(1), B]>"


def test_nd_sbp_attr_python_api(attr) -> None:
    a = NdSbpAttr((S(0), B, Partial("max")))
    assert a.nd_sbp == (S(0), B, Partial("max"))
    assert len(a) == 3
    assert str(a) == "#sbp.nd<[S(0), B, P(max)]>"
    assert NdSbpAttr([S(1)]) == attr("#sbp.nd<[S(1)]>")


def test_placement_attr_python_api(attr) -> None:
    p = Placement.from_nested("cuda", [[0, 1, 2, 3], [4, 5, 6, 7]])
    a = PlacementAttr(p)
    assert a.placement == p
    assert a.placement.hierarchy == (2, 4)
    assert a == attr("#sbp.placement<cuda, [[0, 1, 2, 3], [4, 5, 6, 7]]>")
    assert str(PlacementAttr(Placement.of_size(2))) == "#sbp.placement<cpu, [0, 1]>"


def test_signature_attr_python_api() -> None:
    sig = Signature(((S(0), B), (B, S(1))), ((S(0), S(1)),))
    a = SignatureAttr(sig)
    assert a.signature == sig
    assert str(a) == "#sbp.sig<([S(0), B], [B, S(1)]) -> ([S(0), S(1)])>"


PARSE_ERRORS = [
    # (text, message, column of the offending token)
    ("#sbp.nd<[S(x)]>", "expected a split axis (a non-negative integer)", 12),
    ("#sbp.nd<[S(0), Q]>", "unknown SBP 'Q', expected S(<axis>), B, P", 16),
    (
        "#sbp.nd<[P(avg)]>",
        "unknown partial kind 'avg', expected one of sum, max, min",
        12,
    ),
    ("#sbp.nd<[P(3)]>", "expected a partial kind (sum, max or min)", 12),
    ("#sbp.nd<[S(-1)]>", "split axis must be non-negative, got -1", 12),
    ("#sbp.nd<[S 0]>", "Expected '(' after 'S'", 12),
    ("#sbp.nd<[S(0]>", "Expected ')' to close S(<axis>)", 13),
    ("#sbp.nd<S(0)>", "expected '[' to start an nd_sbp", 9),
    ("#sbp.nd<[S(0), B>", "Expected ']' to close the nd_sbp", 17),
    ("#sbp.nd<[S(0) B]>", "Expected ']' to close the nd_sbp", 15),
    ("#sbp.nd<[]>", "an nd_sbp needs at least one entry", 9),
    ("#sbp.nd<[S(0),]>", "expected an SBP", 15),
    ("#sbp.placement<cuda, [[0, 1], [2]]>", "rank array is ragged", 22),
    ("#sbp.placement<cuda, [[0, 1], 2]>", "mixes numbers and sub-arrays", 22),
    ("#sbp.placement<cuda, [0, 1, 1]>", "rank 1 appears more than once", 22),
    ("#sbp.placement<cuda, [0, -1]>", "ranks must be non-negative, got -1", 22),
    ("#sbp.placement<cuda, []>", "needs a non-empty rank array", 22),
    ("#sbp.placement<cuda, [[]]>", "needs a non-empty rank array", 22),
    ("#sbp.placement<cuda, 3>", "must be an array, not a scalar", 22),
    ("#sbp.placement<[0, 1]>", "expected a device kind", 16),
    ("#sbp.placement<cuda [0, 1]>", "Expected ',' between device kind", 21),
    ("#sbp.placement<cuda, [0, x]>", "expected a rank (integer)", 26),
    (
        "#sbp.sig<([S(0), B], [B]) -> ([S(0), S(1)])>",
        "nd_sbp [B] has 1 entry but the first one of the signature has 2",
        22,
    ),
    ("#sbp.sig<([S(0)]) ([B])>", "Expected '->' between operand", 19),
    ("#sbp.sig<[S(0)] -> [B]>", "'(' expected in operand layouts", 10),
    ("#sbp.sig<([S(0)]) -> ([P(avg)])>", "unknown partial kind 'avg'", 26),
]


@pytest.mark.parametrize(("text", "message", "column"), PARSE_ERRORS)
def test_attribute_parse_errors(
    attr, line_col, text: str, message: str, column: int
) -> None:
    with pytest.raises(ParseError) as info:
        attr(text)
    assert message in str(info.value)
    assert line_col(info.value) == (1, column)
