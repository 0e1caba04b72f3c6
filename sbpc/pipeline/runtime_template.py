"""The fixed part of every pipelined module ``sbpc.pipeline.emit`` writes.

A real module (lint and tests read it) that sbpc never imports: the emitter
copies its sections (``# @section NAME``), so the emitted module imports
only jax and numpy.  The ``stand-ins`` section is dropped: it binds the
names the emitter writes (the tables, the task sources, and the helpers it
copies from ``sbpc.jax_backend``'s runtime: finding the devices, placing a
value).

The driver runs ``STEPS`` in order: each task is one ``jax.jit`` of one
``shard_map`` on its stage's mesh (a module of its own, ``TASK_SOURCES``),
so a call dispatches them one after the other and JAX runs each device's
work in that order, asynchronously: stages overlap as the schedule says.
A value moves between stages by ``jax.device_put`` right after the task
that made it; per-microbatch values are dropped after their last use, so a
stage's memory follows its schedule.
"""

# @section prelude
import os
import sys
import types
from typing import NamedTuple

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


class _Task(NamedTuple):
    """One task: a program on one stage, its inputs' and outputs' keys."""

    name: str
    stage: int
    phase: str
    inputs: tuple
    outputs: tuple
    donate: tuple


class _Split(NamedTuple):
    """``dst`` per microbatch: microbatch ``i`` of ``src`` along ``dim``."""

    src: str
    dst: str
    dim: int
    stage: int
    spec: object


class _Move(NamedTuple):
    """``src`` put on ``stage``'s mesh as ``spec`` (``jax.device_put``)."""

    src: str
    dst: str
    stage: int
    spec: object


class _Acc(NamedTuple):
    """A running sum: ``key`` during the loop, ``final`` after it."""

    key: str
    final: str
    stage: int
    shape: tuple
    dtype: object
    spec: object
    logical: tuple  # the sum's shape (``shape`` has its pieces stacked)


# @section stand-ins
STAGE_PLACEMENTS: tuple = ()
N_DEVICES: int = 0
MICROBATCHES: int = 1
ARG_KEYS: tuple = ()
ARG_TYPES: tuple = ()
ARG_STAGES: tuple = ()
IN_SPECS: tuple = ()
RESULT_KEYS: tuple = ()
OUT_STAGES: tuple = ()
OUT_TYPES: tuple = ()
LOOP_KEYS: frozenset = frozenset()
TASKS: tuple = ()
SPLITS: tuple = ()
MOVES: tuple = ()
ACCUMULATORS: tuple = ()
STEPS: tuple = ()
TASK_SOURCES: dict = {}
# The emitter copies these from sbpc.jax_backend's runtime (``SHARED``).
from sbpc.jax_backend.runtime_template import _devices, _put, random_args  # noqa: E402

# @section runtime


def make_meshes(devices=None):
    """One mesh per stage (its ranks index ``devices``)."""
    devices = _devices(devices)
    meshes = []
    for ranks, shape, axes in STAGE_PLACEMENTS:
        grid = np.empty(len(ranks), dtype=object)
        grid[:] = [devices[r] for r in ranks]
        names = tuple(axes) or tuple(f"d{k}" for k in range(len(shape)))
        meshes.append(
            Mesh(grid.reshape(shape), names, axis_types=(AxisType.Auto,) * len(shape))
        )
    return tuple(meshes)


def load_tasks():
    """Each task's module (its ``build`` makes its jitted shard_map)."""
    out = {}
    for name, source in TASK_SOURCES.items():
        module = types.ModuleType(f"{__name__}.task_{name.replace('.', '_')}")
        exec(compile(source, f"<task {name}>", "exec"), module.__dict__)
        out[name] = module
    return out


def _at(key, i):
    return (key, i) if key in LOOP_KEYS else key


