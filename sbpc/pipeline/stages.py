"""Cutting a microbatched step into stages.

The loop's ops, in program order, are cut into ``2s`` contiguous phases:
the forward of stage 0, 1, ..., s-1, then the backward of stage s-1, ...,
0 (JAX writes a step's forward, then its backward in reverse layer order).
Cutting a topological order into contiguous pieces can never make a phase
wait for a later one, so any cut is a valid pipeline; the cut chosen keeps
each stage's weights and their gradients together and balances the stages:

- the *turn* between forward and backward is the end of the loss: the last
  loop op the scalar contributions (the loss) are computed from;
- the forward cuts fall where a parameter is first used (a layer's start):
  stage ``k`` starts at cut ``k``, and owns the parameters first used in it;
- the backward cut between stage ``k`` and ``k-1`` comes after the last use
  of any parameter of stage ``k`` or later (its weight gradients) and, where
  it can, before the backward's first use of a parameter of stage ``k-1``;
  within that window, where the fewest bytes cross;
- among forward cuts, a local search minimises the slowest stage's time per
  microbatch (its ops, priced on one device) plus the transfers it receives.

Ops outside the loop go where their values are used (before the loop: the
first stage that uses them; an argument with them) or where their operands
live (after the loop: the optimizer update runs on its gradient's stage).
Values made from constants only float: every stage makes its own.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from .function import Function, ValueId
from .microbatch import SUM, Microbatching, Phase


class Direction(StrEnum):
    """A loop op's half of the step."""

    FWD = "fwd"
    BWD = "bwd"


class StageError(ValueError):
    """The step cannot be cut into that many stages."""


@dataclass
class StageCut:
    """Every op's stage (None: it floats), loop ops' directions, and where
    each value is wanted on another stage than its own."""

    stages: int
    node_stage: list[int | None]
    direction: dict[int, Direction]
    value_stage: dict[ValueId, int | None]
    # (node, operand index) -> the stage that operand must be moved to.
    moves: dict[tuple[int, int], int] = field(default_factory=dict)
    fwd_cuts: tuple[int, ...] = ()  # loop positions where stages 1.. start
    bwd_cuts: tuple[int, ...] = ()  # loop positions where B(s-1) starts, s = 1..
    turn: int = 0  # loop position of the first backward op

    def stage_of(self, v: ValueId) -> int | None:
        return self.value_stage.get(v)


def cut(
    f: Function,
    mb: Microbatching,
    stages: int,
    cost: Sequence[float],
    transfer_time: Callable[[ValueId], float],
) -> StageCut:
    """Cut ``f``'s loop into ``stages`` stages (``cost``: seconds of each
    node per microbatch on one device; ``transfer_time``: seconds to move a
    value between stages)."""
    loop = mb.loop_nodes()
    pos = {n: p for p, n in enumerate(loop)}
    params = _parameters(f, mb)
    uses = _parameter_uses(f, loop, params)
    for a, ps in _gradient_owners(f, mb, params).items():
        n = f.producer.get(a)
        if n in pos:
            for p in ps:
                if p in uses:
                    uses[p] = sorted({*uses[p], pos[n]})
    turn = _turn(f, mb, loop, pos)
    if stages == 1:
        fwd: tuple[int, ...] = ()
        bwd: tuple[int, ...] = ()
    else:
        fwd, bwd = _search(f, loop, pos, uses, turn, stages, cost, transfer_time)
    loop_stage = _loop_stages(len(loop), turn, fwd, bwd)
    result = _place(f, mb, loop, loop_stage, stages)
    result.direction = {
        n: Direction.FWD if p < turn else Direction.BWD for p, n in enumerate(loop)
    }
    result.fwd_cuts, result.bwd_cuts, result.turn = fwd, bwd, turn
    return result


# -- what the loop uses ---------------------------------------------------------


def _parameters(f: Function, mb: Microbatching) -> dict[ValueId, frozenset[ValueId]]:
    """The non-batch arguments each value outside the loop is computed from."""
    out: dict[ValueId, frozenset[ValueId]] = {
        a: frozenset() if a in mb.batch else frozenset({a}) for a in f.args
    }
    for n, node in enumerate(f.nodes):
        if mb.phase[n] is Phase.LOOP:
            continue
        got = frozenset().union(*(out.get(v, frozenset()) for v in node.operands))
        for r in node.results:
            out[r] = got
    return out


def _parameter_uses(
    f: Function, loop: list[int], params: dict[ValueId, frozenset[ValueId]]
) -> dict[ValueId, list[int]]:
    """Loop positions using each parameter (directly or through values made
    from it before the loop), in order."""
    uses: dict[ValueId, list[int]] = {}
    for p, n in enumerate(loop):
        seen: set[ValueId] = set()
        for v in f.nodes[n].operands:
            for a in params.get(v, ()):
                if a not in seen:
                    seen.add(a)
                    uses.setdefault(a, []).append(p)
    return uses


