"""Region instructions in the emitted module: ``lax.while_loop`` and
``lax.switch`` inside the ``shard_map``.

A loop's ``cond`` and ``body`` become nested Python functions over the
carried values' local pieces (one layout per carried value, so the pieces
keep their shapes from iteration to iteration, as ``lax.while_loop``
requires); the collectives the body needs run inside it, every iteration.
A ``case`` becomes ``lax.switch`` over one function per branch, its index
mapped to StableHLO's meaning (out of range: the last branch).  Values
defined outside a region are read by closure.  ``reference`` writes the same
structure on global arrays.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from sbpc.algebra.placement import Placement
from sbpc.algebra.sbp import B, NdSbp, format_nd_sbp
from sbpc.jax_backend.line_templates import LineTemplates, op_key
from sbpc.jax_backend.ops import (
    Context,
    UnsupportedOpError,
    assignments,
    op_expressions,
)
from sbpc.program import (
    Block,
    CaseInstr,
    CollectiveInstr,
    Instr,
    LoopInstr,
    OpInstr,
    ValueId,
)


class Host(Context, Protocol):
    """What the region helpers ask of the module's emitter (``emit``)."""

    templates: LineTemplates

    def error(self, message: str, label: str) -> Exception:
        """The emitter's error for ``message`` at the instruction ``label``."""
        ...

    def define(self, v: ValueId, layout: NdSbp, where: Placement, label: str) -> None:
        """Record ``v`` as defined with ``layout`` on ``where``."""
        ...

    def use(self, v: ValueId, layout: NdSbp, where: Placement, label: str) -> None:
        """Check ``v`` is defined with ``layout`` on ``where``."""
        ...

    def analyze_instr(self, instr: Instr, i: int) -> None:
        """Check one instruction (of a region's block)."""
        ...

    def next_region(self) -> int:
        """A fresh number for a region's nested functions."""
        ...

    def label_of(self, instr: Instr, i: int) -> str:
        """How messages and comments name ``instr``."""
        ...


# Lines of one instruction at an indent: (instr, label, indent) -> lines.
LineFn = Callable[[Instr, str, str], list[str]]


def _tuple(items: Sequence[str]) -> str:
    return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"


def _names(values: Sequence[int]) -> list[str]:
    return [f"v{v}" for v in values]


def analyze_region(em: Host, instr: LoopInstr | CaseInstr, label: str) -> None:
    """Check a region's layouts as the emitter checks straight-line code."""
    everywhere_b: NdSbp = (B,) * instr.placement.ndim
    if isinstance(instr, LoopInstr):
        if not (len(instr.operands) == len(instr.results) == len(instr.layouts)):
            raise em.error("a loop needs one layout per carried value", label)
        for v, nd in zip(instr.operands, instr.layouts, strict=True):
            em.use(v, nd, instr.placement, label)
        _analyze_block(em, instr.cond, instr.layouts, (everywhere_b,), instr, label)
        _analyze_block(em, instr.body, instr.layouts, instr.layouts, instr, label)
    else:
        em.use(instr.index, everywhere_b, instr.placement, label)
        for branch in instr.branches:
            _analyze_block(em, branch, (), instr.layouts, instr, label)
    for v, nd in zip(instr.results, instr.layouts, strict=True):
        em.define(v, nd, instr.placement, label)


def _analyze_block(
    em: Host,
    block: Block,
    arg_layouts: Sequence[NdSbp],
    yield_layouts: Sequence[NdSbp],
    instr: LoopInstr | CaseInstr,
    label: str,
) -> None:
    if len(block.args) != len(arg_layouts) or len(block.results) != len(yield_layouts):
        raise em.error("a block's arguments or yields do not fit its region", label)
    for v, nd in zip(block.args, arg_layouts, strict=True):
        em.define(v, nd, instr.placement, label)
    for i, inner in enumerate(block.body):
        em.analyze_instr(inner, i)
    for v, nd in zip(block.results, yield_layouts, strict=True):
        em.use(v, nd, instr.placement, label)


def region_lines(
    em: Host, instr: LoopInstr | CaseInstr, label: str, indent: str, line: LineFn
) -> list[str]:
    """``instr`` as nested functions and a ``lax`` control-flow call."""
    n = em.next_region()
    inner = indent + "    "

    def block_fn(name: str, block: Block, params: str, returns: str) -> list[str]:
        lines = [f"{indent}def {name}({params}):"]
        if block.args:
            lines.append(f"{inner}{_tuple(_names(block.args))} = carry")
        for i, sub in enumerate(block.body):
            lines += line(sub, em.label_of(sub, i), inner)
        lines.append(f"{inner}return {returns}")
        return lines

    if isinstance(instr, LoopInstr):
        cond, body = f"_cond_{n}", f"_body_{n}"
        lines = [f"{indent}# {_one_line(label)}: while, carried {_layouts(instr)}"]
        lines += block_fn(cond, instr.cond, "carry", f"v{instr.cond.results[0]}")
        lines += block_fn(body, instr.body, "carry", _tuple(_names(instr.body.results)))
        init = _tuple(_names(instr.operands))
        outs = _tuple(_names(instr.results))
        lines.append(f"{indent}{outs} = lax.while_loop({cond}, {body}, {init})")
        return lines
    lines = [f"{indent}# {_one_line(label)}: case, results {_layouts(instr)}"]
    names = []
    for k, branch in enumerate(instr.branches):
        names.append(f"_branch_{n}_{k}")
        lines += block_fn(names[-1], branch, "", _tuple(_names(branch.results)))
    last = len(instr.branches) - 1
    i = f"v{instr.index}"
    index = f"jnp.where(({i} < 0) | ({i} > {last}), {last}, {i})"
    outs = _tuple(_names(instr.results))
    lines.append(f"{indent}{outs} = lax.switch({index}, [{', '.join(names)}])")
    return lines


def reference_line(em: Host) -> LineFn:
    """Lines of one instruction of ``reference`` (global arrays)."""

    def line(instr: Instr, label: str, indent: str) -> list[str]:
        if isinstance(instr, LoopInstr | CaseInstr):
            return region_lines(em, instr, label, indent, line)
        if isinstance(instr, CollectiveInstr):
            return [f"{indent}v{instr.result} = v{instr.operand}  # {instr.kind}"]
        assert isinstance(instr, OpInstr)

        def write(names: list[str]) -> list[str]:
            args, outs = names[: len(instr.operands)], names[len(instr.operands) :]
            try:
                exprs = op_expressions(instr.op, args, em)
            except UnsupportedOpError as err:
                raise em.error(str(err), label) from err
            return assignments(outs, exprs, indent)

        key = op_key(instr.op)
        return em.templates.lines(
            None if key is None else ("reference", key, indent),
            _names((*instr.operands, *instr.results)),
            write,
        )

    return line


def _layouts(instr: LoopInstr | CaseInstr) -> str:
    return ", ".join(format_nd_sbp(nd) for nd in instr.layouts) or "none"


def _one_line(text: str) -> str:
    return " ".join(text.splitlines())
