"""A proof finished beside the search (``later_proof``): its helper's
errors reach the caller, a settled proof answers the same every time, and
only a search that settles may leave proofs pending."""

from __future__ import annotations

import threading

import pytest

from sbpc.propagation.solver.idle_work import while_solving
from sbpc.propagation.solver.later_proof import (
    PROOF_KEY,
    Background,
    PendingProof,
    ProofFailed,
    proofs_later,
    proofs_may_wait,
    settle_stats,
)


def test_the_helpers_result_and_error_reach_the_caller() -> None:
    assert Background(lambda: 41 + 1).result() == 42

    def broken() -> int:
        raise ValueError("in the helper")

    with pytest.raises(ValueError, match="in the helper"):
        Background(broken).result()


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


def test_the_caller_waits_for_the_helpers_first_lp_not_its_end() -> None:
    """``Background.solving`` returns once the work starts an LP
    (``while_solving``), the LP still running; and once work without one
    ends."""
    release = threading.Event()

    def work() -> bool:
        return while_solving(lambda: release.wait(5))

    helper = Background(work)
    helper.solving()
    assert not release.is_set()  # the LP is still running
    release.set()
    assert helper.result() is True  # it ran to the end, released, not timed out
    quick = Background(lambda: 3)
    quick.solving()
    assert quick.result() == 3
