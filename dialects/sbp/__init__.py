"""The sbp dialect: SBP layouts as IR attributes, plus the ops that change them.

One concept per module, as xDSL lays out a large dialect:

- ``attrs``: ``#sbp.nd<[S(0), B]>``, ``#sbp.placement<cuda, [[0, 1], [2, 3]]>``,
  ``#sbp.sig<([S(0), B], [B]) -> ([S(0)])>`` and the SBP tokens;
- ``annotations``: where those go (``sbp.placement`` on the module,
  ``sbp.nd_sbp`` on func arguments and results, ``sbp.sig`` on ops) and
  accessors that read and write them as plain ``sbpc.algebra`` values;
- ``checks``: the layout rules (length, split axes, even splits);
- ``placement``: which placement each value lives on, the layouts the IR fixes;
- ``ops``: ``sbp.cast``, the one-step boxing ops and ``sbp.transfer``;
- ``pipeline``: ``sbp.microbatch``, ``sbp.accumulate`` and the attributes of a
  pipelined step (``sbp-pipeline``);
- ``verifier``: ``verify_sbp_annotations``, the whole-module check that
  ``sbpc-opt`` runs after parsing (raising ``LocatedError`` at the op at fault).

This module assembles the ``SBP`` dialect and re-exports the public names.
"""

from __future__ import annotations

from xdsl.ir import Dialect

from .annotations import (
    GATHER_PER_USE,
    ND_SBP,
    NO_PLACEMENT,
    PLACEMENT,
    SIG,
    TIED_TO,
    gathered_per_use,
    get_arg_attr,
    get_arg_placement,
    get_nd_sbp_arg_attr,
    get_nd_sbp_res_attr,
    get_res_attr,
    get_signature,
    get_tied_to,
    module_placement,
    module_placement_attr,
    set_arg_attr,
    set_gathered_per_use,
    set_module_placement,
    set_nd_sbp_arg_attr,
    set_nd_sbp_arg_attrs,
    set_nd_sbp_res_attr,
    set_res_attr,
    set_signature,
    set_signatures,
    set_tied_to,
)
from .attrs import (
    NdSbpAttr,
    PlacementAttr,
    SignatureAttr,
    parse_nd_sbp_list,
    parse_sbp_entry,
    print_nd_sbp_list,
)
from .ops import (
    COLLECTIVE_OPS,
    AllGatherOp,
    AllReduceOp,
    AllToAllOp,
    CastOp,
    CollectiveOp,
    LayoutOp,
    LocalSliceOp,
    LocalToPartialOp,
    ReduceScatterOp,
    TransferOp,
    collective_for,
)
from .pipeline import PIPELINE_OPS, AccumulateOp, MicrobatchOp
from .placement import (
    LayoutOpInterface,
    PlacementMap,
    placement_in_force,
    placement_map,
    value_layout,
    value_placement,
)
from .verifier import verify_sbp_annotations

SBP = Dialect(
    "sbp",
    [
        CastOp,
        *COLLECTIVE_OPS,
        TransferOp,
        *PIPELINE_OPS,
    ],
    [NdSbpAttr, PlacementAttr, SignatureAttr],
)

__all__ = [
    "COLLECTIVE_OPS",
    "GATHER_PER_USE",
    "ND_SBP",
    "NO_PLACEMENT",
    "PLACEMENT",
    "SBP",
    "SIG",
    "TIED_TO",
    "AccumulateOp",
    "AllGatherOp",
    "AllReduceOp",
    "AllToAllOp",
    "CastOp",
    "CollectiveOp",
    "LayoutOp",
    "LayoutOpInterface",
    "LocalSliceOp",
    "LocalToPartialOp",
    "MicrobatchOp",
    "NdSbpAttr",
    "PlacementAttr",
    "PlacementMap",
    "ReduceScatterOp",
    "SignatureAttr",
    "TransferOp",
    "collective_for",
    "gathered_per_use",
    "get_arg_attr",
    "get_arg_placement",
    "get_nd_sbp_arg_attr",
    "get_nd_sbp_res_attr",
    "get_res_attr",
    "get_signature",
    "get_tied_to",
    "module_placement",
    "module_placement_attr",
    "parse_nd_sbp_list",
    "parse_sbp_entry",
    "placement_in_force",
    "placement_map",
    "print_nd_sbp_list",
    "set_arg_attr",
    "set_gathered_per_use",
    "set_module_placement",
    "set_nd_sbp_arg_attr",
    "set_nd_sbp_arg_attrs",
    "set_nd_sbp_res_attr",
    "set_res_attr",
    "set_signature",
    "set_signatures",
    "set_tied_to",
    "value_layout",
    "value_placement",
    "verify_sbp_annotations",
]
