"""A proof finished beside the search (``later_proof``): a settled proof
answers the same every time, and only a search that settles may leave
proofs pending."""

from __future__ import annotations

import pytest

from sbpc.propagation.solver.idle_work import Background
from sbpc.propagation.solver.later_proof import (
    PROOF_KEY,
    PendingProof,
    ProofFailed,
    proofs_later,
    proofs_may_wait,
    settle_stats,
)


def test_a_proof_is_finished_once() -> None:
    calls: list[int] = []

    def finish() -> dict:
        calls.append(1)
        return {"gap": 0.0, "proven": True}

    stats = {"objective": 1.0, PROOF_KEY: PendingProof(finish)}
    settle_stats(stats)
    assert stats == {"objective": 1.0, "gap": 0.0, "proven": True}
    settle_stats(stats)  # nothing pending: nothing done
    assert calls == [1]


def test_a_failed_proof_fails_every_time_it_is_settled() -> None:
    calls: list[int] = []

    def finish() -> dict:
        calls.append(1)
        raise ProofFailed("gap 1% above mip_rel_gap")

    proof = PendingProof(finish)
    for _ in range(2):
        with pytest.raises(ProofFailed, match="above mip_rel_gap"):
            settle_stats({PROOF_KEY: proof})
    assert calls == [1]


def test_proofs_wait_unless_a_search_settles_them() -> None:
    assert not proofs_may_wait()
    with proofs_later():
        assert proofs_may_wait()
        assert Background(proofs_may_wait).result() is False  # not its thread's
    assert not proofs_may_wait()
