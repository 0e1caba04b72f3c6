"""SBP layouts and boxing steps as JAX source text: PartitionSpecs and collectives.

Hierarchy dim ``k`` of a placement is mesh axis ``d<k>``, or the user's name
for it (``AXIS_NAMES``, set from ``Program.axis_names`` while emitting).  A layout's
PartitionSpec names, for each tensor dim, the mesh axes that split it in
hierarchy order: JAX's tuple of axis names splits a dim major-axis first, so
``("d0", "d1")`` on a 2x4 mesh gives device (i, j) block ``i * 4 + j`` --
the hierarchical nd_sbp meaning (``sbpc.algebra.layout``).  ``B`` and ``P`` entries
name no axis: the global array of a partial layout is its logical value,
replicated, and the body makes the pieces (``local_to_partial``).

A boxing step on hierarchy dims ``dims`` is one JAX collective over the axis
names of those dims (a tuple when several, ordered as the hierarchy, so the
group's linear index ``lax.axis_index(axes)`` is the block index the nd_sbp
gives).  ``check_step`` rejects steps that one collective cannot do (see
``CollectiveOp`` in the sbp dialect): a changed split that is not the
innermost split of its tensor dim, or a partial reduced before a later
hierarchy dim holding another partial kind (pieces combine inner dim first).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar

from sbpc.algebra.sbp import Broadcast, NdSbp, Partial, Sbp, Split, format_nd_sbp
from sbpc.boxing.collective_kind import (
    CHANGES,
    REDUCTIONS,
    CollectiveKind,
    makes,
    split_further,
)
from sbpc.jax_backend.ops import jnp_dtype, py_tuple
from sbpc.ops.spec import is_bool, is_float


class CollectiveError(ValueError):
    """A boxing step that no single JAX collective implements."""


# The mesh axis names of the program being emitted (``Program.axis_names``):
# hierarchy dim k is mesh axis AXIS_NAMES[k], or d<k> beyond them.
AXIS_NAMES: ContextVar[tuple[str, ...]] = ContextVar("AXIS_NAMES", default=())


def axis_name(dim: int) -> str:
    names = AXIS_NAMES.get()
    return names[dim] if dim < len(names) else f"d{dim}"


@contextmanager
def named_axes(names: tuple[str, ...]) -> Iterator[None]:
    """Emit with hierarchy dim ``k`` named ``names[k]``."""
    token = AXIS_NAMES.set(names)
    try:
        yield
    finally:
        AXIS_NAMES.reset(token)


def axes_expr(dims: Sequence[int]) -> str:
    """``"d1"`` for one hierarchy dim, ``("d0", "d1")`` for a group."""
    names = [f'"{axis_name(d)}"' for d in dims]
    return names[0] if len(names) == 1 else "(" + ", ".join(names) + ")"


def _entry(nd_sbp: NdSbp, dim: int) -> str:
    axes = [k for k, s in enumerate(nd_sbp) if isinstance(s, Split) and s.axis == dim]
    return axes_expr(axes) if axes else "None"


def partition_spec(nd_sbp: NdSbp, rank: int, stacked: bool = False) -> str:
    """``P(...)`` source text for a value of tensor rank ``rank`` laid out as ``nd_sbp``.

    ``stacked``: the value is returned as its partial pieces, one leading
    array axis per ``P`` hierarchy dim (``partial_dims``), split by that axis.
    """
    lead = [f'"{axis_name(k)}"' for k in partial_dims(nd_sbp)] if stacked else []
    entries = lead + [_entry(nd_sbp, d) for d in range(rank)]
    return "P(" + ", ".join(entries) + ")"


def partial_dims(nd_sbp: NdSbp) -> list[int]:
    """Hierarchy dims holding a partial, in order."""
    return [k for k, s in enumerate(nd_sbp) if isinstance(s, Partial)]


def identity_expr(kind: str, element: str) -> str:
    """The combine's identity: what a device without a share of the value holds."""
    if kind == "sum":
        return "False" if is_bool(element) else "0"
    if is_bool(element):
        return str(kind == "min")
    if is_float(element):
        return "-jnp.inf" if kind == "max" else "jnp.inf"
    end = "min" if kind == "max" else "max"
    return f"jnp.iinfo({jnp_dtype(element)}).{end}"


