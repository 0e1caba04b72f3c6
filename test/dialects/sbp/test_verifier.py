"""verify_sbp_annotations: the whole-module check, errors located at the op at fault."""

from __future__ import annotations

import pytest

from sbpc.dialects.diagnostics import LocatedError
from sbpc.dialects.sbp import (
    verify_sbp_annotations,
)


def test_good_module_verifies(module, good) -> None:
    m = module(good)
    m.verify()
    verify_sbp_annotations(m)


def _func_with(args: str, results: str = "", body: str = "", placement: bool = True):
    head = (
        "module attributes {sbp.placement = #sbp.placement<cuda, [[0, 1], [2, 3]]>}"
        if placement
        else "module"
    )
    res = f" -> ({results})" if results else ""
    ret = body or "    func.return"
    return f"{head} {{\n  func.func @f({args}){res} {{\n{ret}\n  }}\n}}"


ANNOTATION_ERRORS = [
    # module attribute of the wrong kind
    (
        'module attributes {sbp.placement = "cuda"} {}',
        "sbp.placement on the module must be a #sbp.placement<...> attribute",
        "builtin.module",
    ),
    # nd_sbp of an argument
    (
        _func_with('%a: tensor<8x16xf32> {sbp.nd_sbp = "S(0)"}'),
        'sbp.nd_sbp of argument 0 must be an #sbp.nd<[...]> attribute, got "S(0)"',
        "func.func",
    ),
    (
        _func_with("%a: tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>}"),
        "sbp.nd_sbp of argument 0: [S(0)] has 1 entry, but the placement "
        "(cuda, 2x2) has 2 hierarchy dimensions",
        "func.func",
    ),
    (
        _func_with(
            "%a: tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[S(0), B]>, "
            "sbp.placement = #sbp.placement<cuda, [4, 5]>}"
        ),
        "sbp.nd_sbp of argument 0: [S(0), B] has 2 entries, but the placement "
        "(cuda, 2) has 1 hierarchy dimension",
        "func.func",
    ),
    (
        _func_with(
            "%a: tensor<8x16xf32>, %b: tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[B, S(2)]>}"
        ),
        "sbp.nd_sbp of argument 1: [B, S(2)] splits dimension 2, but "
        "tensor<8x16xf32> has rank 2",
        "func.func",
    ),
    (
        _func_with("%a: tensor<8x16xf32> {sbp.placement = [0, 1]}"),
        "sbp.placement of argument 0 must be a #sbp.placement<...> attribute",
        "func.func",
    ),
    # nd_sbp of a result
    (
        _func_with(
            "%a: tensor<8x16xf32>",
            "tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[B, B, B]>}",
            "    func.return %a : tensor<8x16xf32>",
        ),
        "sbp.nd_sbp of result 0: [B, B, B] has 3 entries",
        "func.func",
    ),
    # missing placement
    (
        _func_with(
            "%a: tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>}", placement=False
        ),
        "no placement: add sbp.placement to the module",
        "func.func",
    ),
    (
        _func_with(
            "%a: tensor<8x16xf32>",
            body="    %0 = arith.addf %a, %a {sbp.sig = #sbp.sig<([B], [B]) -> ([B])>}"
            " : tensor<8x16xf32>\n    func.return",
            placement=False,
        ),
        "no placement: add sbp.placement to the module",
        "arith.addf",
    ),
    # signatures
    (
        _func_with(
            "%a: tensor<8x16xf32>",
            body="    %0 = arith.addf %a, %a {sbp.sig = #sbp.sig<([B, B]) -> ([B, B])>}"
            " : tensor<8x16xf32>\n    func.return",
        ),
        "signature has 1 operand layouts but the op has 2 operands",
        "arith.addf",
    ),
    (
        _func_with(
            "%a: tensor<8x16xf32>",
            body="    %0 = arith.addf %a, %a "
            "{sbp.sig = #sbp.sig<([B, B], [B, B]) -> ([B, B], [B, B])>}"
            " : tensor<8x16xf32>\n    func.return",
        ),
        "signature has 2 result layouts but the op has 1 results",
        "arith.addf",
    ),
    (
        _func_with(
            "%a: tensor<8x16xf32>",
            body="    %0 = arith.addf %a, %a {sbp.sig = #sbp.sig<([B], [B]) -> ([B])>}"
            " : tensor<8x16xf32>\n    func.return",
        ),
        "signature: layout of operand 0 [B] has 1 entry, but the placement "
        "(cuda, 2x2) has 2 hierarchy dimensions",
        "arith.addf",
    ),
    (
        _func_with(
            "%a: tensor<8x16xf32>",
            body="    %0 = arith.addf %a, %a "
            "{sbp.sig = #sbp.sig<([S(0), B], [S(0), B]) -> ([S(2), B])>}"
            " : tensor<8x16xf32>\n    func.return",
        ),
        "signature: layout of result 0 [S(2), B] splits dimension 2, but "
        "tensor<8x16xf32> has rank 2",
        "arith.addf",
    ),
    (
        _func_with(
            "%a: tensor<8x16xf32>",
            body='    %0 = arith.addf %a, %a {sbp.sig = "([B]) -> ([B])"}'
            " : tensor<8x16xf32>\n    func.return",
        ),
        "sbp.sig must be an #sbp.sig<...> attribute",
        "arith.addf",
    ),
    # placements: an op computes on one placement
    (
        _func_with(
            "%a: tensor<8x16xf32>, "
            "%b: tensor<8x16xf32> {sbp.placement = #sbp.placement<cuda, [4, 5]>}",
            body="    %0 = arith.addf %a, %b : tensor<8x16xf32>\n    func.return",
        ),
        "operands live on different placements: operand 0 on "
        "#sbp.placement<cuda, [[0, 1], [2, 3]]>, operand 1 on "
        "#sbp.placement<cuda, [4, 5]>",
        "arith.addf",
    ),
    (
        _func_with(
            "%a: tensor<8x16xf32>",
            body="    %0 = sbp.all_gather %a dims [0] from [S(0)] to [B] "
            "on #sbp.placement<cuda, [4, 5]> : tensor<8x16xf32>\n    func.return",
        ),
        "sbp.all_gather on #sbp.placement<cuda, [4, 5]>, but its operand lives on "
        "#sbp.placement<cuda, [[0, 1], [2, 3]]>",
        "sbp.all_gather",
    ),
]


