"""SBP signatures: one legal combination of operand and result layouts of an op.

A ``Signature`` holds one nd_sbp per operand and per result (OneFlow's
``NdSbpSignature``).  Its text form is the one of ``#sbp.sig<...>``:
``([S(0), B], [B, S(1)]) -> ([S(0), S(1)])``.
"""

from __future__ import annotations

from dataclasses import dataclass

from sbpc.algebra.sbp import NdSbp, SbpSyntaxError, format_nd_sbp, parse_nd_sbp


@dataclass(frozen=True)
class Signature:
    inputs: tuple[NdSbp, ...]
    outputs: tuple[NdSbp, ...]

    def __str__(self) -> str:
        ins = ", ".join(format_nd_sbp(nd) for nd in self.inputs)
        outs = ", ".join(format_nd_sbp(nd) for nd in self.outputs)
        return f"({ins}) -> ({outs})"

    @property
    def ndim(self) -> int:
        """Hierarchy rank the signature is written for (0 for an op without tensors)."""
        for nd in (*self.inputs, *self.outputs):
            return len(nd)
        return 0


def _split_top_level(text: str) -> list[str]:
    """Split ``[a, b], [c]`` at the commas outside brackets and parentheses."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    tail = text[start:]
    if tail.strip() or parts:
        parts.append(tail)
    return [p for p in (q.strip() for q in parts) if p]


def parse_nd_sbp_list(text: str) -> tuple[NdSbp, ...]:
    """``[S(0), B], [B, S(1)]`` -> two nd_sbps."""
    out = []
    for part in _split_top_level(text):
        if not (part.startswith("[") and part.endswith("]")):
            raise SbpSyntaxError(f"expected '[' ... ']' around an nd_sbp, got '{part}'")
        out.append(parse_nd_sbp(part))
    return tuple(out)


def parse_signature(text: str) -> Signature:
    """Parse ``(<nd_sbp>, ...) -> (<nd_sbp>, ...)``."""
    lhs, arrow, rhs = text.partition("->")
    lhs, rhs = lhs.strip(), rhs.strip()
    if not arrow or not (lhs.startswith("(") and lhs.endswith(")")):
        raise SbpSyntaxError("expected '(<nd_sbp>, ...) -> (<nd_sbp>, ...)'")
    if not (rhs.startswith("(") and rhs.endswith(")")):
        raise SbpSyntaxError("expected '(' ... ')' around the result layouts")
    sig = Signature(parse_nd_sbp_list(lhs[1:-1]), parse_nd_sbp_list(rhs[1:-1]))
    lengths = {len(nd) for nd in (*sig.inputs, *sig.outputs)}
    if len(lengths) > 1:
        raise SbpSyntaxError(
            "all nd_sbps of a signature must have the same length, got "
            + ", ".join(str(n) for n in sorted(lengths))
        )
    return sig
