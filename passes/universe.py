"""sbpc's xDSL plugin: makes its dialects, passes and targets visible to any
xDSL tool (``xdsl-opt``, ``sbpc-opt``, other compilers) through the
``xdsl.universe`` entry point declared in pyproject.toml.

Factories import lazily so that loading the universe stays cheap.
"""

from __future__ import annotations

from xdsl.ir import Dialect
from xdsl.passes import ModulePass
from xdsl.universe import Universe
from xdsl.utils.target import Target


def _sbp() -> Dialect:
    from sbpc.dialects.sbp import SBP

    return SBP


def _stablehlo() -> Dialect:
    from sbpc.dialects.stablehlo import StableHLO

    return StableHLO


def _chlo() -> Dialect:
    from sbpc.dialects.chlo import CHLO

    return CHLO


def _sdy() -> Dialect:
    from sbpc.dialects.sdy import SDY

    return SDY


def _import_sdy() -> type[ModulePass]:
    from sbpc.passes.import_sdy import SbpImportSdyPass

    return SbpImportSdyPass


def _export_sdy() -> type[ModulePass]:
    from sbpc.passes.export_sdy import SbpExportSdyPass

    return SbpExportSdyPass


def _inline() -> type[ModulePass]:
    from sbpc.passes.inline import SbpInlinePass

    return SbpInlinePass


def _pipeline() -> type[ModulePass]:
    from sbpc.passes.pipelining import SbpPipelinePass

    return SbpPipelinePass


def _remat() -> type[ModulePass]:
    from sbpc.passes.remat import SbpRematPass

    return SbpRematPass


def _propagate() -> type[ModulePass]:
    from sbpc.passes.propagate import SbpPropagatePass

    return SbpPropagatePass


def _lower_boxing() -> type[ModulePass]:
    from sbpc.passes.lower_boxing import SbpLowerBoxingPass

    return SbpLowerBoxingPass


def _jax_target() -> type[Target]:
    from sbpc.passes.jax_target import JaxTarget

    return JaxTarget


SBPC_UNIVERSE = Universe(
    all_dialects={"sbp": _sbp, "stablehlo": _stablehlo, "chlo": _chlo, "sdy": _sdy},
    all_passes={
        "sbp-import-sdy": _import_sdy,
        "sbp-export-sdy": _export_sdy,
        "sbp-inline": _inline,
        "sbp-pipeline": _pipeline,
        "sbp-remat": _remat,
        "sbp-propagate": _propagate,
        "sbp-lower-boxing": _lower_boxing,
    },
    all_targets={"jax": _jax_target},
)
