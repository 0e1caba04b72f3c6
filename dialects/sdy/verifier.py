"""Shardings that are plain attributes, checked against their meshes.

The sdy ops check their own shardings (``mesh.check_sharding``);
``verify_sdy_shardings`` checks the ones that are plain attributes (function
arguments and results, op results) the same way, so ``sbpc-opt`` reports
them located, after parsing and after every pass.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.utils.exceptions import VerifyException

from sbpc.dialects.diagnostics import LocatedError

from .attrs import TensorShardingAttr, TensorShardingPerValueAttr
from .mesh import check_sharding

SHARDING = "sdy.sharding"


def verify_sdy_shardings(module: ModuleOp) -> None:
    """Check every ``sdy.sharding`` attribute of ``module``; ``LocatedError``."""
    for op in module.walk():
        try:
            if isinstance(op, FuncOp):
                _func(op)
            attr = op.attributes.get(SHARDING)
            if attr is None:
                continue
            if not isinstance(attr, TensorShardingPerValueAttr):
                raise VerifyException(
                    f"{SHARDING} on an op must be #sdy.sharding_per_value<[...]>"
                )
            if not op.results and _one_without_dims(attr):
                continue  # Shardy's maximal (or replicated) op without results
            if len(attr.shardings.data) != len(op.results):
                raise VerifyException(
                    f"{SHARDING}: {len(attr.shardings.data)} shardings for "
                    f"{len(op.results)} results"
                )
            for i, (s, r) in enumerate(
                zip(attr.shardings.data, op.results, strict=True)
            ):
                check_sharding(op, s, r.type, f"result #{i}")
        except VerifyException as e:
            raise LocatedError(op, str(e)) from e


def _func(f: FuncOp) -> None:
    for what, attrs, types in (
        ("argument", f.arg_attrs, f.function_type.inputs.data),
        ("result", f.res_attrs, f.function_type.outputs.data),
    ):
        if not isinstance(attrs, ArrayAttr):
            continue
        for i, (d, t) in enumerate(zip(attrs.data, types, strict=False)):
            s = d.data.get(SHARDING) if isinstance(d, DictionaryAttr) else None
            if s is None:
                continue
            if not isinstance(s, TensorShardingAttr):
                raise VerifyException(
                    f"{what} #{i}: {SHARDING} must be #sdy.sharding<...>"
                )
            check_sharding(f, s, t, f"{what} #{i}")


def _one_without_dims(attr: TensorShardingPerValueAttr) -> bool:
    """One sharding that names no dimension: how Shardy marks where an op
    without results (a side effect) runs."""
    shardings = attr.shardings.data
    return len(shardings) == 1 and not shardings[0].dims.data
