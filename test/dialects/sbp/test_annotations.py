"""Reading and writing sbp annotations on modules, funcs and ops."""

from __future__ import annotations

from xdsl.dialects.func import FuncOp

from sbpc.algebra.placement import Placement
from sbpc.algebra.sbp import B, P, Partial, S
from sbpc.algebra.signature import Signature
from sbpc.dialects.sbp import (
    get_arg_placement,
    get_nd_sbp_arg_attr,
    get_nd_sbp_res_attr,
    get_signature,
    module_placement,
    set_module_placement,
    set_nd_sbp_arg_attr,
    set_nd_sbp_arg_attrs,
    set_nd_sbp_res_attr,
    set_signature,
    verify_sbp_annotations,
)


def test_annotation_helpers(module, pretty, good) -> None:
    m = module(good)
    func = next(o for o in m.walk() if isinstance(o, FuncOp))
    p = Placement.from_nested("cuda", [[0, 1], [2, 3]])
    assert module_placement(m) == p
    assert module_placement(func) == p
    assert get_nd_sbp_arg_attr(func, 0) == (S(0), B)
    assert get_nd_sbp_arg_attr(func, 1) is None
    assert get_nd_sbp_res_attr(func, 0) == (S(0), S(1))
    assert get_nd_sbp_res_attr(func, 1) is None
    assert get_arg_placement(func, 0) == p
    assert get_arg_placement(func, 2) == Placement.from_nested("cuda", [4, 5])

    set_nd_sbp_arg_attr(func, 1, (B, P))
    set_nd_sbp_res_attr(func, 1, (Partial("max"),))
    assert get_nd_sbp_arg_attr(func, 1) == (B, P)
    assert get_nd_sbp_res_attr(func, 1) == (Partial("max"),)
    # other entries of the dictionaries survive
    assert get_nd_sbp_arg_attr(func, 2) == (S(0),)

    add = next(o for o in m.walk() if o.name == "arith.addf")
    sig = get_signature(add)
    assert sig == Signature(((S(0), B), (S(0), B)), ((S(0), B),))
    set_signature(add, Signature(((S(0), B), (B, B)), ((S(0), B),)))
    assert "#sbp.sig<([S(0), B], [B, B]) -> ([S(0), B])>" in pretty(m)
    m.verify()


def test_set_attrs_on_unannotated_func(module, pretty) -> None:
    m = module(
        "module {\n  func.func @g(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {\n"
        "    func.return %a : tensor<4xf32>\n  }\n}"
    )
    func = next(o for o in m.walk() if isinstance(o, FuncOp))
    assert module_placement(m) is None
    set_module_placement(m, Placement.of_size(4, "cuda"))
    set_nd_sbp_arg_attr(func, 1, (S(0),))
    set_nd_sbp_res_attr(func, 0, (B,))
    text = pretty(m)
    assert "sbp.placement = #sbp.placement<cuda, [0, 1, 2, 3]>" in text
    assert "%b: tensor<4xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>}" in text
    assert "-> (tensor<4xf32> {sbp.nd_sbp = #sbp.nd<[B]>})" in text
    m.verify()
    verify_sbp_annotations(m)
    assert pretty(module(text)) == text


def test_set_several_argument_layouts_at_once(module, pretty, good) -> None:
    """The batch setter writes what one call per argument writes, keeping the
    other entries of each argument's dictionary."""
    one_by_one, at_once = module(good), module(good)
    f1, f2 = (
        next(o for o in m.walk() if isinstance(o, FuncOp))
        for m in (one_by_one, at_once)
    )
    layouts = {1: (B, P), 2: (S(1),)}
    for i, nd in layouts.items():
        set_nd_sbp_arg_attr(f1, i, nd)
    set_nd_sbp_arg_attrs(f2, layouts)
    assert get_nd_sbp_arg_attr(f2, 1) == (B, P)
    assert get_nd_sbp_arg_attr(f2, 2) == (S(1),)
    assert get_arg_placement(f2, 2) == Placement.from_nested("cuda", [4, 5])
    assert pretty(at_once) == pretty(one_by_one)
