"""The fixed part of every module ``sbpc.jax_backend.emit`` writes.

A real module, so lint and tests read it, but never imported by sbpc: the
emitter copies its text (``sbpc.jax_backend.runtime`` cuts it into sections)
because the emitted module must import only jax and numpy, never sbpc.
Sections are delimited by ``# @section NAME`` lines.  The prelude is three:
``imports``, ``jax`` (the simulated devices of the self-check, then jax's
imports; the pipelined module's prelude copies it too) and ``definitions``,
whose ``# @x64@`` line says whether the program has 64-bit types (its calls
then run in JAX's x64 mode); ``{n_devices}`` is the rank count.  The
``stand-ins`` section is dropped: it binds the names that the emitter writes
between the prelude and ``runtime`` (tables, steps, the reference), so that
this file is a complete module.
"""

# @section imports
import base64
import contextlib
import functools
import os
import sys
from typing import NamedTuple

# @section jax
if __name__ == "__main__":
    # Simulated CPU devices for the self-check; must precede importing jax.
    _flags = os.environ.get("XLA_FLAGS", "")
    if "xla_force_host_platform_device_count" not in _flags:
        os.environ["XLA_FLAGS"] = (
            _flags + " --xla_force_host_platform_device_count={n_devices}"
        ).strip()

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.sharding import AxisType, Mesh, NamedSharding
from jax.sharding import PartitionSpec as P  # noqa: F401 (the emitted specs)

# @section definitions
_X64 = False  # @x64@


def x64_mode():
    """JAX's x64 mode, entered by the module's calls when the program has
    64-bit types.  Scoped rather than switched on at import, so loading the
    module leaves the caller's JAX in the mode it chose."""
    return jax.enable_x64(True) if _X64 else contextlib.nullcontext()


def _in_x64_mode(fn):
    @functools.wraps(fn)
    def scoped(*args, **kwargs):
        with x64_mode():
            return fn(*args, **kwargs)

    return scoped


class _X64Call:
    """A jitted stage called and lowered in x64 mode (see ``x64_mode``)."""

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, *args):
        with x64_mode():
            return self.fn(*args)

    def lower(self, *args):
        with x64_mode():
            return self.fn.lower(*args)


def _array(data, dtype, shape):
    """A constant stored as base64 bytes (exact for every dtype)."""
    raw = np.frombuffer(base64.b64decode(data), dtype=np.dtype(dtype))
    return raw.reshape(shape)


class _Stage(NamedTuple):
    """One shard_map: a run of instructions on one placement."""

    placement: int
    fn: object
    in_keys: tuple
    in_specs: tuple
    in_types: tuple
    out_keys: tuple
    out_specs: tuple


class _Transfer(NamedTuple):
    """A value moved onto another placement's mesh (jax.device_put)."""

    src: str
    dst: str
    placement: int
    spec: object


# @section stand-ins
# What sbpc.jax_backend.emit writes for each program (see its ``_tables``).
N_DEVICES: int = 0
PLACEMENTS: tuple = ()
MESH_AXES: tuple = ()
ARG_KEYS: tuple = ()
RESULT_KEYS: tuple = ()
ARG_PLACEMENTS: tuple = ()
ARG_TYPES: tuple = ()
IN_SPECS: tuple = ()
OUT_PARTIAL: tuple = ()
_STEPS: tuple = ()


def _reference(*args):
    raise NotImplementedError("written by the emitter for each program")


# @section runtime


def _devices(devices=None):
    """The device list ranks index: ``devices``, else jax.devices() (CPU if short)."""
    if devices is None:
        devices = jax.devices()
        if len(devices) < N_DEVICES:
            try:
                cpu = jax.devices("cpu")
            except RuntimeError:
                cpu = []
            if len(cpu) >= N_DEVICES:
                devices = cpu
    devices = list(devices)
    if len(devices) < N_DEVICES:
        raise ValueError(
            f"this program uses ranks up to {N_DEVICES - 1} but only "
            f"{len(devices)} devices are given; on CPU set XLA_FLAGS="
            f"--xla_force_host_platform_device_count={N_DEVICES} before jax starts"
        )
    return devices