def _change(src: Sbp, dst: Sbp) -> str:
    return f"{src} -> {dst}"


def check_step(kind: str, dims: Sequence[int], src: NdSbp, dst: NdSbp) -> None:
    """Raise ``CollectiveError`` unless ``src -> dst`` on ``dims`` is one ``kind`` step."""
    where = f"{kind} dims {list(dims)} {format_nd_sbp(src)} -> {format_nd_sbp(dst)}"
    if kind not in CHANGES:
        raise CollectiveError(f"unknown collective kind '{kind}'")
    n = len(src)
    if len(dst) != n:
        raise CollectiveError(f"{where}: the layouts differ in length")
    if not dims or list(dims) != sorted(set(dims)) or not all(0 <= d < n for d in dims):
        raise CollectiveError(
            f"{where}: 'dims' must be distinct hierarchy dims in increasing order"
        )
    for d in range(n):
        if d not in dims and src[d] != dst[d]:
            raise CollectiveError(
                f"{where}: hierarchy dim {d} is not in 'dims' but changes "
                f"{_change(src[d], dst[d])}"
            )
    first = dims[0]
    for d in dims:
        if (src[d], dst[d]) != (src[first], dst[first]):
            raise CollectiveError(f"{where}: every dim in 'dims' must make one change")
        if not makes(CollectiveKind(kind), src[d], dst[d]):
            raise CollectiveError(
                f"{where}: {_change(src[d], dst[d])} is not a step of {kind}"
            )
    if kind == CollectiveKind.ALL_TO_ALL and src[first] == dst[first]:
        raise CollectiveError(f"{where}: all_to_all must change the split axis")
    further = split_further(src, dst, dims, first)
    if further is not None:
        raise CollectiveError(
            f"{where}: hierarchy dim {further[0]} splits tensor dim {further[1]} "
            "further, so the blocks are not contiguous; change it first"
        )
    if kind in REDUCTIONS:
        kind_here = src[first]
        for later in range(first + 1, n):
            s = src[later]
            if later not in dims and isinstance(s, Partial) and s != kind_here:
                raise CollectiveError(
                    f"{where}: hierarchy dim {later} holds {s}, whose pieces combine "
                    f"before dim {first}'s {kind_here}; reduce dim {later} first"
                )


REDUCE_FN = {"sum": "lax.psum", "max": "lax.pmax", "min": "lax.pmin"}


def _slice_block(x: str, axes: str, dim: int, size: int) -> str:
    """The device's block (group index ``axes``) of ``x`` along ``dim``."""
    return (
        f"lax.dynamic_slice_in_dim({x}, lax.axis_index({axes}) * {size}, {size}, {dim})"
    )


def _bool_reduce(kind: str, x: str, element: str, reduce) -> str:
    """``reduce(x)``; booleans (where ``P(sum)`` is "or") go through int32,
    since JAX's reducing collectives take numbers only."""
    if not is_bool(element):
        return reduce(x)
    return f"({reduce(f'{x}.astype(jnp.int32)')} != 0)"


