"""Op kinds of the StableHLO control-flow family that run as plain ops.

``optimization_barrier`` is the identity on every operand; propagation gives
each operand its own layout (``passes/bridge/regions.py``), so it has no rule
here, only its meaning.  ``while`` and ``case`` are not op kinds: they are
regions (``sbpc.program.LoopInstr``/``CaseInstr``).
"""

from __future__ import annotations

import numpy as np

from sbpc.ops.kind import OpKinds
from sbpc.ops.spec import OpSpec

BUILTINS = OpKinds()


@BUILTINS.evaluator("stablehlo.optimization_barrier")
def _barrier(op: OpSpec, xs: list[np.ndarray]) -> list[np.ndarray]:
    return list(xs)