def _mesh(index, devices):
    ranks, shape = PLACEMENTS[index]
    grid = np.empty(len(ranks), dtype=object)
    grid[:] = [devices[r] for r in ranks]
    axes = tuple(
        MESH_AXES[k] if k < len(MESH_AXES) else f"d{k}" for k in range(len(shape))
    )
    if "PLACEMENT_AXES" in globals():  # a placement with its axes reordered
        axes = globals()["PLACEMENT_AXES"][index]
    return Mesh(grid.reshape(shape), axes, axis_types=(AxisType.Auto,) * len(shape))


def make_meshes(devices=None):
    """One mesh per placement (PLACEMENTS order); ranks index ``devices``."""
    devices = _devices(devices)
    return tuple(_mesh(k, devices) for k in range(len(PLACEMENTS)))


def make_mesh(devices=None):
    """The mesh of the program's placement (the first of PLACEMENTS)."""
    return _mesh(0, _devices(devices))


def _meshes(mesh):
    if mesh is None:
        return make_meshes()
    if isinstance(mesh, Mesh):
        if len(PLACEMENTS) != 1:
            raise ValueError(
                f"this program uses {len(PLACEMENTS)} placements: pass "
                "make_meshes(...) (one mesh each), not one mesh"
            )
        return (mesh,)
    return tuple(mesh)


def _jit_stage(stage, mesh, single=False, donate=()):
    def shardings(specs):
        return tuple(NamedSharding(mesh, s) for s in specs)

    body = jax.shard_map(
        stage.fn,
        mesh=mesh,
        in_specs=stage.in_specs,
        out_specs=stage.out_specs,
        check_vma=False,
    )
    if single and len(stage.out_specs) == 1:
        return jax.jit(
            lambda *args: body(*args)[0],
            in_shardings=shardings(stage.in_specs),
            out_shardings=NamedSharding(mesh, stage.out_specs[0]),
            donate_argnums=donate,
        )
    return jax.jit(
        body,
        in_shardings=shardings(stage.in_specs),
        out_shardings=shardings(stage.out_specs),
        donate_argnums=donate,
    )


def _donated(donate):
    """``donate`` (argument positions) checked and made a sorted tuple."""
    donate = tuple(sorted({int(k) for k in donate}))
    for k in donate:
        if not 0 <= k < len(ARG_KEYS):
            raise ValueError(
                f"donate: argument {k} does not exist (the program takes "
                f"{len(ARG_KEYS)} arguments)"
            )
    return donate


def _single_stage():
    return (
        len(_STEPS) == 1
        and _STEPS[0].in_keys == ARG_KEYS
        and (_STEPS[0].out_keys == RESULT_KEYS)
    )


def build(mesh=None, donate=()):
    """The sharded program, taking and returning global arrays.

    One placement: ``jax.jit(jax.shard_map(...))`` (``.lower()`` works).
    Several (pipeline stages): a ``Pipeline`` of such functions with
    ``jax.device_put`` between them; ``mesh`` is then ``make_meshes(...)``.
    ``donate``: positions of arguments whose buffers the program may reuse
    for its results (``jax.jit``'s ``donate_argnums``); a donated argument
    must not be used after the call.
    """
    meshes = _meshes(mesh)
    donate = _donated(donate)
    if _single_stage():
        run = _jit_stage(_STEPS[0], meshes[0], single=True, donate=donate)
        if "ARG_PADS" in globals():
            run = _padded(run, donate)
        return _X64Call(run) if _X64 else run
    return Pipeline(meshes, donate)


def _take_rows(x, rows):
    for axis, index in rows:
        x = jnp.take(x, jnp.asarray(index, jnp.int32), axis=axis)
    return x


def _padded(run, donate):
    """``run`` on the padded global layout of uneven splits: arguments get
    their pieces' padding rows before it, results lose them after."""

    # Written by the emitter only for programs with uneven splits.
    arg_pads, out_pads = globals()["ARG_PADS"], globals()["OUT_PADS"]

    def padded(*args):
        outs = run(*(_take_rows(x, r) for x, r in zip(args, arg_pads, strict=True)))
        if len(out_pads) == 1:
            return _take_rows(outs, out_pads[0])
        return tuple(_take_rows(y, r) for y, r in zip(outs, out_pads, strict=True))

    return jax.jit(padded, donate_argnums=donate)