def _gradient_owners(
    f: Function, mb: Microbatching, params: dict[ValueId, frozenset[ValueId]]
) -> dict[ValueId, frozenset[ValueId]]:
    """The parameters each accumulated contribution updates: those the ops
    after the loop that read its sum also read (``p - lr * g``: ``g``'s owner
    is ``p``).  A weight's gradient then counts as a use of the weight, and
    lands on its stage."""
    accs = set(mb.accumulated)
    reach: dict[ValueId, frozenset[ValueId]] = {a: frozenset({a}) for a in accs}
    owns: dict[ValueId, frozenset[ValueId]] = {}
    out: dict[ValueId, set[ValueId]] = {}
    for n, node in enumerate(f.nodes):
        if mb.phase[n] is not Phase.POST:
            continue
        got = frozenset().union(*(reach.get(v, frozenset()) for v in node.operands))
        mine = frozenset().union(
            *(owns.get(v, params.get(v, frozenset())) for v in node.operands)
        )
        for r in node.results:
            reach[r] = got
            owns[r] = mine
        for a in got:
            out.setdefault(a, set()).update(mine)
    return {a: frozenset(ps) for a, ps in out.items()}


def _turn(f: Function, mb: Microbatching, loop: list[int], pos: dict[int, int]) -> int:
    """Loop position of the first backward op: just after the last loop op
    a scalar contribution (the loss) is computed from; half way without
    one."""
    scalars = [v for v in mb.accumulated if f.types[v].rank == 0]
    if not scalars:
        return len(loop) // 2
    last = -1
    todo = [f.producer[v] for v in scalars if v in f.producer]
    seen: set[int] = set()
    while todo:
        n = todo.pop()
        if n in seen or n not in pos:
            continue
        seen.add(n)
        last = max(last, pos[n])
        todo.extend(f.producer[v] for v in f.nodes[n].operands if v in f.producer)
    return last + 1


# -- the search -----------------------------------------------------------------


