"""``sbp-inline``: inline calls to private functions, then drop the dead ones.

``jax.jit`` lowers nested jitted helpers (``relu``, ``_where``, ``_take``) to
``func.func private`` functions called with ``call``.  Propagation works on
one function body, so the helpers are inlined first.  Public functions are
never inlined (they are entry points); a private function that (indirectly)
calls itself cannot be inlined and is left in place with a warning.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr, SymbolRefAttr
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
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


def recursive_functions(module: ModuleOp) -> set[str]:
    """Names of functions that can reach themselves through calls."""
    graph = {
        f.sym_name.data: _callees(f) for f in module.ops if isinstance(f, func.FuncOp)
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


def _referenced(module: ModuleOp) -> set[str]:
    """Every symbol name some op refers to (one walk of the module, rather
    than one walk per function: a JAX module has dozens of helpers)."""
    names: set[str] = set()
    for op in module.walk():
        for attr in (*op.attributes.values(), *op.properties.values()):
            if isinstance(attr, SymbolRefAttr):
                names.add(attr.root_reference.data)
    return names


@dataclass(frozen=True)
class SbpInlinePass(ModulePass):
    """Inline every call to a private function and erase the dead ones."""

    name = "sbp-inline"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        functions = {f.sym_name.data: f for f in op.ops if isinstance(f, func.FuncOp)}
        recursive = recursive_functions(op)
        PatternRewriteWalker(
            InlinePrivateCall(functions, recursive), apply_recursively=True
        ).rewrite_module(op)
        for name in sorted(recursive):
            f = functions[name]
            if _is_private(f):
                emit("warning", f, f"cannot inline recursive function @{name}")
        erased = True
        while erased:  # erasing a function may leave others unreferenced
            erased = False
            referenced = _referenced(op)
            for name, f in list(functions.items()):
                if _is_private(f) and name not in referenced:
                    f.detach()
                    f.erase()
                    del functions[name]
                    erased = True