class Pipeline:
    """Stages on their own meshes; values move between them by device_put.

    A donated argument is donated to the last stage that reads it (an
    earlier stage's donation would free it before that stage runs).
    """

    def __init__(self, meshes, donate=()):
        self.meshes = meshes
        donated = {ARG_KEYS[k] for k in donate}
        last_use = {}
        for i, s in enumerate(_STEPS):
            for key in s.in_keys if isinstance(s, _Stage) else (s.src,):
                last_use[key] = i
        self.stages = [
            _jit_stage(
                s,
                meshes[s.placement],
                donate=tuple(
                    j
                    for j, key in enumerate(s.in_keys)
                    if key in donated
                    and last_use[key] == i
                    and key not in RESULT_KEYS
                    and s.in_keys.index(key) == j
                ),
            )
            if isinstance(s, _Stage)
            else s
            for i, s in enumerate(_STEPS)
        ]

    @_in_x64_mode
    def __call__(self, *args):
        env = dict(zip(ARG_KEYS, put_args(*args, mesh=self.meshes), strict=True))
        for step, fn in zip(_STEPS, self.stages, strict=True):
            if isinstance(step, _Transfer):
                target = NamedSharding(self.meshes[step.placement], step.spec)
                env[step.dst] = _transfer(env[step.src], target)
            else:
                outs = fn(*(env[k] for k in step.in_keys))
                env.update(zip(step.out_keys, outs, strict=True))
        outs = tuple(env[k] for k in RESULT_KEYS)
        return outs[0] if len(outs) == 1 else outs

    @_in_x64_mode
    def lower(self, *args):
        """Each stage lowered on abstract inputs (a list, in step order)."""
        lowered = []
        for step, fn in zip(_STEPS, self.stages, strict=True):
            if isinstance(step, _Stage):
                mesh = self.meshes[step.placement]
                avals = [
                    jax.ShapeDtypeStruct(shape, dtype, sharding=NamedSharding(mesh, s))
                    for (shape, dtype), s in zip(
                        step.in_types, step.in_specs, strict=True
                    )
                ]
                lowered.append(fn.lower(*avals))
        return lowered


def _put(x, sharding):
    if isinstance(x, jax.Array):
        return _transfer(x, sharding)
    x = np.asarray(x)
    # Each process fills only the shards it holds: works on several hosts.
    return jax.make_array_from_callback(
        x.shape, sharding, lambda index: x[index], dtype=x.dtype
    )


def _transfer(x, sharding):
    """``x`` resharded onto ``sharding``, possibly on other devices.

    One process, or the same devices: ``jax.device_put``.  Across processes
    with different device sets (pipeline stages on different hosts), which
    multi-controller JAX cannot reshard on CPU/GPU: through the hosts.
    """
    one_process = x.is_fully_addressable and sharding.is_fully_addressable
    if one_process or x.sharding.device_set == sharding.device_set:
        return jax.device_put(x, sharding)
    value = _to_host(x)
    return jax.make_array_from_callback(
        value.shape, sharding, lambda index: value[index], dtype=value.dtype
    )


def _to_host(x):
    """The global value of ``x`` as numpy on every process."""
    if x.size == 0:  # (jax gives an empty shard_map result whole-sized shards)
        return np.zeros(x.shape, x.dtype)
    if x.is_fully_addressable and jax.process_count() == 1:
        return np.asarray(x)
    from jax.experimental import multihost_utils

    # Each process writes the shards it holds; the hosts then share them.
    local = np.zeros(x.shape, x.dtype)
    held = np.zeros(x.shape, np.bool_)
    for shard in x.addressable_shards:
        local[shard.index] = np.asarray(shard.data)
        held[shard.index] = True
    values, masks = multihost_utils.process_allgather((local, held), tiled=False)
    out = np.zeros(x.shape, x.dtype)
    for value, mask in zip(values, masks, strict=True):
        out = np.where(mask, value, out)
    return out