def _search(
    f: Function,
    loop: list[int],
    pos: dict[int, int],
    uses: dict[ValueId, list[int]],
    turn: int,
    stages: int,
    cost: Sequence[float],
    transfer_time: Callable[[ValueId], float],
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Forward cuts among the parameters' first uses, by local search from
    a balanced start; backward cuts derived from them, then each moved
    within its window to where the step is fastest."""
    first = {a: ps[0] for a, ps in uses.items() if ps[0] < turn}
    candidates = sorted({p for p in first.values() if p > 0})
    if len(candidates) < stages - 1:
        raise StageError(
            f"cannot cut the step into {stages} stages: its forward has "
            f"{len(candidates) + 1} places where parameters start being used"
        )
    loop_cost = [cost[n] for n in loop]
    edges = _loop_edges(f, loop, pos)

    def score(fwd: tuple[int, ...], bwd: tuple[int, ...]) -> float:
        owner = _loop_stages(len(loop), turn, fwd, bwd)
        busy = [0.0] * stages
        for p, c in enumerate(loop_cost):
            busy[owner[p]] += c
        moved: set[tuple[ValueId, int]] = set()
        for v, src, dst in edges:
            s, t = owner[src], owner[dst]
            if s != t and (v, t) not in moved:
                moved.add((v, t))
                busy[t] += transfer_time(v)
        return max(busy)

    def windows(fwd: tuple[int, ...]) -> list[tuple[int, int]]:
        return _backward_windows(fwd, first, uses, turn, stages, len(loop))

    def lows(fwd: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(lo for lo, _ in windows(fwd))

    # Start: cuts where the forward's cumulative cost crosses k/s of it.
    total = sum(loop_cost[:turn]) or 1.0
    run, start = 0.0, []
    k = 1
    for p, c in enumerate(loop_cost[:turn]):
        run += c
        while k < stages and run >= total * k / stages:
            nxt = min((q for q in candidates if q > p), default=None)
            if nxt is not None and (not start or nxt > start[-1]):
                start.append(nxt)
            k += 1
    for q in candidates:  # too few found: fill with the next free ones
        if len(start) >= stages - 1:
            break
        if q not in start:
            start.append(q)
    best = tuple(sorted(start)[: stages - 1])
    best_score = score(best, lows(best))
    index = {q: i for i, q in enumerate(candidates)}
    improved = True
    while improved:
        improved = False
        for j in range(len(best)):
            for step in (-2, -1, 1, 2):
                i = index[best[j]] + step
                if not 0 <= i < len(candidates):
                    continue
                trial = tuple(sorted({*best[:j], candidates[i], *best[j + 1 :]}))
                if len(trial) != len(best):
                    continue
                got = score(trial, lows(trial))
                if got < best_score - 1e-15:
                    best, best_score, improved = trial, got, True
    bwd = list(lows(best))
    for j, (lo, hi) in enumerate(windows(best)):
        upper = bwd[j - 1] if j > 0 else len(loop)
        top = min(hi, upper)
        step = max(1, (top - lo) // 256)  # a long window: every step-th place
        choice, choice_score = bwd[j], score(best, tuple(bwd))
        for d in range(lo, top + 1, step):
            trial = (*bwd[:j], d, *bwd[j + 1 :])
            got = score(best, trial)
            if got < choice_score - 1e-15:
                choice, choice_score = d, got
        bwd[j] = choice
    return best, tuple(bwd)


def _backward_windows(
    fwd: tuple[int, ...],
    first: dict[ValueId, int],
    uses: dict[ValueId, list[int]],
    turn: int,
    stages: int,
    n: int,
) -> list[tuple[int, int]]:
    """For s = 1..stages-1, where the backward of stage s-1 may start: after
    every use of a parameter of stage s or later (its gradient included),
    and, where that leaves room, up to the backward's first use of a
    parameter of an earlier stage."""

    def stage_of(a: ValueId) -> int:
        return sum(1 for c in fwd if c <= first[a])

    out = []
    for s in range(1, stages):
        lo = max([turn, *(uses[a][-1] + 1 for a in first if stage_of(a) >= s)])
        lo = min(lo, n)
        later = [p for a in first if stage_of(a) < s for p in uses[a] if p >= turn]
        hi = max(lo, min(later, default=n))
        out.append((lo, hi))
    for i in range(len(out) - 2, -1, -1):  # d(s) >= d(s+1)
        lo, hi = out[i]
        lo = max(lo, out[i + 1][0])
        out[i] = (lo, max(lo, hi))
    return out


def _loop_edges(
    f: Function, loop: list[int], pos: dict[int, int]
) -> list[tuple[ValueId, int, int]]:
    """(value, producer position, consumer position) between loop ops."""
    edges = []
    for p, n in enumerate(loop):
        for v in f.nodes[n].operands:
            q = pos.get(f.producer.get(v, -1))
            if q is not None:
                edges.append((v, q, p))
    return edges


def _loop_stages(
    n: int, turn: int, fwd: tuple[int, ...], bwd: tuple[int, ...]
) -> list[int]:
    """The stage of each loop position under the cuts."""
    stages = len(fwd) + 1
    out = []
    for p in range(n):
        if p < turn:
            out.append(sum(1 for c in fwd if c <= p))
        else:
            out.append(stages - 1 - sum(1 for d in bwd if d <= p))
    return out


# -- ops outside the loop ---------------------------------------------------------


def _place(
    f: Function,
    mb: Microbatching,
    loop: list[int],
    loop_stage: list[int],
    stages: int,
) -> StageCut:
    """Stages of every node and value, and the operands to move."""
    node_stage: list[int | None] = [None] * len(f.nodes)
    for p, n in enumerate(loop):
        node_stage[n] = loop_stage[p]
    floating = _floating(f)
    value_stage: dict[ValueId, int | None] = {}

    def settle_pre() -> None:
        # Before the loop, backwards: where the (first) consumer is.
        for n in reversed(range(len(f.nodes))):
            if mb.phase[n] is not Phase.PRE or node_stage[n] is not None:
                continue
            if all(r in floating for r in f.nodes[n].results):
                continue
            node_stage[n] = _consumer_stage(f, f.nodes[n].results, node_stage)

    settle_pre()
    for n, node in enumerate(f.nodes):  # after the loop: where operands live
        if mb.phase[n] is not Phase.POST or all(r in floating for r in node.results):
            continue
        got = [_value_stage(f, v, node_stage) for v in node.operands]
        after = [
            s
            for v, s in zip(node.operands, got, strict=True)
            if v in mb.after or mb.time.get(v) == SUM
        ]
        known = [s for s in (*after, *got) if s is not None]
        node_stage[n] = known[0] if known else None
    settle_pre()
    for n, node in enumerate(f.nodes):
        if node_stage[n] is None and not all(r in floating for r in node.results):
            node_stage[n] = 0
    for a in f.args:
        s = _consumer_stage(f, (a,), node_stage)
        value_stage[a] = 0 if s is None else s
    for n, node in enumerate(f.nodes):
        for r in node.results:
            value_stage[r] = None if r in floating else node_stage[n]
    moves: dict[tuple[int, int], int] = {}
    for n, node in enumerate(f.nodes):
        here = node_stage[n]
        if here is None:
            continue
        for i, v in enumerate(node.operands):
            s = value_stage.get(v)
            if s is not None and s != here:
                moves[(n, i)] = here
    return StageCut(stages, node_stage, {}, value_stage, moves)


def _floating(f: Function) -> set[ValueId]:
    """Values computed from constants only."""
    out: set[ValueId] = set()
    for node in f.nodes:
        if all(v in out for v in node.operands):
            out.update(node.results)
    return out


def _value_stage(f: Function, v: ValueId, node_stage: list[int | None]) -> int | None:
    n = f.producer.get(v)
    return None if n is None else node_stage[n]


def _consumer_stage(
    f: Function, values: Sequence[ValueId], node_stage: list[int | None]
) -> int | None:
    """The lowest stage among the staged consumers of ``values``."""
    found = [
        node_stage[n] for v in values for n, _ in f.uses(v) if node_stage[n] is not None
    ]
    return min(found) if found else None  # type: ignore[type-var]
