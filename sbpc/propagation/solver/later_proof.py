"""A plan's proof of optimality finished while the search goes on with it.

The optimal strategy's plan through the repeated layers comes from the
window's labels; the residual's LP only bounds it (``repeated_layers.clustered``).
On the library decoders' 2d training steps that LP ran 0.8-1.2 s after the
plan was known, and the combining search, which only needs the plan, waited
for it.  A search that can settle later (``proofs_later``) gets the plan at
once, with a ``PendingProof`` in its stats: the residual's bound is
computed in a helper thread while the search improves the plan, and
``settle`` (in the caller's thread, before the plan is used) finishes the
proof.  A proof that fails (the gap over what the strategy accepts, so it
would have widened its window) raises ``ProofFailed``: the search is run
again with the proof waited for, and makes exactly the plan it always made.

The helper runs the residual's Python (building and shrinking it) and its
HiGHS solves, which release the GIL.  The caller waits until the first
solve starts (its Python beside the helper's would only take turns with it
for the GIL, and wait for it at every numpy call), then makes the plan and
goes on while HiGHS runs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

# The key of a plan's stats that holds its pending proof.
PROOF_KEY = "proof_pending"

_LATER: ContextVar[bool] = ContextVar("sbpc_proofs_later", default=False)


class ProofFailed(Exception):
    """A pending proof found its plan's gap over what was accepted: the plan
    is not the strategy's, which would have searched further."""


@contextmanager
def proofs_later() -> Iterator[None]:
    """The optimal strategy's plans made inside may leave their proof
    pending (their caller settles every plan it keeps, ``settle_stats``)."""
    token = _LATER.set(True)
    try:
        yield
    finally:
        _LATER.reset(token)


def proofs_may_wait() -> bool:
    """Whether the plan being made may leave its proof pending."""
    return _LATER.get()


class PendingProof:
    """A plan's proof still running: ``settle`` returns the stats it adds
    (its gap, whether proven, its status) or raises ``ProofFailed``.
    Settled once; later calls give the same answer."""

    def __init__(self, finish: Callable[[], dict[str, Any]]) -> None:
        self._finish: Callable[[], dict[str, Any]] | None = finish
        self._stats: dict[str, Any] | None = None
        self._failure: ProofFailed | None = None

    def settle(self) -> dict[str, Any]:
        finish, self._finish = self._finish, None
        if finish is not None:
            try:
                self._stats = finish()
            except ProofFailed as e:
                self._failure = e
        if self._failure is not None:
            raise self._failure
        assert self._stats is not None
        return self._stats

    def __repr__(self) -> str:  # how a report shows it, should one ever do
        return "<proof pending>"


def settle_stats(stats: dict[str, Any]) -> None:
    """``stats`` with its pending proof (if any) settled in place; raises
    ``ProofFailed`` when the proof fails."""
    proof = stats.get(PROOF_KEY)
    if proof is None:
        return
    stats.update(proof.settle())
    del stats[PROOF_KEY]