@_in_x64_mode
def put_args(*args, mesh=None):
    """Global (numpy) inputs placed on their meshes as IN_SPECS say.

    Every process passes the same global values (multi-host safe).
    """
    meshes = _meshes(mesh)
    specs = globals().get("PUT_SPECS", IN_SPECS)  # uneven splits: replicated
    return tuple(
        _put(x, NamedSharding(meshes[k], spec))
        for x, k, spec in zip(args, ARG_PLACEMENTS, specs, strict=True)
    )


def fetch(x):
    """A (tuple of) global array(s) as numpy, gathered across processes."""
    if isinstance(x, tuple | list):
        return tuple(fetch(y) for y in x)
    if not isinstance(x, jax.Array):
        return np.asarray(x)
    return _to_host(x)


def _combine(x, kinds):
    """Partial pieces stacked on leading axes -> the value (inner axis first)."""
    x = np.asarray(x)
    for axis in reversed(range(len(kinds))):
        if x.dtype == np.bool_:
            x = x.any(axis) if kinds[axis] != "min" else x.all(axis)
        else:
            reduce = {"sum": np.sum, "max": np.max, "min": np.min}[kinds[axis]]
            x = reduce(x, axis=axis).astype(x.dtype)
    return x


def logical(results):
    """The program's logical results (numpy) from build()'s outputs."""
    outs = fetch(results if isinstance(results, tuple) else (results,))
    return tuple(_combine(x, k) for x, k in zip(outs, OUT_PARTIAL, strict=True))


@_in_x64_mode
def reference(*args):
    """The unsharded program in plain jax on global arrays (logical results)."""
    outs = _reference(*args)
    return outs[0] if len(outs) == 1 else outs


def random_args(seed=0):
    """Random global inputs: normal floats, small integers, random booleans."""
    rng = np.random.default_rng(seed)
    out = []
    for shape, dtype in ARG_TYPES:
        dtype = np.dtype(dtype)
        if dtype == np.bool_:
            out.append(rng.random(shape) < 0.5)
        elif np.issubdtype(dtype, np.integer):
            out.append(rng.integers(-8, 8, shape).astype(dtype))
        else:
            out.append(rng.standard_normal(shape).astype(dtype))
    return out


def max_errors(got, want):
    """Per result: max |got - want| (floats), count of differences (others)."""
    errors = []
    for g, w in zip(got, want, strict=True):
        g, w = np.asarray(g), np.asarray(w)
        if g.shape != w.shape:
            errors.append(float("inf"))
        elif np.issubdtype(w.dtype, np.inexact):
            g64, w64 = g.astype(np.float64), w.astype(np.float64)
            same_nan = np.isnan(g64) == np.isnan(w64)
            with np.errstate(invalid="ignore"):  # equal infinities: no error
                diff = np.where((g64 == w64) | np.isnan(w64), 0, np.abs(g64 - w64))
            errors.append(
                float(diff.max(initial=0.0)) if same_nan.all() else float("inf")
            )
        else:
            errors.append(float(np.count_nonzero(g != w)))
    return errors


def _tolerance(want):
    w = np.asarray(want)
    if not np.issubdtype(w.dtype, np.inexact):
        return 0.0
    low = w.dtype.itemsize <= 2
    finite = np.abs(w[np.isfinite(w)].astype(np.float64))
    scale = max(1.0, float(finite.max())) if finite.size else 1.0
    return (1e-2 if low else 1e-4) * scale


@_in_x64_mode
def self_check(seed=0):
    """Run build() and reference() on random inputs; 0 if they agree, else 1."""
    args = random_args(seed)
    fn = build()
    got = logical(fn(*put_args(*args)))
    want = fetch(reference(*args))
    want = want if isinstance(want, tuple) else (want,)
    errors = max_errors(got, want)
    ok = all(e <= _tolerance(w) for e, w in zip(errors, want, strict=True))
    print(
        f"max error {max(errors, default=0.0):.3g} over {len(errors)} result(s): "
        + ("ok" if ok else "MISMATCH")
    )
    return 0 if ok else 1


# @section combined-collectives
# Only in modules with combined collectives (sbpc.jax_backend.combine): one
# collective on several pieces, concatenated flat, then split back.


