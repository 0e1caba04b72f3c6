"""Which forward activations a training step keeps for its backward pass,
per repeated layer, and what recomputing them would take.

A differentiated step (JAX has run autodiff: forward, backward, optimizer,
flat) is read as a ``Function``:

- the *forward* is every op up to the last one the loss (the returned
  scalar computed from the most ops) is computed from (the *turn*), including the ops JAX's
  linearisation puts there for the backward; every later op is backward
  or optimizer;
- *layers* are found as the stage cut finds layer starts: where a
  parameter is first used.  The arguments in order of their first forward
  use have types ``t0 t1 ...``; the longest run of one block of types
  repeated back to back (``[ln, wq, wk, wv, wo, w1, w2] x L``) is the
  repeated layers, layer ``k`` being the forward ops from the first use of
  its block's first argument to the first use of the next block's (the
  last layer: to the next argument's first use, or to the turn);
- a layer's *saved* values are the results of its ops that a backward op
  reads.  A *policy* says which of them the forward keeps; its ``cone`` is
  the layer ops the others are computed from, stopping at kept values, and
  its *inputs* the values those ops read from outside (the layer's input,
  its parameters, the kept values): recomputing them there, from the
  inputs, just before the first backward use gives the same values.
  ``full`` keeps nothing (the whole layer is recomputed); ``dots`` keeps
  the products with no batch dimensions (the weight products: projections,
  MLP), as JAX's ``dots_with_no_batch_dims_saveable`` does, so that what
  is recomputed is the rest: attention scores and probabilities (products
  with batch dimensions), norms, elementwise ops.

A step that already carries remat (``optimization_barrier``: flax
``nn.remat``, ``jax.checkpoint``) keeps its own: ``carries_remat``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .function import Function, Node, ValueId

FULL, DOTS = "full", "dots"
POLICIES = (FULL, DOTS)


def keeps(policy: str, node: Node) -> bool:
    """Whether ``policy`` keeps ``node``'s results for the backward instead
    of recomputing them: ``dots`` keeps a ``dot_general`` with no batch
    dimensions (a weight product), ``full`` nothing."""
    spec = node.spec
    return (
        policy == DOTS
        and spec is not None
        and spec.name == "stablehlo.dot_general"
        and not spec.attr("lhs_batching_dimensions")
    )


@dataclass(frozen=True)
class Cone:
    """What recomputing a layer under one policy takes."""

    kept: tuple[ValueId, ...]  # saved values the forward keeps
    recomputed: tuple[ValueId, ...]  # saved values recomputed
    ops: tuple[int, ...]  # the layer ops cloned, in program order
    inputs: tuple[ValueId, ...]  # what they read from outside: the layer's
    # input and parameters, and kept values (saved or not)
    first_use: int  # the first backward op reading a recomputed value


@dataclass(frozen=True)
class Layer:
    """One repeated layer of the forward and what its backward reads."""

    index: int
    nodes: tuple[int, ...]  # its forward ops, in program order
    saved: tuple[ValueId, ...]  # results a backward op reads
    first_reads: tuple[int, ...]  # each saved value's first backward reader

    @property
    def first_use(self) -> int:
        """The first backward op reading a saved value."""
        return min(self.first_reads)

    def saved_bytes(self, nbytes: Callable[[ValueId], int]) -> int:
        """Bytes kept from the forward to the backward (``nbytes``: one
        value's)."""
        return sum(nbytes(v) for v in self.saved)

    def cone(self, f: Function, policy: str = FULL) -> Cone | None:
        """The recomputation of the saved values ``policy`` does not keep,
        from the layer's inputs and the values it keeps (None: it keeps
        every saved value)."""
        mine = set(self.nodes)
        kept = tuple(v for v in self.saved if keeps(policy, f.nodes[f.producer[v]]))
        recomputed = [
            (v, use)
            for v, use in zip(self.saved, self.first_reads, strict=True)
            if v not in kept
        ]
        if not recomputed:
            return None
        need: set[int] = set()
        todo = [f.producer[v] for v, _ in recomputed]
        while todo:
            n = todo.pop()
            if n in need or n not in mine or keeps(policy, f.nodes[n]):
                continue
            need.add(n)
            todo.extend(f.producer[v] for v in f.nodes[n].operands if v in f.producer)
        ops = tuple(sorted(need))
        inputs: list[ValueId] = []
        for n in ops:
            for v in f.nodes[n].operands:
                if f.producer.get(v) not in need and v not in inputs:
                    inputs.append(v)
        return Cone(
            kept,
            tuple(v for v, _ in recomputed),
            ops,
            tuple(inputs),
            min(use for _, use in recomputed),
        )


def forward_nodes(f: Function) -> set[int]:
    """The ops the loss is computed from: of the returned scalars, the one
    computed from the most ops (a step counter is computed from one); empty
    without a returned scalar."""
    cones = [
        _cone(f, f.producer[v])
        for v in f.returns
        if v in f.producer and v in f.types and f.types[v].rank == 0
    ]
    return max(cones, key=len, default=set())


def _cone(f: Function, root: int) -> set[int]:
    """``root`` and the ops it is computed from."""
    todo = [root]
    seen: set[int] = set()
    while todo:
        n = todo.pop()
        if n in seen:
            continue
        seen.add(n)
        todo.extend(f.producer[v] for v in f.nodes[n].operands if v in f.producer)
    return seen


def turn(f: Function) -> int:
    """The first op after the forward (0: no returned scalar)."""
    return max(forward_nodes(f), default=-1) + 1


def carries_remat(f: Function, is_barrier: Callable[[int], bool]) -> bool:
    """Whether the step recomputes already (an op ``is_barrier`` says is an
    ``optimization_barrier``)."""
    return any(is_barrier(n) for n in range(len(f.nodes)))


def layers(f: Function) -> list[Layer]:
    """The repeated layers of the step's forward (empty: none found)."""
    fwd = forward_nodes(f)
    if not fwd:
        return []
    order = sorted(fwd)
    first: dict[ValueId, int] = {}
    for p, n in enumerate(order):
        for v in f.nodes[n].operands:
            if v in f.args and v not in first:
                first[v] = p
    used = sorted(first, key=first.__getitem__)
    start, period, count = _repeat([_type_key(f, a) for a in used])
    if count < 2:
        return []
    end = order[-1] + 1
    bounds = [order[first[used[start + k * period]]] for k in range(count)]
    after = start + count * period
    bounds.append(order[first[used[after]]] if after < len(used) else end)
    out = []
    for k in range(count):
        layer = _layer(f, k, tuple(range(bounds[k], bounds[k + 1])), end)
        if layer is not None:
            out.append(layer)
    return out


def _type_key(f: Function, v: ValueId) -> str:
    t = f.types.get(v)
    return repr(t)


def _repeat(keys: list[str]) -> tuple[int, int, int]:
    """``(start, period, count)`` of the longest back-to-back repetition of
    one block of ``keys`` (ties: the shorter block)."""
    best = (0, 1, 1)
    best_len = 0
    n = len(keys)
    for period in range(1, n // 2 + 1):
        for start in range(n - 2 * period + 1):
            count = 1
            block = keys[start : start + period]
            while keys[start + count * period : start + (count + 1) * period] == block:
                count += 1
            if count >= 2 and count * period > best_len:
                best, best_len = (start, period, count), count * period
    return best


def _layer(f: Function, k: int, nodes: tuple[int, ...], end: int) -> Layer | None:
    """Layer ``k`` of the ops ``nodes`` (all before ``end``, the turn), or
    None when the backward reads nothing of it."""
    saved: list[ValueId] = []
    first_reads: list[int] = []
    for n in nodes:
        for r in f.nodes[n].results:
            readers = [c for c, _ in f.uses(r) if c >= end]
            if readers:
                saved.append(r)
                first_reads.append(min(readers))
    if not saved:
        return None
    return Layer(k, nodes, tuple(saved), tuple(first_reads))
