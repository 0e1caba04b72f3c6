"""Run sbpc's passes from Python, as ``sbpc-opt -p`` does on the command line."""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects import arith, builtin, func, linalg, tensor
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import PassPipeline

from sbpc.dialects.chlo import CHLO
from sbpc.dialects.module_verify import verify_module
from sbpc.dialects.sbp import SBP, verify_sbp_annotations
from sbpc.dialects.sdy import SDY
from sbpc.dialects.stablehlo import StableHLO
from sbpc.passes.universe import SBPC_UNIVERSE


def default_context() -> Context:
    """A context with the dialects sbpc reads: builtin, func, arith, linalg,
    tensor, sbp, stablehlo, chlo and sdy."""
    ctx = Context()
    for dialect in (
        builtin.Builtin,
        func.Func,
        arith.Arith,
        linalg.Linalg,
        tensor.Tensor,
    ):
        ctx.load_dialect(dialect)
    ctx.load_dialect(SBP)
    ctx.load_dialect(StableHLO)
    ctx.load_dialect(CHLO)
    ctx.load_dialect(SDY)
    return ctx


def parse_module(
    text: str, ctx: Context | None = None, name: str = "<input>"
) -> ModuleOp:
    from sbpc.dialects.fast_parser import FastParser

    return FastParser(ctx or default_context(), text, name).parse_module()


def run_passes(module: ModuleOp, spec: str, ctx: Context | None = None) -> ModuleOp:
    """Apply a pipeline such as ``"sbp-inline,sbp-propagate{strategy=bfs}"``.

    The module's sbp annotations are verified first, as ``sbpc-opt`` does
    after parsing (annotations set from Python skip the parser's checks).
    """
    verify_sbp_annotations(module)
    pipeline = PassPipeline.parse_spec(SBPC_UNIVERSE.all_passes, spec)
    pipeline.apply(ctx or default_context(), module)
    verify_module(module)
    return module