def _split_flat(flat, shapes):
    """``flat`` (rows, total) cut by columns into pieces reshaped to ``shapes``."""
    out, at = [], 0
    for shape in shapes:
        size = int(np.prod(shape, dtype=np.int64)) // flat.shape[0]
        out.append(flat[:, at : at + size].reshape(shape))
        at += size
    return out


def _all_gather_many(xs, axes, dims, group):
    """``lax.all_gather(x, axes, axis=d, tiled=True)`` for each x, d: one
    collective.  Each piece goes in flat as it is laid out; only a result
    gathered along a dim other than its first is transposed, once, to put
    the devices' blocks in place (XLA's own all-gather along such a dim
    does the same; moving the dim first too cost a second transpose)."""
    flat = jnp.concatenate([x.reshape(1, -1) for x in xs], axis=1)
    whole = lax.all_gather(flat, axes, axis=0, tiled=True)
    parts = _split_flat(whole, [(group, *x.shape) for x in xs])
    return tuple(_merge_blocks(p, d) for p, d in zip(parts, dims, strict=True))


def _merge_blocks(blocks, d):
    """``(group, *shape)`` device blocks as one array, concatenated along ``d``."""
    group, shape = blocks.shape[0], blocks.shape[1:]
    whole = (*shape[:d], group * shape[d], *shape[d + 1 :])
    return jnp.moveaxis(blocks, 0, d).reshape(whole)


def _psum_scatter_many(xs, axes, dims, group):
    """``lax.psum_scatter(x, axes, scatter_dimension=d, tiled=True)``: one
    collective.  A piece scattered along a dim other than its first is
    transposed once, before, so each device's block is contiguous; the
    result needs none."""
    blocks = []
    for x, d in zip(xs, dims, strict=True):
        split = (*x.shape[:d], group, x.shape[d] // group, *x.shape[d + 1 :])
        blocks.append(jnp.moveaxis(x.reshape(split), d, 0).reshape(group, -1))
    piece = lax.psum_scatter(
        jnp.concatenate(blocks, axis=1), axes, scatter_dimension=0, tiled=True
    )
    shapes = [
        (1, *x.shape[:d], x.shape[d] // group, *x.shape[d + 1 :])
        for x, d in zip(xs, dims, strict=True)
    ]
    return tuple(p[0] for p in _split_flat(piece, shapes))


def _reduce_many(reduce, xs, axes):
    """``reduce(x, axes)`` (psum, pmax, pmin) for each x: one collective."""
    flat = jnp.concatenate([x.reshape(1, -1) for x in xs], axis=1)
    parts = _split_flat(reduce(flat, axes), [x.shape for x in xs])
    return tuple(parts)


# @section indexed-blocks
# Only in modules that gather from or scatter into an operand split along a
# dim the op indexes (sbpc.ops.indexed_blocks): each device holds a block of
# rows; the index vector is the last dim of ``indices``.


def _gather_rows(indices, offsets, whole, inner, rows, gather):
    """``gather`` from this device's block: starts clamped into the whole
    operand (``whole``: its largest starts), moved to the block (``inner``:
    the block's largest starts); rows outside it are zeros, so the devices'
    results sum to the global gather's.  ``rows``: the result dims the
    indices' batch dims become."""
    dtype = indices.dtype
    starts = jnp.clip(indices, 0, jnp.asarray(whole, dtype))
    starts = starts - jnp.asarray(offsets, dtype)
    inside = jnp.all((starts >= 0) & (starts <= jnp.asarray(inner, dtype)), axis=-1)
    out = gather(starts)
    mask = lax.broadcast_in_dim(inside, out.shape, rows)
    return jnp.where(mask, out, jnp.zeros((), out.dtype))


def _scatter_rows(indices, offsets, whole, scatter):
    """``scatter`` into this device's block: starts moved to the block; a
    window that does not fit the whole operand (``whole``: its largest
    starts) is sent out of range, dropped as the global scatter drops it."""
    dtype = indices.dtype
    fits = (indices >= 0) & (indices <= jnp.asarray(whole, dtype))
    fits = jnp.all(fits, axis=-1, keepdims=True)
    starts = indices - jnp.asarray(offsets, dtype)
    return scatter(jnp.where(fits, starts, jnp.iinfo(dtype).max))


# @section main

if __name__ == "__main__":
    sys.exit(self_check())
