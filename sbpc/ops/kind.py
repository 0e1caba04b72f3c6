"""One record per op kind: everything sbpc knows about an op name, in one place.

An op kind (``stablehlo.add``, ``mydialect.scale``) has five facets, each
supplied by the layer that understands it:

- ``rules``: 1-D SBP signatures, OneFlow's GetSbpFn
  (``sbpc.ops.registry.register_rule``);
- ``local``: the op one device runs, where attributes hold shapes or
  positions (``sbpc.ops.registry.register_local``);
- ``evaluator``: numpy reference semantics
  (``sbpc.ops.evaluate.register_evaluator``);
- ``jax_emitter``: the op as JAX source text
  (``sbpc.jax_backend.ops.register_emitter``);
- ``ir_extractor``: an xDSL op's attributes as plain values
  (``sbpc.passes.bridge.ops.extracts``).

The core only stores the callables: the JAX back end and the IR bridge add
their facets from their own layers, so nothing here imports them.

sbpc's own rules, locals and evaluators (``stablehlo``, ``chlo``, ``linalg``,
``arith``) live in tables, one ``OpKinds`` per rule module (``BUILTINS``);
importing a rule module registers nothing.  ``sbpc.ops.builtins.op_kinds()``
merges the tables into ``OP_KINDS`` on the first query of a rule, a local op
or an evaluator, keeping what another compiler registered before.  The rule
modules import this one and nothing here imports them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias, TypeVar

import numpy as np

from sbpc.algebra.placement import Coord
from sbpc.algebra.signature import Signature
from sbpc.ops.spec import OpSpec

RuleFn: TypeAlias = Callable[[OpSpec], Iterable[Signature]]
# (global op, op with local types, nd signature, hierarchy, coord) -> local op
LocalFn: TypeAlias = Callable[[OpSpec, OpSpec, Signature, Sequence[int], Coord], OpSpec]
EvalFn: TypeAlias = Callable[[OpSpec, list[np.ndarray]], Sequence[np.ndarray]]
# (op, argument names, context, device-dependent attributes) -> one expression
# per result; the signature proper is ``sbpc.jax_backend.ops.Emitter``.
JaxEmitterFn: TypeAlias = Callable[..., list[str]]
# (xDSL operation, its OpSpec without attributes) -> attributes
IrExtractorFn: TypeAlias = Callable[[Any, OpSpec], Mapping[str, Any]]

Facet: TypeAlias = Literal["local", "evaluator", "jax_emitter", "ir_extractor"]
FACETS: tuple[str, ...] = ("rules", "local", "evaluator", "jax_emitter", "ir_extractor")

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(eq=False)
class OpKind:
    """What sbpc knows about one op name; a facet nobody gave is None (rules: [])."""

    name: str
    rules: list[RuleFn] = field(default_factory=list)
    local: LocalFn | None = None
    evaluator: EvalFn | None = None
    jax_emitter: JaxEmitterFn | None = None
    ir_extractor: IrExtractorFn | None = None

    def facets(self) -> list[str]:
        """The names of the facets this kind has."""
        return [f for f in FACETS if getattr(self, f)]


class OpKinds:
    """Op kinds by name: the registry ``OP_KINDS``, or a rule module's table.

    ``version`` grows with every change, so memos of derived facts (the N-D
    signatures) can tell when they are stale.
    """

    def __init__(self) -> None:
        self._kinds: dict[str, OpKind] = {}
        self.version = 0

    def get(self, name: str) -> OpKind | None:
        """The record of ``name``, None if nothing was ever registered for it."""
        return self._kinds.get(name)

    def entry(self, name: str) -> OpKind:
        """The record of ``name``, made empty if new (for registering)."""
        kind = self._kinds.get(name)
        if kind is None:
            kind = self._kinds[name] = OpKind(name)
        return kind

    def names(self, facet: str) -> list[str]:
        """Sorted names of the kinds that have ``facet``."""
        return sorted(n for n, k in self._kinds.items() if getattr(k, facet))

    def add_rule(self, name: str, fn: RuleFn) -> RuleFn:
        """Add a rule; several rules of one kind are unioned."""
        self.entry(name).rules.append(fn)
        self.version += 1
        return fn

    def remove_rule(self, name: str, fn: RuleFn | None = None) -> None:
        """Remove ``fn`` (None: every rule) from ``name``; absent ones are ignored."""
        kind = self._kinds.get(name)
        if kind is None:
            return
        if fn is None:
            kind.rules.clear()
        elif fn in kind.rules:
            kind.rules.remove(fn)
        self.version += 1

    def set(
        self, name: str, facet: Facet, fn: F | None, *, keep_existing: bool = False
    ) -> F | None:
        """Set one single-valued facet (None clears it).

        ``keep_existing`` leaves a facet that is already set alone: how the
        built-ins arrive after another compiler's registrations.
        """
        kind = self.entry(name)
        if not (keep_existing and getattr(kind, facet) is not None):
            setattr(kind, facet, fn)
            self.version += 1
        return fn

    def remove(self, name: str) -> None:
        """Forget every facet of ``name`` (for tests and overrides)."""
        if self._kinds.pop(name, None) is not None:
            self.version += 1

    def merge(self, other: OpKinds, *, keep_existing: bool) -> None:
        """Add ``other``'s facets: rules after the ones here, the rest as ``set``."""
        for name, kind in other._kinds.items():
            for rule in kind.rules:
                self.add_rule(name, rule)
            for facet in ("local", "evaluator", "jax_emitter", "ir_extractor"):
                fn = getattr(kind, facet)
                if fn is not None:
                    self.set(name, facet, fn, keep_existing=keep_existing)

    # Decorators for tables: ``@BUILTINS.rule("stablehlo.iota")``.

    def rule(self, name: str) -> Callable[[RuleFn], RuleFn]:
        return lambda fn: self.add_rule(name, fn)

    def local(self, name: str) -> Callable[[LocalFn], LocalFn]:
        return lambda fn: self._set_returning(name, "local", fn)

    def evaluator(self, name: str) -> Callable[[EvalFn], EvalFn]:
        return lambda fn: self._set_returning(name, "evaluator", fn)

    def _set_returning(self, name: str, facet: Facet, fn: F) -> F:
        self.set(name, facet, fn)
        return fn

    def registrar(
        self, name: str, facet: Facet, fn: F | None = None
    ) -> F | Callable[[F], F]:
        """Set ``fn`` as ``name``'s ``facet``, or without ``fn`` a decorator that does.

        The one body behind the public ``register_local``/``register_evaluator``/
        ``register_emitter``/``extracts`` style entry points.
        """
        if fn is None:
            return lambda f: self._set_returning(name, facet, f)
        return self._set_returning(name, facet, fn)


OP_KINDS = OpKinds()
