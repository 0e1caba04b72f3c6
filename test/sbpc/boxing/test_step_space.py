"""``step_space``: a layout's legal steps, made when a search reaches it,
are every step ``planner._step_kind`` allows from it, with the tensor's
group bytes and local work, on 3- and 4-dim hierarchies (the 1- and 2-dim
ones: ``test_step_prices.py``)."""

from __future__ import annotations

import random

import pytest

from sbpc.algebra.sbp import Split
from sbpc.algebra.tensor_type import TensorType
from sbpc.boxing import planner
from sbpc.boxing.cost_model import group_bytes
from sbpc.boxing.local_work import local_elements
from sbpc.boxing.step_space import step_kinds, tensor_steps


@pytest.mark.parametrize(
    ("shape", "element", "hierarchy"),
    [
        ((8, 6), "f32", (2, 2, 2)),
        ((6, 5, 4), "i32", (3, 2, 2)),
        ((12,), "i32", (2, 2, 2, 2)),
        ((8, 4), "f32", (2, 3, 2, 2)),
    ],
    ids=str,
)
def test_legal_steps_are_every_step_the_rules_allow(shape, element, hierarchy) -> None:
    tensor = TensorType(shape, element)
    states = planner.candidate_layouts(tensor, hierarchy)
    kinds = step_kinds(tensor.rank, element, len(hierarchy))
    steps = tensor_steps(tensor, hierarchy)
    assert kinds.size == len(states)
    for i in random.Random(5).sample(range(len(states)), 60):
        src = states[i]
        assert kinds.layout(i) == src and kinds.index(src) == i
        want = []
        for dims in planner._dim_groups(len(hierarchy)):
            for entry in planner.entries(tensor.rank):
                dst = tuple(entry if d in dims else e for d, e in enumerate(src))
                found = planner._step_kind(src, dst, dims, tensor, hierarchy)
                if found is None:
                    continue
                kind, reduce = found
                group = max(
                    group_bytes(src, dims, tensor, hierarchy),
                    group_bytes(dst, dims, tensor, hierarchy),
                )
                local = local_elements(kind, dims, src, dst, tensor, hierarchy)
                want.append((states.index(dst), dims, kind, reduce, group, local))
        assert list(steps.legal(i)) == want  # in the planner's order, too


def test_a_layout_not_in_the_space_has_no_index() -> None:
    kinds = step_kinds(2, "f32", 3)
    assert kinds.index(kinds.layout(5)) == 5
    assert kinds.index(kinds.layout(5)[:2]) is None
    assert kinds.index((Split(2),) * 3) is None  # rank 2: no S(2)