def step_expr(
    kind: CollectiveKind,
    dims: Sequence[int],
    src: NdSbp,
    dst: NdSbp,
    x: str,
    src_local: Sequence[int],
    dst_local: Sequence[int],
    element: str,
) -> str:
    """The JAX expression of one checked boxing step on local piece ``x``.

    ``src_local`` / ``dst_local`` are the local shapes before and after.
    """
    check_step(kind, dims, src, dst)
    if 0 in src_local or 0 in dst_local:
        # An empty piece: nothing to move (XLA refuses a reduce-scatter
        # whose scattered dim is empty), the result is empty too.
        return f"jnp.zeros({py_tuple(dst_local)}, {jnp_dtype(element)})"
    axes = axes_expr(dims)
    s, t = src[dims[0]], dst[dims[0]]
    if kind == CollectiveKind.ALL_GATHER:
        assert isinstance(s, Split)
        return f"lax.all_gather({x}, {axes}, axis={s.axis}, tiled=True)"
    if kind == CollectiveKind.ALL_REDUCE:
        assert isinstance(s, Partial)
        return _bool_reduce(
            s.kind, x, element, lambda v: f"{REDUCE_FN[s.kind]}({v}, {axes})"
        )
    if kind == CollectiveKind.REDUCE_SCATTER:
        assert isinstance(s, Partial) and isinstance(t, Split)
        if s.kind == "sum":
            return _bool_reduce(
                "sum",
                x,
                element,
                lambda v: (
                    f"lax.psum_scatter({v}, {axes}, scatter_dimension={t.axis}, tiled=True)"
                ),
            )
        reduced = _bool_reduce(
            s.kind, x, element, lambda v: f"{REDUCE_FN[s.kind]}({v}, {axes})"
        )
        return _slice_block(reduced, axes, t.axis, dst_local[t.axis])
    if kind == CollectiveKind.ALL_TO_ALL:
        assert isinstance(s, Split) and isinstance(t, Split)
        return f"lax.all_to_all({x}, {axes}, {t.axis}, {s.axis}, tiled=True)"
    if kind == CollectiveKind.LOCAL_SLICE:
        assert isinstance(t, Split)
        return _slice_block(x, axes, t.axis, dst_local[t.axis])
    assert kind == CollectiveKind.LOCAL_TO_PARTIAL and isinstance(t, Partial)
    if isinstance(s, Broadcast):
        if t.kind != "sum":
            return x  # every copy is a valid max/min piece
        zero = identity_expr("sum", element)
        return f"jnp.where(lax.axis_index({axes}) == 0, {x}, {zero})"
    assert isinstance(s, Split)
    fill = identity_expr(t.kind, element)
    full = f"jnp.full({py_tuple(dst_local)}, {fill}, {jnp_dtype(element)})"
    offset = f"lax.axis_index({axes}) * {src_local[s.axis]}"
    return f"lax.dynamic_update_slice_in_dim({full}, {x}, {offset}, {s.axis})"


def combined_step_expr(
    kind: CollectiveKind,
    dims: Sequence[int],
    hierarchy: Sequence[int],
    changes: Sequence[tuple[NdSbp, NdSbp]],
    xs: Sequence[str],
) -> str:
    """One JAX collective for several independent steps of one ``kind`` on
    ``dims`` (``sbpc.jax_backend.combine`` groups them): a call of the module's
    ``_all_gather_many`` / ``_psum_scatter_many`` / ``_reduce_many``, which
    return the steps' results as a tuple.  ``changes`` are the steps'
    (src, dst) layouts, ``xs`` their local pieces."""
    for src, dst in changes:
        check_step(kind, dims, src, dst)
    axes = axes_expr(dims)
    pieces = "(" + ", ".join(xs) + ("," if len(xs) == 1 else "") + ")"
    group = 1
    for d in dims:
        group *= hierarchy[d]

    def split_axes(side: int) -> str:
        axes_of = []
        for change in changes:
            s = change[side][dims[0]]
            assert isinstance(s, Split)
            axes_of.append(s.axis)
        return py_tuple(axes_of)

    first = changes[0][0][dims[0]]
    if kind == CollectiveKind.ALL_GATHER:
        return f"_all_gather_many({pieces}, {axes}, {split_axes(0)}, {group})"
    if kind == CollectiveKind.REDUCE_SCATTER and first == Partial("sum"):
        return f"_psum_scatter_many({pieces}, {axes}, {split_axes(1)}, {group})"
    if kind == CollectiveKind.ALL_REDUCE:
        assert isinstance(first, Partial)
        return f"_reduce_many({REDUCE_FN[first.kind]}, {pieces}, {axes})"
    raise CollectiveError(f"{kind} from {first} has no combined form")
