"""JAX's sharding vocabulary at the front door: meshes, PartitionSpecs, NamedShardings.

``sbpc.jax.distribute`` takes layouts the way ``jax.jit`` takes shardings:
a ``PartitionSpec`` (on the mesh given as ``mesh=``, a ``jax.sharding.Mesh``)
or a ``NamedSharding`` (which carries its mesh) wherever it takes an nd_sbp
string.  This module turns them into nd_sbps on the mesh's axes
(``sbpc.algebra.named_axes``): hierarchy dim k is mesh axis k, named as the
user named it, so the emitted program's ``MESH_AXES``, ``IN_SPECS`` and
``Distributed.shardings()`` speak the user's axis names.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import jax
from jax.sharding import AbstractMesh, Mesh, NamedSharding, PartitionSpec

from sbpc.algebra.named_axes import NamedAxesError, axis_order, nd_sbp_of, spec_dims
from sbpc.algebra.placement import Placement
from sbpc.algebra.sbp import NdSbp


class ShardingError(ValueError):
    """A mesh, PartitionSpec or NamedSharding sbpc cannot take."""


def is_sharding_leaf(x: Any) -> bool:
    """A layout given the JAX way."""
    return isinstance(x, PartitionSpec | NamedSharding)


def is_jitted(fn: Any) -> bool:
    """A ``jax.jit``-wrapped function (lowered with its own shardings)."""
    return callable(fn) and hasattr(fn, "lower") and hasattr(fn, "trace")


def named_mesh(mesh: Any) -> Any:
    """Sizes with axis names as a ``jax.sharding.AbstractMesh`` (a mesh
    without devices): ``((8, 8), ("data", "model"))`` or ``{"data": 8,
    "model": 8}`` (outermost axis first); any other value unchanged."""
    if isinstance(mesh, Mapping):
        sizes, names = tuple(mesh.values()), tuple(mesh.keys())
    elif (
        isinstance(mesh, tuple | list)
        and len(mesh) == 2
        and all(isinstance(m, Sequence) and not isinstance(m, str) for m in mesh)
    ):
        sizes, names = tuple(mesh[0]), tuple(mesh[1])
    else:
        return mesh
    what = f"mesh {mesh!r}"
    if not sizes or len(sizes) != len(names):
        raise ShardingError(f"{what}: give one axis name per size (and at least one)")
    if not all(isinstance(n, str) and n for n in names) or len(set(names)) != len(
        names
    ):
        raise ShardingError(f"{what}: axis names must be distinct non-empty strings")
    if not all(isinstance(n, int) and not isinstance(n, bool) and n > 0 for n in sizes):
        raise ShardingError(f"{what}: axis sizes must be positive integers")
    return AbstractMesh(sizes, names)


def mesh_placement(mesh: Mesh | AbstractMesh) -> Placement:
    """The placement of ``mesh``: its shape, ranks indexing ``jax.devices()``
    (an ``AbstractMesh``, which has no devices: ranks ``0..N-1``, the
    devices the emitted program takes where it runs)."""
    if isinstance(mesh, AbstractMesh):
        return Placement.of_size(tuple(mesh.axis_sizes))
    index = {d: i for i, d in enumerate(jax.devices())}
    try:
        ranks = tuple(index[d] for d in mesh.devices.flat)
    except KeyError as e:
        raise ShardingError(f"mesh device {e} is not among jax.devices()") from e
    return Placement("cpu", tuple(mesh.devices.shape), ranks)


def find_mesh(mesh: Any, *layout_trees: Any) -> Mesh | AbstractMesh | None:
    """The jax mesh: ``mesh`` if it is one (or an ``AbstractMesh``), else the
    one NamedShardings carry."""
    meshes = [mesh] if isinstance(mesh, Mesh | AbstractMesh) else []
    for tree in layout_trees:
        for leaf in jax.tree_util.tree_leaves(tree, is_leaf=is_sharding_leaf):
            if isinstance(leaf, NamedSharding):
                meshes.append(leaf.mesh)
    for m in meshes[1:]:
        first = meshes[0]
        if m.shape_tuple != first.shape_tuple or (
            isinstance(m, Mesh)
            and isinstance(first, Mesh)
            and not (m.devices == first.devices).all()
        ):
            raise ShardingError(
                f"layouts on two meshes ({meshes[0].shape_tuple} and "
                f"{m.shape_tuple}): sbpc distributes over one"
            )
    return meshes[0] if meshes else None


@dataclass(frozen=True)
class Reordered:
    """A layout on the mesh's axes in another order: ``nd`` on the mesh's
    placement ``permuted(order)`` (``P(("y", "x"))`` on a mesh ``("x", "y")``)."""

    nd: NdSbp
    order: tuple[int, ...]


def spec_layout(
    spec: PartitionSpec, axis_names: tuple[str, ...], where: str, reorder: bool = False
) -> NdSbp | Reordered:
    """A PartitionSpec on a mesh with ``axis_names`` as an nd_sbp; with
    ``reorder``, one splitting by axes out of mesh order is ``Reordered``
    (else an error)."""
    entries = list(spec)
    if any(e is PartitionSpec.UNCONSTRAINED for e in entries):
        raise ShardingError(f"{where}: {spec} is unconstrained in part; give None")
    unreduced = tuple(getattr(spec, "unreduced", ()) or ())
    dims = spec_dims(entries, len(entries))
    order = axis_order(dims, axis_names) if reorder else tuple(axis_names)
    try:
        nd = nd_sbp_of(dims, order, unreduced)
    except NamedAxesError as e:
        raise ShardingError(f"{where}: {spec}: {e}") from e
    if order == tuple(axis_names):
        return nd
    return Reordered(nd, tuple(axis_names.index(a) for a in order))


def resolve_layouts(tree: Any, axis_names: tuple[str, ...], what: str) -> Any:
    """``tree`` with every PartitionSpec/NamedSharding leaf made an nd_sbp on
    a mesh with ``axis_names`` (none: a PartitionSpec is an error)."""

    def one(leaf: Any) -> Any:
        if not is_sharding_leaf(leaf):
            return leaf
        if not axis_names:
            raise ShardingError(
                f"{what} layout {leaf} needs a named mesh: pass mesh= a "
                "jax.sharding.Mesh, an AbstractMesh, sizes with axis names, "
                "or give NamedShardings"
            )
        spec = leaf.spec if isinstance(leaf, NamedSharding) else leaf
        return spec_layout(spec, axis_names, f"{what} layout", reorder=True)

    return jax.tree_util.tree_map(one, tree, is_leaf=is_sharding_leaf)
