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
  reads; its *recompute* is the layer ops those are computed from, and its
  *inputs* the values they read from outside (the layer's input, its
  parameters): recomputing them there, from the inputs, just before the
  first backward use (``first_use``) gives the same values.

A step that already carries remat (``optimization_barrier``: flax
``nn.remat``, ``jax.checkpoint``) keeps its own: ``carries_remat``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .function import Function, ValueId


@dataclass(frozen=True)
class Layer:
    """One repeated layer of the forward and what its backward reads."""

    index: int
    nodes: tuple[int, ...]  # its forward ops, in program order
    saved: tuple[ValueId, ...]  # results a backward op reads
    recompute: tuple[int, ...]  # the ops the saved values are computed from
    inputs: tuple[ValueId, ...]  # what those read from outside the layer
    first_use: int  # the first backward op reading a saved value

    def saved_bytes(self, nbytes: Callable[[ValueId], int]) -> int:
        """Bytes kept from the forward to the backward (``nbytes``: one
        value's)."""
        return sum(nbytes(v) for v in self.saved)


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
    mine = set(nodes)
    saved: list[ValueId] = []
    first_use: int | None = None
    for n in nodes:
        for r in f.nodes[n].results:
            readers = [c for c, _ in f.uses(r) if c >= end]
            if readers:
                saved.append(r)
                first_use = min(
                    readers + ([first_use] if first_use is not None else [])
                )
    if first_use is None:
        return None
    need: set[int] = set()
    todo = [f.producer[v] for v in saved]
    while todo:
        n = todo.pop()
        if n in need or n not in mine:
            continue
        need.add(n)
        todo.extend(f.producer[v] for v in f.nodes[n].operands if v in f.producer)
    recompute = tuple(sorted(need))
    inputs: list[ValueId] = []
    for n in recompute:
        for v in f.nodes[n].operands:
            if f.producer.get(v) not in need and v not in inputs:
                inputs.append(v)
    return Layer(k, nodes, tuple(saved), recompute, tuple(inputs), first_use)
