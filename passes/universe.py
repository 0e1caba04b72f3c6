"""sbpc's xDSL plugin: makes its dialects, passes and targets visible to any
xDSL tool (``xdsl-opt``, ``sbpc-opt``, other compilers) through the
``xdsl.universe`` entry point declared in pyproject.toml.

Factories import lazily so that loading the universe stays cheap.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from xdsl.universe import Universe


def _lazy(module: str, name: str) -> Callable[[], Any]:
    """A factory that imports ``module`` and returns its ``name`` when the
    tool first asks for it."""
    return lambda: getattr(importlib.import_module(module), name)


SBPC_UNIVERSE = Universe(
    all_dialects={
        "sbp": _lazy("sbpc.dialects.sbp", "SBP"),
        "stablehlo": _lazy("sbpc.dialects.stablehlo", "StableHLO"),
        "chlo": _lazy("sbpc.dialects.chlo", "CHLO"),
        "sdy": _lazy("sbpc.dialects.sdy", "SDY"),
    },
    all_passes={
        "sbp-import-sdy": _lazy("sbpc.passes.import_sdy", "SbpImportSdyPass"),
        "sbp-export-sdy": _lazy("sbpc.passes.export_sdy", "SbpExportSdyPass"),
        "sbp-inline": _lazy("sbpc.passes.inline", "SbpInlinePass"),
        "sbp-pipeline": _lazy("sbpc.passes.pipelining", "SbpPipelinePass"),
        "sbp-propagate": _lazy("sbpc.passes.propagate", "SbpPropagatePass"),
        "sbp-lower-boxing": _lazy("sbpc.passes.lower_boxing", "SbpLowerBoxingPass"),
    },
    all_targets={"jax": _lazy("sbpc.passes.jax_target", "JaxTarget")},
)
