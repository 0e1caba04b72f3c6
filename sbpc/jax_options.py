"""The keywords ``sbpc.jax.plan`` and ``sbpc.jax.distribute`` share, once.

Both take ``fn, *args`` and keywords: those named by ``PlanOptions``
configure sbpc, the others go to ``fn`` (as ``jax.jit(fn).lower(*args,
**kwargs)`` takes them); ``distribute`` adds ``donate_argnums``.  One
dataclass, so that the two entry points cannot drift apart, checked before
any work is done; ``with_options`` shows its fields in each entry point's
signature (``help``, IDEs).
"""

from __future__ import annotations

import inspect
import numbers
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any, TypeVar

import jax
import numpy as np
from jax.sharding import AbstractMesh, Mesh

from sbpc.algebra.placement import Placement
from sbpc.boxing.cost_model import CostModel, CostModelError
from sbpc.jax_backend.combine import DEFAULT_MAX_BYTES
from sbpc.jax_layouts import LayoutTree
from sbpc.jax_pipeline import Pipeline
from sbpc.jax_plan import SbpcError
from sbpc.passes.options import OptionError
from sbpc.passes.propagate import SbpPropagatePass
from sbpc.propagation.driver import STRATEGIES

# A mesh: sizes, sizes with axis names, a jax mesh (abstract or not), a Placement.
MeshArg = (
    Placement | int | Sequence[int] | str | Mesh | AbstractMesh | Mapping[str, int]
)


@dataclass(frozen=True, kw_only=True)
class PlanOptions:
    """How to plan: the mesh, the given layouts, and the search.

    ``mesh``: sizes (``8``, ``(8, 8)``, ``"8x8"``; axes ``d0, d1, ...``),
    sizes with axis names (``((8, 8), ("data", "model"))`` or
    ``{"data": 8, "model": 8}``), a ``jax.sharding.AbstractMesh``, a
    ``Mesh`` or a ``Placement``; ``distribute`` reads it from the arguments'
    shardings when not given.  ``in_layouts``/``out_layouts``: layouts of
    the arguments and results (``sbpc.jax``'s docstring).  ``strategy``:
    ``greedy``, ``bfs`` or ``optimal``.  ``cost_model``: a machine
    (``"h100-sxm"``, ``"a100-80gb"``, ``"tpu-v5p"``, ``"cpu-sim"``, with
    ``key=value`` overrides) or ``key=value`` items (docs/machines.md); a
    machine with a memory capacity makes it the budget unless
    ``memory_budget`` is given.  ``time_limit``: seconds for the solver.
    ``combine_bytes``: the most bytes per device that one combined
    collective carries (independent collectives of one kind run as one,
    ``sbpc.jax_backend.combine``); 0 runs every boxing step alone.
    ``tie_state``: results that are the next call's arguments (a training
    step's new parameters and optimizer state, found by their pytree
    structure, ``sbpc.jax_ties``) come back in the layout their argument
    came in, unless ``out_layouts`` gives them one; False frees them.
    ``quiet``: no progress lines (shown only when stderr is a terminal).
    ``fence_bytes``: buffers of at least this many bytes per device keep
    the memory model's order in the emitted program (order fences,
    docs/memory.md); None: 1/64 of the device's memory where the cost
    model knows it, else none; 0: none.
    ``pipeline``: a ``Pipeline`` (stages, microbatches, schedule) to run the
    step as (``sbpc.jax_pipeline``, docs/pipeline.md).  ``remat``:
    what ``remat_pass`` takes: which layers to recompute, and how.
    """

    mesh: MeshArg | None = None
    in_layouts: LayoutTree = None
    out_layouts: LayoutTree = None
    strategy: str = "optimal"
    cost_model: str = "default"
    memory_budget: float | None = None
    time_limit: float | None = None
    combine_bytes: int = DEFAULT_MAX_BYTES
    tie_state: bool = True
    quiet: bool = False
    fence_bytes: float | None = None
    pipeline: Pipeline | None = None
    remat: str | tuple[str, str] = "none"

    @classmethod
    def split(cls, kwargs: Mapping[str, Any]) -> tuple[PlanOptions, dict[str, Any]]:
        """These options from an entry point's keywords, and the rest (``fn``'s)."""
        names = {f.name for f in fields(cls)}
        options = cls(**{k: v for k, v in kwargs.items() if k in names})
        return options, {k: v for k, v in kwargs.items() if k not in names}

    def check(self, fn: Any) -> SbpPropagatePass:
        """Every option (and ``fn``), before any work is done: the
        propagation pass of them, or ``SbpcError`` naming the bad one."""
        if not callable(fn) and not isinstance(fn, jax.stages.Lowered):
            raise SbpcError(
                f"fn: expected a function, not {fn!r} ({type(fn).__name__})"
            )
        propagate = check_search(
            self.strategy, self.cost_model, self.memory_budget, self.time_limit
        )
        if not is_int(self.combine_bytes) or self.combine_bytes < 0:
            raise SbpcError(
                f"combine_bytes must be >= 0 (an integer), not {self.combine_bytes!r}"
            )
        for name in ("tie_state", "quiet"):
            if not isinstance(getattr(self, name), bool | np.bool_):
                raise SbpcError(
                    f"{name}: expected True or False, not {getattr(self, name)!r}"
                )
        if self.fence_bytes is not None and not (
            isinstance(self.fence_bytes, numbers.Real)
            and not isinstance(self.fence_bytes, bool | np.bool_)
        ):
            raise SbpcError(f"fence_bytes must be a number, not {self.fence_bytes!r}")
        try:
            # The memory model counts the buffers of the collectives the
            # emitter combines.
            return replace(
                propagate,
                combine_bytes=int(self.combine_bytes),
                fence_bytes=self.fence_bytes,
            )
        except OptionError as e:
            raise SbpcError(str(e)) from e


