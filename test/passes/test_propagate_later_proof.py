"""``sbp-propagate``'s default search finishes the optimal strategy's proof
beside its later rounds (``later_proof``): the plan is the one the search
makes waiting for the proof, and where the proof fails the search runs
again waiting for it.  On the GPT example's 3-layer Adam step (8 devices,
``dp``), whose repeated layers' plan is proven through its residual's LP."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import sbpc.jax
from sbpc.propagation import optimal
from sbpc.propagation.solver import later_proof

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "examples"))

from models import gpt  # noqa: E402


def plan(example) -> tuple[list[int], dict]:
    step = sbpc.jax.distribute(
        example.fn,
        *example.args,
        mesh=example.mesh("dp"),
        in_layouts=example.in_layouts("dp"),
        out_layouts=example.out_layouts("dp"),
        quiet=True,
    )
    found = step.plans[0].plan
    return found.options, found.stats


@pytest.fixture(scope="module")
def example():
    with gpt.Depth(3):
        return gpt.train_example()


def test_the_proof_left_pending_gives_the_plan_waited_for(
    monkeypatch: pytest.MonkeyPatch, example
) -> None:
    pending: list[later_proof.PendingProof] = []
    real_init = later_proof.PendingProof.__init__

    def spy(self, finish):
        pending.append(self)
        real_init(self, finish)

    monkeypatch.setattr(later_proof.PendingProof, "__init__", spy)
    options, stats = plan(example)
    assert len(pending) == 1  # its proof was left pending, then settled
    assert later_proof.PROOF_KEY not in stats
    assert stats["proven"] and stats["status"] == "Optimal (repeated layers, certified)"

    monkeypatch.setattr(optimal, "proofs_may_wait", lambda: False)
    waited, waited_stats = plan(example)
    assert len(pending) == 1  # none left pending this time
    assert waited == options
    for key in ("objective", "gap", "status", "cluster_residual_bound"):
        assert waited_stats[key] == stats[key], key


def test_a_failed_proof_runs_the_search_again_waiting_for_it(
    monkeypatch: pytest.MonkeyPatch, example
) -> None:
    waiting = []
    real = later_proof.proofs_may_wait

    def may_wait() -> bool:
        waiting.append(real())
        return waiting[-1]

    def fail(self):
        raise later_proof.ProofFailed("the test's")

    monkeypatch.setattr(optimal, "proofs_may_wait", may_wait)
    monkeypatch.setattr(later_proof.PendingProof, "settle", fail)
    options, stats = plan(example)
    assert waiting == [True, False]  # left pending, failed, then waited for
    assert stats["proven"] and stats["status"] == "Optimal (repeated layers, certified)"
    monkeypatch.undo()
    again, _ = plan(example)
    assert again == options
