"""A subset of Shardy's ``sdy`` dialect: what ``jax.jit(...).lower(...)`` emits.

JAX 0.10 writes its shardings in Shardy's dialect: ``sdy.mesh`` ops naming
the meshes, ``#sdy.sharding`` attributes on function arguments and results,
``sdy.sharding_constraint`` for ``with_sharding_constraint`` and
``sdy.manual_computation`` (with ``sdy.return``) for ``shard_map``.  Shardy's
own propagation and partitioner write ``sdy.reshard``, its explicit
collectives and ``sdy.constant`` (``collectives``, ``axis_lists``).  This
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
from .axis_lists import (
    AllToAllParamAttr,
    AllToAllParamListAttr,
    AxisRefListAttr,
    ListOfAxisRefListsAttr,
    ReductionAttr,
)
from .collectives import (
    COLLECTIVES,
    AllGatherOp,
    AllReduceOp,
    AllSliceOp,
    AllToAllOp,
    CollectiveOp,
    CollectivePermuteOp,
    ConstantOp,
    ReduceScatterOp,
    ReshardOp,
    sharding_of_value,
)
from .hints import (
    HINT_OPS,
    NamedComputationOp,
    OpShardingRuleAttr,
    PropagationBarrierOp,
    ShardingGroupOp,
)
from .mesh import MeshOp, check_rank, check_sharding, mesh_of
from .ops import ManualComputationOp, ReturnOp, ShardingConstraintOp
from .verifier import SHARDING, verify_sdy_shardings

SDY = Dialect(
    "sdy",
    [
        MeshOp,
        ShardingConstraintOp,
        ManualComputationOp,
        ReturnOp,
        ReshardOp,
        ConstantOp,
        *COLLECTIVES,
        *HINT_OPS,
    ],
    [
        OpShardingRuleAttr,
        MeshAttr,
        AxisRefAttr,
        DimShardingAttr,
        TensorShardingAttr,
        TensorShardingPerValueAttr,
        ManualAxesAttr,
        AxisRefListAttr,
        ListOfAxisRefListsAttr,
        AllToAllParamAttr,
        AllToAllParamListAttr,
        ReductionAttr,
    ],
)

__all__ = [
    "COLLECTIVES",
    "SDY",
    "SHARDING",
    "AllGatherOp",
    "AllReduceOp",
    "AllSliceOp",
    "AllToAllOp",
    "AllToAllParamAttr",
    "AllToAllParamListAttr",
    "AxisRefAttr",
    "AxisRefListAttr",
    "CollectiveOp",
    "CollectivePermuteOp",
    "ConstantOp",
    "DimShardingAttr",
    "ListOfAxisRefListsAttr",
    "ManualAxesAttr",
    "ManualComputationOp",
    "MeshAttr",
    "MeshOp",
    "NamedComputationOp",
    "OpShardingRuleAttr",
    "PropagationBarrierOp",
    "ReduceScatterOp",
    "ReductionAttr",
    "ReshardOp",
    "ReturnOp",
    "ShardingConstraintOp",
    "ShardingGroupOp",
    "TensorShardingAttr",
    "TensorShardingPerValueAttr",
    "check_rank",
    "check_sharding",
    "mesh_of",
    "sharding_of_value",
    "verify_sdy_shardings",
]