def _splitter(mesh, spec, dim, count):
    """Microbatch ``i`` of a value is every ``count``-th row along ``dim``
    from row ``i``: on each device, of its own rows (no communication)."""

    def body(x):
        n = x.shape[dim]
        y = x.reshape((*x.shape[:dim], n // count, count, *x.shape[dim + 1 :]))
        return tuple(
            lax.index_in_dim(y, i, axis=dim + 1, keepdims=False) for i in range(count)
        )

    run = jax.shard_map(
        body,
        mesh=mesh,
        in_specs=(spec,),
        out_specs=(spec,) * count,
        check_vma=False,
    )
    return jax.jit(run)


class Pipeline:
    """The pipelined step: ``STEPS`` run in order on the stage meshes."""

    def __init__(self, meshes=None, donate=()):
        self.meshes = make_meshes() if meshes is None else tuple(meshes)
        modules = load_tasks()
        self.modules = modules
        self.fns = {
            t.name: modules[t.name].build(self.meshes[t.stage], donate=t.donate)
            for t in TASKS
        }
        self.tasks = {t.name: t for t in TASKS}
        self.splits = [
            _splitter(self.meshes[s.stage], s.spec, s.dim, MICROBATCHES) for s in SPLITS
        ]

    def sharding(self, stage, spec):
        return NamedSharding(self.meshes[stage], spec)

    def place(self, *args):
        """The arguments on their stages' meshes, in IN_SPECS."""
        return tuple(
            _put(x, self.sharding(s, spec))
            for x, s, spec in zip(args, ARG_STAGES, IN_SPECS, strict=True)
        )

    def __call__(self, *args, trace=None):
        """One step; ``trace(step, env)``, if given, is called after each step."""
        env = dict(zip(ARG_KEYS, self.place(*args), strict=True))
        for step in STEPS:
            self._step(step, env)
            if trace is not None:
                trace(step, env)
        outs = tuple(env[k] for k in RESULT_KEYS)
        return outs[0] if len(outs) == 1 else outs

    def _step(self, step, env):
        what = step[0]
        if what == "task":
            _, name, i = step
            task = self.tasks[name]
            outs = self.fns[name](*(env[_at(k, i)] for k in task.inputs))
            outs = outs if isinstance(outs, tuple | list) else (outs,)
            for k, x in zip(task.outputs, outs, strict=True):
                env[_at(k, i)] = x
        elif what == "move":
            _, j, i = step
            move = MOVES[j]
            env[_at(move.dst, i)] = jax.device_put(
                env[_at(move.src, i)], self.sharding(move.stage, move.spec)
            )
        elif what == "split":
            split = SPLITS[step[1]]
            pieces = self.splits[step[1]](env[split.src])
            for i, x in enumerate(pieces):
                env[(split.dst, i)] = x
        elif what == "acc":
            acc = ACCUMULATORS[step[1]]
            env[acc.key] = jnp.zeros(
                acc.shape, acc.dtype, device=self.sharding(acc.stage, acc.spec)
            )
        elif what == "sum":
            acc = ACCUMULATORS[step[1]]
            env[acc.final] = env.pop(acc.key)
        elif what == "drop":
            _, k, i = step
            env.pop(_at(k, i), None)

    def lower(self):
        """Each task lowered on abstract inputs: ``{name: Lowered}``
        (``.compile().memory_analysis()`` is what a task holds)."""
        out = {}
        for t in TASKS:
            module = self.modules[t.name]
            mesh = self.meshes[t.stage]
            avals = [
                jax.ShapeDtypeStruct(shape, dtype, sharding=NamedSharding(mesh, spec))
                for (shape, dtype), spec in zip(
                    module.ARG_TYPES, module.IN_SPECS, strict=True
                )
            ]
            with module.x64_mode():
                out[t.name] = self.fns[t.name].lower(*avals)
        return out


def build(mesh=None, donate=()):
    """The pipelined step on global arrays (``mesh``: ``make_meshes()``)."""
    return Pipeline(mesh, donate)


def reference(*args):
    """The step unsharded: the same steps on global values, each task by its
    own ``reference``, with no mesh (the loop and its sums as the pipeline
    runs them)."""
    modules = load_tasks()
    tasks = {t.name: t for t in TASKS}
    env = dict(zip(ARG_KEYS, (np.asarray(x) for x in args), strict=True))
    for step in STEPS:
        what = step[0]
        if what == "task":
            _, name, i = step
            module = modules[name]
            ins = []
            for k, (shape, _) in zip(tasks[name].inputs, module.ARG_TYPES, strict=True):
                x = jnp.asarray(env[_at(k, i)])
                if x.ndim < len(shape):  # stacked pieces: the value, then zeros
                    lead = tuple(shape[: len(shape) - x.ndim])
                    x = jnp.zeros(lead + x.shape, x.dtype).at[(0,) * len(lead)].set(x)
                ins.append(x)
            outs = module.reference(*ins)
            outs = outs if isinstance(outs, tuple | list) else (outs,)
            for k, x in zip(tasks[name].outputs, outs, strict=True):
                env[_at(k, i)] = x
        elif what == "move":
            _, j, i = step
            env[_at(MOVES[j].dst, i)] = env[_at(MOVES[j].src, i)]
        elif what == "split":
            split = SPLITS[step[1]]
            x = np.asarray(env[split.src])
            for i in range(MICROBATCHES):
                env[(split.dst, i)] = np.take(
                    x, np.arange(i, x.shape[split.dim], MICROBATCHES), axis=split.dim
                )
        elif what == "acc":
            acc = ACCUMULATORS[step[1]]
            env[acc.key] = jnp.zeros(acc.logical, acc.dtype)
        elif what == "sum":
            acc = ACCUMULATORS[step[1]]
            env[acc.final] = env.pop(acc.key)
    outs = tuple(env[k] for k in RESULT_KEYS)
    return outs[0] if len(outs) == 1 else outs


def self_check(seed=0):
    """Run the pipeline and ``reference`` on random inputs; 0 if they agree."""
    args = random_args(seed)
    got = build()(*args)
    want = reference(*args)
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    worst, ok = 0.0, True
    for g, w in zip(got, want, strict=True):
        g, w = np.asarray(g, np.float64), np.asarray(w, np.float64)
        err = float(np.abs(g - w).max(initial=0.0))
        scale = max(1.0, float(np.abs(w).max(initial=0.0)))
        worst = max(worst, err)
        ok = ok and err <= 1e-4 * scale
    print(
        f"max error {worst:.3g} over {len(got)} result(s): "
        + ("ok" if ok else "MISMATCH")
    )
    return 0 if ok else 1


# @section main

if __name__ == "__main__":
    sys.exit(self_check())
