"""Shardings checked against their meshes, wherever they appear.

Shardy's verifier rejects a sharding that names an unknown mesh or axis,
uses an axis twice, has a malformed sub-axis, or has not one dimension
sharding per tensor dimension.  The sdy ops check their own shardings
(``check_sharding``); ``verify_sdy_shardings`` checks the ones that are
plain attributes (function arguments and results, op results), so
``sbpc-opt`` reports them located, after parsing and after every pass.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, ModuleOp, TensorType
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Operation
from xdsl.utils.exceptions import VerifyException

from sbpc.dialects.diagnostics import LocatedError

from .attrs import TensorShardingAttr, TensorShardingPerValueAttr
from .ops import mesh_of

SHARDING = "sdy.sharding"


def check_sharding(
    op: Operation, sharding: TensorShardingAttr, t: Attribute, where: str
) -> None:
    """``VerifyException`` if ``sharding`` does not fit its mesh or type ``t``."""
    if isinstance(t, TensorType) and len(sharding.dims.data) != t.get_num_dims():
        raise VerifyException(
            f"{where}: sharding has {len(sharding.dims.data)} dimensions for a "
            f"rank-{t.get_num_dims()} tensor"
        )
    mesh = mesh_of(op, sharding)
    if mesh is None:
        raise VerifyException(f"{where}: unknown mesh @{sharding.mesh_name}")
    sizes = dict(mesh.axes)
    seen: set[str] = set()
    refs = [r for d in sharding.dims.data for r in d.axes.data]
    refs += [*sharding.replicated.data, *sharding.unreduced.data]
    for ref in refs:
        name = ref.axis.data
        if name not in sizes:
            raise VerifyException(f'{where}: unknown axis name "{name}"')
        sub = ref.sub_axis
        if sub is not None:
            pre, size = sub
            if pre < 1 or size <= 1 or sizes[name] % (pre * size):
                raise VerifyException(
                    f"{where}: sub-axis {ref.text()} does not divide axis "
                    f'"{name}" of size {sizes[name]}'
                )
        key = ref.text() if sub is not None else name
        if key in seen or (
            sub is None and any(k.startswith(f'"{name}":') for k in seen)
        ):
            raise VerifyException(f"{where}: axis {ref.text()} is used more than once")
        seen.add(key if sub is not None else name)


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
