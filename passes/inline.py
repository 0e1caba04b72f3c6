"""``sbp-inline``: inline calls to private functions, then drop the dead ones.

``jax.jit`` lowers nested jitted helpers (``relu``, ``_where``, ``_take``) to
``func.func private`` functions called with ``call``.  Propagation works on
one function body, so the helpers are inlined first.  Public functions are
never inlined (they are entry points); a private function that (indirectly)
calls itself cannot be inlined and is left in place with a warning.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from itertools import chain

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr, SymbolRefAttr
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from sbpc.dialects.diagnostics import emit


def _is_private(f: func.FuncOp) -> bool:
    return f.sym_visibility == StringAttr("private")


def _callees(f: func.FuncOp) -> set[str]:
    return {
        op.callee.root_reference.data for op in f.walk() if isinstance(op, func.CallOp)
    }


def recursive_functions(
    module: ModuleOp, graph: dict[str, set[str]] | None = None
) -> set[str]:
    """Names of functions that can reach themselves through calls
    (``graph``: each function's name and the names it calls, when the
    caller has it)."""
    if graph is None:
        graph = {
            f.sym_name.data: _callees(f)
            for f in module.ops
            if isinstance(f, func.FuncOp)
        }
    recursive: set[str] = set()
    for start in graph:
        stack, seen = list(graph[start]), set()
        while stack:
            name = stack.pop()
            if name == start:
                recursive.add(start)
                break
            if name in seen or name not in graph:
                continue
            seen.add(name)
            stack.extend(graph[name])
    return recursive


def callees_first(graph: dict[str, set[str]]) -> list[str]:
    """The functions in an order where each comes after those it calls
    (cycles in any order): a body inlined later has its own calls inlined
    already."""
    order: list[str] = []
    seen: set[str] = set()
    for root in sorted(graph):
        if root in seen:
            continue
        seen.add(root)
        stack = [(root, iter(sorted(graph[root])))]
        while stack:
            name, pending = stack[-1]
            nxt = next((c for c in pending if c in graph and c not in seen), None)
            if nxt is None:
                stack.pop()
                order.append(name)
            else:
                seen.add(nxt)
                stack.append((nxt, iter(sorted(graph[nxt]))))
    return order


@dataclass
class InlinePrivateCall(RewritePattern):
    """Replace ``call @f`` by a copy of private ``f``'s body."""

    functions: dict[str, func.FuncOp]
    recursive: set[str]

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: func.CallOp, rewriter: PatternRewriter) -> None:
        name = op.callee.root_reference.data
        callee = self.functions.get(name)
        if callee is None or not _is_private(callee) or callee.is_declaration:
            return
        if name in self.recursive:
            return
        if len(callee.body.blocks) != 1:
            return  # multi-block bodies would need a CFG split at the call
        body = callee.body.clone()
        block = body.blocks.first
        assert block is not None
        ret = block.last_op
        if not isinstance(ret, func.ReturnOp):
            return
        # A returned argument of the callee is the caller's operand.
        results = [
            op.arguments[v.index] if v.owner is block else v for v in ret.arguments
        ]
        block.detach_op(ret)
        ret.erase()
        # Inlining must not rename the caller's values after the callee's arguments.
        hints = [a.name_hint for a in op.arguments]
        rewriter.inline_block(block, InsertPoint.before(op), arg_values=op.arguments)
        for value, hint in zip(op.arguments, hints, strict=True):
            value.name_hint = hint
        rewriter.replace(op, [], results)


def _symbols(ops: Iterable[Operation]) -> set[str]:
    """Every symbol name the ops refer to."""
    names: set[str] = set()
    for op in ops:
        for attr in (*op.attributes.values(), *op.properties.values()):
            if isinstance(attr, SymbolRefAttr):
                names.add(attr.root_reference.data)
    return names


def _unreferenced_private(
    module: ModuleOp, functions: dict[str, func.FuncOp]
) -> list[str]:
    """The private functions nothing refers to once every unreferenced
    private function is gone (one walk of the module: each function's
    references, then the erasures among names)."""
    outside = _symbols(
        chain(
            [module],
            (
                o
                for top in module.ops
                if not isinstance(top, func.FuncOp)
                for o in top.walk()
            ),
        )
    )
    refs = {name: _symbols(f.walk()) for name, f in functions.items()}
    dead: list[str] = []
    erased = True
    while erased:  # erasing a function may leave others unreferenced
        erased = False
        referenced = outside.union(*refs.values())
        for name in list(refs):
            if _is_private(functions[name]) and name not in referenced:
                del refs[name]
                dead.append(name)
                erased = True
    return dead


@dataclass(frozen=True)
class SbpInlinePass(ModulePass):
    """Inline every call to a private function and erase the dead ones."""

    name = "sbp-inline"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        functions = {f.sym_name.data: f for f in op.ops if isinstance(f, func.FuncOp)}
        calls = {
            name: [o for o in f.walk() if isinstance(o, func.CallOp)]
            for name, f in functions.items()
        }
        graph = {
            name: {c.callee.root_reference.data for c in found}
            for name, found in calls.items()
        }
        recursive = recursive_functions(op, graph)
        pattern = InlinePrivateCall(functions, recursive)
        # Only calls are visited (a pattern walker visits every op of the
        # module: 8,000 on an 8-layer decoder's training step, a few dozen
        # calls), callees first, so no body is inlined before its own calls.
        for name in callees_first(graph):
            for call in calls[name]:
                pattern.match_and_rewrite(call, PatternRewriter(call))
        for name in sorted(recursive):
            f = functions[name]
            if _is_private(f):
                emit("warning", f, f"cannot inline recursive function @{name}")
        for name in _unreferenced_private(op, functions):
            f = functions.pop(name)
            f.detach()
            f.erase()
