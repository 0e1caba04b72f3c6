"""``compute_costs``' memo: the registry's shared tuple is looked up by
identity, and no other candidate list ever gets its answer."""

from __future__ import annotations

from sbpc.boxing.cost_model import CostModel
from sbpc.ops.cost import compute_costs, local_work
from sbpc.ops.registry import nd_signature_tuple

from .test_cost import DOT


def direct(candidates, model: CostModel) -> tuple[float, ...]:
    return tuple(model.compute_time(*local_work(DOT, s, (2, 2))) for s in candidates)


def test_shared_tuple_hits_and_other_lists_get_their_own_costs() -> None:
    model = CostModel.parse("flops=1e9,hbm=1e9")
    shared = nd_signature_tuple(DOT, (2, 2))
    assert nd_signature_tuple(DOT, (2, 2)) is shared  # one object per equal op
    first = compute_costs(DOT, shared, (2, 2), model)
    assert compute_costs(DOT, shared, (2, 2), model) is first  # memo hit
    assert first == direct(shared, model)
    # An equal-content but distinct tuple, a reordered tuple and a list that
    # changes between calls are each priced for what they hold.
    reordered = tuple(reversed(shared))
    assert compute_costs(DOT, reordered, (2, 2), model) == direct(reordered, model)
    copy = tuple(list(shared))
    assert compute_costs(DOT, copy, (2, 2), model) == first
    changing = list(shared[:3])
    assert compute_costs(DOT, changing, (2, 2), model) == direct(shared[:3], model)
    changing[:] = shared[3:5]
    assert compute_costs(DOT, changing, (2, 2), model) == direct(shared[3:5], model)
