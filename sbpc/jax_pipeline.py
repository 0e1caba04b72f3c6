"""``sbpc.jax``'s pipelines: ``pipeline=sbpc.jax.Pipeline(...)`` (docs/pipeline.md).

::

    step = sbpc.jax.distribute(
        train_step, params, opt, tokens, targets,
        mesh=jax.make_mesh((2, 2, 2), ("stage", "data", "model")),
        pipeline=sbpc.jax.Pipeline(stages=2, microbatches=4, schedule="1f1b"),
    )

The stage axis is the mesh axis named ``stage``, else the first.  The batch
arguments (split into microbatches along their leading dim) are
``batch_argnums``, else the leaves no result has the shape and dtype of
(``sbp-pipeline``'s default).  ``sbp-pipeline`` then runs between
``sbp-inline`` and ``sbp-propagate``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import jax

from sbpc.dialects import sbp as sbp_dialect
from sbpc.dialects.sbp.pipeline import (
    BATCH_DIM,
    SCHEDULES,
    batch_dim_attr,
    count_option_error,
)
from sbpc.passes.bridge.program import main_function
from sbpc.passes.options import OptionError
from sbpc.passes.pipelining import SbpPipelinePass


class PipelineError(ValueError):
    """A pipeline option sbpc cannot use (``sbpc.jax`` raises it as ``SbpcError``)."""


@dataclass(frozen=True)
class Pipeline:
    """Stages, microbatches and a schedule (``"gpipe"`` or ``"1f1b"``).

    ``stages=0``, ``microbatches=0``, ``schedule="auto"``: searched
    (``pipeline="auto"`` searches all three), each candidate planned by the
    strategy and priced, the fastest that fits the memory budget kept (maybe
    no pipeline).  ``batch_argnums``: the positional arguments to split into
    microbatches (every leaf along its leading dim); None: the leaves no
    result has the shape and dtype of.
    """

    stages: int = 1
    microbatches: int = 1
    schedule: str = "1f1b"
    batch_argnums: int | Sequence[int] | None = None

    def __post_init__(self) -> None:
        error = count_option_error(self.stages, self.microbatches)
        if error is not None:
            raise PipelineError(f"Pipeline: {error}")
        if self.schedule not in (*SCHEDULES, "auto"):
            raise PipelineError(
                f"Pipeline: unknown schedule {self.schedule!r}, expected one of "
                + ", ".join((*SCHEDULES, "auto"))
            )

    def argnums(self) -> tuple[int, ...] | None:
        n = self.batch_argnums
        if n is None:
            return None
        return (n,) if isinstance(n, int) else tuple(n)

    def pass_for(
        self,
        cost_model: str,
        strategy: str = "greedy",
        memory_budget: float | None = None,
    ) -> SbpPipelinePass:
        """The ``sbp-pipeline`` pass of these options (a search plans each
        candidate with ``strategy`` under ``memory_budget``)."""
        try:
            return SbpPipelinePass(
                stages=self.stages,
                microbatches=self.microbatches,
                schedule=self.schedule,
                cost_model=cost_model,
                strategy=strategy,
                memory_budget=memory_budget,
            )
        except OptionError as e:
            raise PipelineError(str(e)) from e


def as_pipeline(pipeline: Any) -> Pipeline | None:
    """``pipeline=`` as a ``Pipeline`` (None: no pipeline)."""
    if pipeline is None or isinstance(pipeline, Pipeline):
        return pipeline
    if pipeline == "auto":
        return Pipeline(stages=0, microbatches=0, schedule="auto")
    raise PipelineError(
        f"pipeline must be a sbpc.jax.Pipeline or 'auto', not {pipeline!r}"
    )


def mark_batch(module: Any, pipeline: Pipeline, args: Sequence[Any]) -> None:
    """``sbp.batch_dim = 0`` on the leaves of ``pipeline``'s batch arguments
    (positional leaves come first in the flattened arguments)."""
    nums = pipeline.argnums()
    if nums is None:
        return
    f = main_function(module)
    start = [0]
    for a in args:
        start.append(start[-1] + len(jax.tree_util.tree_leaves(a)))
    for n in nums:
        if not 0 <= n < len(args):
            raise PipelineError(
                f"Pipeline: batch_argnums {n} is not a positional argument (the "
                f"function was given {len(args)})"
            )
        for leaf in range(start[n], start[n + 1]):
            sbp_dialect.set_arg_attr(f, leaf, BATCH_DIM, batch_dim_attr(0))
