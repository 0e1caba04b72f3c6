"""A subset of Shardy's ``sdy`` dialect: what ``jax.jit(...).lower(...)`` emits.

JAX 0.10 writes its shardings in Shardy's dialect: ``sdy.mesh`` ops naming
the meshes, ``#sdy.sharding`` attributes on function arguments and results,
``sdy.sharding_constraint`` for ``with_sharding_constraint`` and
``sdy.manual_computation`` (with ``sdy.return``) for ``shard_map``.  This
package parses and prints them as Shardy does (``attrs``, ``mesh``, ``ops``), so a
lowered JAX module reads in unchanged and printed modules re-parse.
``sbp-import-sdy`` and ``sbp-export-sdy`` translate to and from sbp.
"""

from __future__ import annotations

from xdsl.ir import Dialect

from .attrs import (
    AxisRefAttr,
    DimShardingAttr,
    ManualAxesAttr,
    MeshAttr,
    TensorShardingAttr,
    TensorShardingPerValueAttr,
)
from .mesh import MeshOp, check_rank, check_sharding, mesh_of
from .ops import ManualComputationOp, ReturnOp, ShardingConstraintOp
from .verifier import SHARDING, verify_sdy_shardings

SDY = Dialect(
    "sdy",
    [MeshOp, ShardingConstraintOp, ManualComputationOp, ReturnOp],
    [
        MeshAttr,
        AxisRefAttr,
        DimShardingAttr,
        TensorShardingAttr,
        TensorShardingPerValueAttr,
        ManualAxesAttr,
    ],
)

__all__ = [
    "SDY",
    "SHARDING",
    "AxisRefAttr",
    "DimShardingAttr",
    "ManualAxesAttr",
    "ManualComputationOp",
    "MeshAttr",
    "MeshOp",
    "ReturnOp",
    "ShardingConstraintOp",
    "TensorShardingAttr",
    "TensorShardingPerValueAttr",
    "check_rank",
    "check_sharding",
    "mesh_of",
    "verify_sdy_shardings",
]
