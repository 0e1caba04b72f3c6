"""``sbp-remat``: recompute a training step's layers in its backward pass.

For each chosen repeated layer (``sbpc.pipeline.remat`` finds them and the
activations their backward reads), the ops those activations come from are
cloned just before the first backward op that reads one, reading the
layer's inputs through a ``stablehlo.optimization_barrier``, and the
backward reads the clones.  The forward's copies then die with the
forward's last use; the clones live only around their backward use.  As
``jax.checkpoint`` does, the barrier keeps XLA from merging the clones with
the forward's ops (CSE); it also passes the backward value computed just
before, and that value's readers read it from the barrier (a barrier result
nothing reads is dropped by XLA), so the recomputation cannot run earlier
than its use.  Each barrier also carries what was computed since the one
before and is read only after it (the loss, weight gradients), so that
XLA's scheduler runs those where the program does (``_pin_sinks``).

``layers``: ``none``, ``all``, a comma list of layer indices (``0,2``), or
``auto``: the fewest layers (first ones first) whose plan, propagated by
``strategy`` and ``cost_model`` without a budget (``mem=`` lifted), has a
peak memory per device within ``memory_budget`` (default: the cost model's
``mem=``; none when nothing is needed; all when even that does not fit, so
the budgeted propagation names what would), found by interpolating
between the counts tried (``fewest_fitting``).  A step
that carries remat already (an ``optimization_barrier``) keeps its own.

``policy``: what a chosen layer recomputes.  ``full``: every saved value,
from the layer's inputs (the whole layer).  ``dots``: the forward keeps
the products with no batch dimensions (the weight products) and the rest
(attention scores and probabilities, norms, elementwise ops) is recomputed
from the layer's inputs and those products, which the barrier carries
(JAX's ``dots_with_no_batch_dims_saveable``).  Under ``layers=auto``,
``dots`` searches a ladder that recomputes least first: ``dots`` on the
first 1, 2 ... layers, then on all of them with the first 1, 2 ... whole
(``ladder``).  The recomputed layers are written on the function as
``sbp.recomputed_layers``, their policies beside them as
``sbp.remat_policies``.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, IntAttr, ModuleOp, StringAttr, TensorType
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass

from sbpc.dialects.diagnostics import LocatedError
from sbpc.dialects.stablehlo import OptimizationBarrierOp
from sbpc.pipeline.remat import (
    FULL,
    POLICIES,
    Cone,
    Layer,
    carries_remat,
    layers,
    turn,
)

from .bridge.function import ReadFunction, read_function
from .options import OptionError, positive_number
from .propagate import SbpPropagatePass

RECOMPUTED = "sbp.recomputed_layers"
POLICIES_ATTR = "sbp.remat_policies"  # beside RECOMPUTED: each layer's policy


@dataclass(frozen=True)
class SbpRematPass(ModulePass):
    """Recompute chosen layers' activations in the backward pass."""

    name = "sbp-remat"

    # ``layers=0,2`` reaches the pass as a tuple of ints, ``layers=1`` as one
    layers: str | int | tuple[int, ...] = "none"
    policy: str = FULL
    memory_budget: int | float | str | None = None
    strategy: str = "greedy"
    cost_model: str = "default"

    def __post_init__(self) -> None:
        if isinstance(self.layers, int | tuple):
            numbers = self.layers if isinstance(self.layers, tuple) else (self.layers,)
            object.__setattr__(self, "layers", ",".join(str(k) for k in numbers))
        choice = str(self.layers).strip()
        if choice not in ("none", "all", "auto"):
            parts = [p.strip() for p in choice.split(",")]
            if not all(p.isdigit() for p in parts):
                raise OptionError(
                    "layers must be none, all, auto or layer indices such as 0,2, "
                    f"not '{self.layers}'"
                )
        if self.policy not in POLICIES:
            raise OptionError(
                f"policy must be {' or '.join(POLICIES)}, not '{self.policy}'"
            )
        budget = positive_number("memory_budget", self.memory_budget, "bytes")
        # checked here, as the pipeline is parsed
        propagate = SbpPropagatePass(strategy=self.strategy, cost_model=self.cost_model)
        if budget is None:
            budget = propagate.parsed_cost_model.memory_capacity
        if choice == "auto" and budget is None:
            raise OptionError(
                "layers=auto needs a memory_budget (or a cost model with mem=)"
            )
        object.__setattr__(self, "memory_budget", budget)

    @staticmethod
    def along(
        layers: str, propagate: SbpPropagatePass, policy: str = FULL
    ) -> SbpRematPass | None:
        """The pass for ``layers`` and ``policy`` before ``propagate`` (its
        strategy, cost model and budget); None for ``none``."""
        if layers == "none":
            return None
        return SbpRematPass(
            layers=layers,
            policy=policy,
            memory_budget=propagate.limits()[0],
            strategy=propagate.strategy,
            cost_model=propagate.cost_model,
        )

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        choice = str(self.layers).strip()
        wanted: str | int = self._fewest(op) if choice == "auto" else choice
        for f in _functions(op):
            recompute(f, wanted, self.policy)

    def _fewest(self, op: ModuleOp) -> int:
        """The first step of ``ladder`` (with ``full``: the fewest leading
        layers to recompute) for the plan to fit: none when it fits, the
        last when that does not; between, searched taking each step never
        to need more memory than the one before (so the answer is the one
        step that fits where the one before does not, however it is found).

        Each count's plan is propagated as ``remat=k`` would be with nothing
        holding it to memory: no budget and the cost model's ``mem=``
        lifted, so the optimal strategy solves the repeated layers once
        (``docs/planning-time.md``) instead of the budgeted program of the
        whole core.  The search interpolates: each saved layer frees about
        the same bytes (under ``dots``: on each half of the ladder), so the
        count where the peak meets the budget is read off the bracket's two
        peaks, then that count and its neighbour are tried
        (``fewest_fitting``); a 32-layer step then takes 4 or 5
        propagations, where bisection took 7.  ``dots``' ladder has two
        such halves, each searched alone after the step between them."""
        most = max(
            (len(ladder(len(_found(f)), self.policy)) for f in _functions(op)),
            default=0,
        )
        propagate = SbpPropagatePass(
            strategy=self.strategy, cost_model=unbounded_memory(self.cost_model)
        )

        @functools.cache
        def peak(count: int) -> float:
            trial = op.clone()
            for f in _functions(trial):
                recompute(f, count, self.policy)
            plans = propagate.plan_module(trial)
            return max((p.plan.peak_memory for p in plans), default=0.0)

        budget = float(self.memory_budget)  # type: ignore[arg-type]
        if self.policy == FULL or most < 2:
            return fewest_fitting(peak, most, budget)
        # Two near-linear halves (dots on more layers; then more of them
        # whole): the middle step says which half to search.
        half = most // 2
        if peak(half) <= budget:
            return fewest_fitting(peak, half, budget)
        return half + fewest_fitting(lambda k: peak(half + k), most - half, budget)


