"""Padding overhead of a plan's uneven splits, for the plan report.

Under an uneven split every device holds the largest piece in the JAX
lowering (docs/uneven-splits.md), so a value costs its padded bytes: the
largest piece times the number of pieces, against its logical bytes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from sbpc.algebra.layout import is_even, local_shape
from sbpc.algebra.sbp import NdSbp, Split, format_nd_sbp
from sbpc.algebra.tensor_type import TensorType
from sbpc.propagation.graph import OpNode, SourceNode
from sbpc.propagation.plan import Plan


def padded_bytes(tensor: TensorType, nd: NdSbp, hierarchy: Sequence[int]) -> int:
    """The tensor's bytes over all pieces, each padded to the largest."""
    pieces = math.prod(
        n for s, n in zip(nd, hierarchy, strict=True) if isinstance(s, Split)
    )
    local = math.prod(local_shape(tensor.shape, nd, hierarchy))
    element = tensor.nbytes // max(math.prod(tensor.shape), 1)
    return local * pieces * element


def padding_rows(plan: Plan) -> list[dict[str, Any]]:
    """One row per value the plan splits unevenly (arguments, op results)."""
    graph, h = plan.graph, plan.graph.hierarchy
    rows = []
    for node in graph.nodes:
        if isinstance(node, SourceNode):
            pairs = [(node.result, plan.sources[node.id])]
        elif isinstance(node, OpNode):
            outs = plan.signatures[node.id].outputs
            pairs = list(zip(node.results, outs, strict=True))
        else:
            continue
        for v, nd in pairs:
            value = graph.values[v]
            if is_even(value.tensor.shape, nd, h):
                continue
            rows.append(
                {
                    "value": value.name,
                    "type": str(value.tensor),
                    "nd_sbp": format_nd_sbp(nd),
                    "logical_bytes": value.tensor.nbytes,
                    "padded_bytes": padded_bytes(value.tensor, nd, h),
                }
            )
    return rows