@pytest.mark.parametrize(("text", "message", "op_name"), ANNOTATION_ERRORS)
def test_annotation_errors(module, text: str, message: str, op_name: str) -> None:
    m = module(text)
    m.verify()
    with pytest.raises(LocatedError) as info:
        verify_sbp_annotations(m)
    assert message in info.value.message
    assert info.value.op is not None
    assert info.value.op.name == op_name


def test_dynamic_dims_are_not_checked_for_evenness(module) -> None:
    m = module(_func_with("%a: tensor<?x16xf32> {sbp.nd_sbp = #sbp.nd<[S(0), S(1)]>}"))
    verify_sbp_annotations(m)


def test_a_shared_signature_is_checked_against_each_ops_types(module) -> None:
    """One signature attribute on many ops (as a plan writes them) is found
    to fit once per types: an op of other types is checked anew."""
    from sbpc.algebra.sbp import B, S
    from sbpc.algebra.signature import Signature
    from sbpc.dialects.sbp import set_signatures

    m = module(
        _func_with(
            "%a: tensor<8x16xf32>, %b: tensor<8xf32>",
            body="    %0 = arith.addf %a, %a : tensor<8x16xf32>\n"
            "    %1 = arith.addf %a, %a : tensor<8x16xf32>\n"
            "    %2 = arith.addf %b, %b : tensor<8xf32>\n"
            "    func.return",
        )
    )
    adds = [op for op in m.walk() if op.name == "arith.addf"]
    split = ((B, S(1)),)
    sig = Signature(split * 2, split)
    set_signatures((op, sig) for op in adds[:2])
    verify_sbp_annotations(m)  # both fit: one check, then the same
    set_signatures((op, sig) for op in adds)
    assert adds[0].attributes["sbp.sig"] is adds[2].attributes["sbp.sig"]
    with pytest.raises(LocatedError, match="splits dimension 1") as info:
        verify_sbp_annotations(m)
    assert info.value.op is adds[2]
