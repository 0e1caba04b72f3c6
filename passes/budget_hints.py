"""What would help a step that no plan fits in its memory budget.

When nothing fits, ``sbp-propagate``'s error names the least peak the
search met (issue 32, item 4).  A user then wants to know which choice
lowers it, as far as the function shows: recomputing more of its repeated
layers in the backward pass (``sbp-remat``), cutting its layers into
pipeline stages that each hold a part of them (``sbp-pipeline``), and more
devices for what is split.  The first two are offered only where the
function has repeated layers (a training step: ``sbpc.pipeline.remat``
finds them) and has not taken the choice already.
"""

from __future__ import annotations

from xdsl.dialects import func

from sbpc.dialects.sbp.pipeline import PIPELINE
from sbpc.dialects.stablehlo import OptimizationBarrierOp
from sbpc.pipeline.remat import layers

from .bridge.function import read_function


def budget_hints(f: func.FuncOp, over: float) -> str:
    """The choices that would lower ``f``'s peak, as a clause to append to
    the error (``over``: the least peak met over the budget).

    A step with ``optimization_barrier``s recomputes already (``sbp-remat``
    or its own ``jax.checkpoint``), and ``sbp-pipeline`` cannot read the
    barriers: neither choice is offered then."""
    hints = []
    read = read_function(f)
    if not any(isinstance(op, OptimizationBarrierOp) for op in read.ops):
        found = len(layers(read.function))
        if found:
            hints.append(
                f"recomputing its {found} repeated layers in the backward pass "
                "(sbp-remat, remat= in sbpc.jax)"
            )
        if found > 1 and PIPELINE not in f.attributes:
            hints.append(
                f"pipeline stages, each holding some of its {found} layers "
                "(sbp-pipeline, pipeline= in sbpc.jax)"
            )
    hints.append(
        f"more devices for what is split (the least peak is {over:,.1f}x the budget)"
    )
    return "; what would help: " + "; ".join(hints)