def check_search(
    strategy: Any, cost_model: Any, memory_budget: Any, time_limit: Any
) -> SbpPropagatePass:
    """The propagation pass of these options, or ``SbpcError`` naming the bad one."""
    if not isinstance(strategy, str) or strategy not in STRATEGIES:
        raise SbpcError(
            f"strategy: unknown strategy {strategy!r}, expected one of "
            + ", ".join(STRATEGIES)
        )
    if not isinstance(cost_model, str):
        raise SbpcError(f"cost_model: expected a string, not {cost_model!r}")
    try:
        CostModel.parse(cost_model)
    except CostModelError as e:
        raise SbpcError(f"cost_model: {e}") from e
    for name, value in (("memory_budget", memory_budget), ("time_limit", time_limit)):
        if not (value is None or isinstance(value, numbers.Real)):
            raise SbpcError(f"{name} must be a number, not {value!r}")
    try:
        return SbpPropagatePass(
            strategy=strategy,
            cost_model=cost_model,
            memory_budget=memory_budget,
            time_limit=time_limit,
        )
    except OptionError as e:
        raise SbpcError(str(e)) from e


def is_int(x: Any) -> bool:
    """An integer (a numpy one too), not a bool."""
    return isinstance(x, numbers.Integral) and not isinstance(x, bool | np.bool_)


Entry = TypeVar("Entry", bound=Callable[..., Any])


def with_options(entry: Entry) -> Entry:
    """``entry`` (``fn, *args, ..., **kwargs``) with ``PlanOptions``' fields
    shown in its signature as keywords before ``**kwargs``."""
    own = inspect.signature(entry)
    *head, rest = own.parameters.values()
    options = [
        inspect.Parameter(
            f.name, inspect.Parameter.KEYWORD_ONLY, default=f.default, annotation=f.type
        )
        for f in fields(PlanOptions)
    ]
    entry.__signature__ = own.replace(parameters=[*head, *options, rest])  # type: ignore[attr-defined]
    return entry