def fewest_fitting(peak: Callable[[int], float], most: int, budget: float) -> int:
    """The least ``k`` in ``0..most`` with ``peak(k) <= budget``, for a
    ``peak`` that does not grow with ``k`` (``most`` when none fits).

    The bracket ``(over, fit)`` (``peak(over) > budget >= peak(fit)``)
    shrinks to neighbours.  Each round guesses the count where the line
    through the bracket's peaks meets the budget and tries it with the
    neighbour on the bracket's other side (two guesses that straddle the
    answer end the search); a guess that lands at an end of the bracket is
    tried alone; after ``INTERPOLATIONS`` rounds the rest is bisected.
    The answer is the count that fits where one fewer does not: for a
    ``peak`` that does not grow, the same count bisection finds."""
    peaks: dict[int, float] = {}

    def fits(k: int) -> bool:
        if k not in peaks:
            peaks[k] = peak(k)
        return peaks[k] <= budget

    if most == 0 or fits(0):
        return 0
    if not fits(most):
        return most
    over, fit = 0, most
    rounds = 0
    while fit - over > 1:
        if rounds < INTERPOLATIONS:
            rounds += 1
            high, low = peaks[over], peaks[fit]
            share = (high - budget) / (high - low) if high > low else 0.5
            guess = over + math.ceil(share * (fit - over))
            tries = [min(max(guess, over + 1), fit - 1)]
            tries.append(tries[0] - 1 if fits(tries[0]) else tries[0] + 1)
        else:
            tries = [(over + fit) // 2]
        for k in tries:
            if not over < k < fit:
                continue
            if fits(k):
                fit = k
            else:
                over = k
    return fit


# Rounds of ``fewest_fitting`` that interpolate before it bisects.
INTERPOLATIONS = 2


def unbounded_memory(cost_model: str) -> str:
    """``cost_model`` with its device memory (``mem=``) lifted: every plan
    fits it, so the propagation plans as without a budget."""
    first, bar, scenarios = cost_model.partition("|")
    items = [
        item
        for item in first.split(",")
        if item.strip() not in ("", "default")
        and item.partition("=")[0].strip() != "mem"
    ]
    return ",".join([*items, f"mem={LIFTED_MEMORY:g}"]) + bar + scenarios


LIFTED_MEMORY = 1e18  # bytes: the most ``mem=`` takes, more than any plan needs


def _functions(op: ModuleOp) -> list[func.FuncOp]:
    return [f for f in op.ops if isinstance(f, func.FuncOp) and not f.is_declaration]


def _found(f: func.FuncOp) -> list[Layer]:
    read = read_function(f)
    if carries_remat(read.function, lambda n: _is_barrier(read.ops[n])):
        return []
    return layers(read.function)


def _is_barrier(op: Operation) -> bool:
    return isinstance(op, OptimizationBarrierOp)


def ladder(count: int, policy: str) -> list[dict[int, str]]:
    """``layers=auto``'s choices for ``count`` layers under ``policy``, from
    recomputing least to most: step ``k`` recomputes ``ladder(...)[k - 1]``
    (a layer's position among the found ones, to its policy).  ``full``:
    the first ``k`` layers whole.  ``dots``: ``dots`` on the first ``k``
    layers, then ``dots`` on every layer with the first ``k - count`` whole.
    Each step keeps a subset of what the step before kept (a whole layer
    keeps nothing of what ``dots`` would), so its peak is no higher."""
    steps = [{j: policy for j in range(k)} for k in range(1, count + 1)]
    if policy != FULL:
        every = steps[-1] if steps else {}
        steps += [{**every, **{j: FULL for j in range(k)}} for k in range(1, count + 1)]
    return steps


def _named(
    f: func.FuncOp, found: list[Layer], choice: str | int, policy: str
) -> dict[int, str]:
    """The layers ``choice`` names with their policies (a number: that step
    of ``ladder``)."""
    if isinstance(choice, int):
        steps = ladder(len(found), policy)
        step = steps[min(choice, len(steps)) - 1] if choice > 0 and steps else {}
        return {found[j].index: p for j, p in step.items()}
    if choice == "none":
        return {}
    if choice == "all":
        return {layer.index: policy for layer in found}
    wanted = sorted({int(p) for p in choice.split(",")})
    by_index = {layer.index: layer for layer in found}
    missing = [k for k in wanted if k not in by_index]
    if missing:
        raise LocatedError(
            f,
            f"sbp-remat: no layer {missing[0]} to recompute: the step has "
            f"{len(found)} repeated layers whose backward reads activations",
        )
    return {k: policy for k in wanted}


def recompute(f: func.FuncOp, choice: str | int, policy: str = FULL) -> list[int]:
    """Recompute the layers ``choice`` names (``layers``' syntax, or a step
    of ``ladder``) among ``f``'s under ``policy``; write and return their
    indices (a step carrying remat already: none)."""
    read = read_function(f)
    if carries_remat(read.function, lambda n: _is_barrier(read.ops[n])):
        return []
    found = layers(read.function)
    chosen = _named(f, found, choice, policy)
    end = turn(read.function)
    barriers = []
    for layer in found:
        if layer.index not in chosen:
            continue
        cone = layer.cone(read.function, chosen[layer.index])
        barrier = None if cone is None else _rewrite(read, cone, end)
        if barrier is not None:
            barriers.append((layer.index, barrier))
    done = [index for index, _ in barriers]
    if done:
        f.attributes[RECOMPUTED] = ArrayAttr([IntAttr(k) for k in done])
        f.attributes[POLICIES_ATTR] = ArrayAttr([StringAttr(chosen[k]) for k in done])
        _pin_sinks(f, [b for _, b in barriers])
    return done


def _rewrite(read: ReadFunction, cone: Cone, end: int) -> OptimizationBarrierOp | None:
    """Clone ``cone``'s ops before its first backward use, reading its
    inputs through a barrier, and point the backward at the clones; the
    barrier (None: the inputs are not all tensors)."""
    inputs = [read.values[v] for v in cone.inputs]
    if not all(isinstance(v.type, TensorType) for v in inputs):
        return None
    anchor = _anchor(read, cone.first_use, end)
    fenced = inputs + ([anchor] if anchor is not None else [])
    at = read.ops[cone.first_use]
    block = at.parent_block()
    assert block is not None
    barrier = OptimizationBarrierOp(fenced)
    block.insert_op_before(barrier, at)
    mapping: dict[SSAValue, SSAValue] = dict(
        zip(inputs, barrier.results[: len(inputs)], strict=True)
    )
    if anchor is not None:  # its readers read it through the barrier
        _read_through(anchor, barrier.results[-1], barrier)
    for n in cone.ops:
        clone = read.ops[n].clone(value_mapper=mapping)
        block.insert_op_before(clone, at)
        for old, new in zip(read.ops[n].results, clone.results, strict=True):
            mapping[old] = new
    backward = set(read.ops[end:])
    for v in cone.recomputed:
        old = read.values[v]
        for use in list(old.uses):
            if use.operation in backward:
                use.operation.operands[use.index] = mapping[old]
    return barrier


def _pin_sinks(f: func.FuncOp, barriers: list[OptimizationBarrierOp]) -> None:
    """Fence into each recomputation barrier the values computed since the
    one before that nothing reads before it: the loss, the weight gradients
    (read by the optimizer's update at the end) and the like, each read from
    the barrier after.  Nothing else orders them, and XLA:GPU's scheduler,
    with memory to spare, runs them last: the logits and their gradient then
    lived through the whole backward (bench/gpu_mesh_memory.py --deviceless:
    the 8B's widths at sequence 4096, every layer recomputed, 13.40 GiB
    against a plan of 10.03).  Fenced, they run where the program writes
    them, which is the order the memory model counts."""
    block = f.body.block
    order = {op: n for n, op in enumerate(block.ops)}
    fenced = sorted(barriers, key=order.__getitem__)
    derived = _constant_derived(block)
    ops = list(block.ops)
    start = 0
    for barrier in fenced:
        at = order[barrier]
        sinks = [
            r
            for op in ops[start:at]
            if not isinstance(op, OptimizationBarrierOp) and op not in derived
            for r in op.results
            if isinstance(r.type, TensorType)
            and r.uses
            and all(order[_top(u.operation, block)] > at for u in r.uses)
        ]
        start = at + 1
        if not sinks:
            continue
        wider = OptimizationBarrierOp([*barrier.operands, *sinks])
        block.insert_op_before(wider, barrier)
        kept = len(barrier.operands)
        for old, new in zip(barrier.results, wider.results[:kept], strict=True):
            old.replace_all_uses_with(new)
        block.erase_op(barrier)
        for sink, result in zip(sinks, wider.results[kept:], strict=True):
            _read_through(sink, result, wider)
        order[wider] = at


def _top(op: Operation, block: Block) -> Operation:
    """``op``, or the op of ``block`` whose region holds it."""
    while op.parent_block() is not block:
        parent = op.parent_op()
        assert parent is not None
        op = parent
    return op


def _constant_derived(block: Block) -> set[Operation]:
    """The ops of ``block`` computed from constants alone (a broadcast zero):
    XLA makes them where they are read, and fencing one would keep it."""
    derived: set[Operation] = set()
    for op in block.ops:
        if not op.regions and all(
            isinstance(o.owner, Operation) and o.owner in derived for o in op.operands
        ):
            derived.add(op)
    return derived


def _read_through(value: SSAValue, fenced: SSAValue, barrier: Operation) -> None:
    """Point ``value``'s readers other than ``barrier`` at ``fenced``, its
    result through the barrier.  A barrier result nothing reads is dropped
    by XLA:GPU before scheduling (with it the order it imposed: the
    recomputation was scheduled beside the forward's ops, 1.07x the memory
    of keeping the activations, bench/gpu_mesh_memory.py --deviceless)."""
    for use in list(value.uses):
        if use.operation is not barrier:
            use.operation.operands[use.index] = fenced


def _anchor(read: ReadFunction, first_use: int, end: int) -> SSAValue | None:
    """The last tensor a backward op computes before ``first_use`` (the
    recomputation waits for it), None before any."""
    for n in range(first_use - 1, end - 1, -1):
        for r in read.ops[n].results:
            if isinstance(r.type, TensorType):
                return r
    return None
