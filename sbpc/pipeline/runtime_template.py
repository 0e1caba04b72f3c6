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
import contextlib  # noqa: F401 (x64_mode, copied in)
import copy
import os  # noqa: F401 (the jax section, copied in)
import sys
import types
from typing import NamedTuple


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
MICROBATCHES: int = 1
ARG_STAGES: tuple = ()
OUT_STAGES: tuple = ()
OUT_TYPES: tuple = ()
LOOP_KEYS: frozenset = frozenset()
TASKS: tuple = ()
SPLITS: tuple = ()
MOVES: tuple = ()
ACCUMULATORS: tuple = ()
STEPS: tuple = ()
SCHEDULE: str = "1f1b"
STEPS_BY_SCHEDULE: dict = {}
TASK_SOURCES: dict = {}
# The emitter copies these from sbpc.jax_backend's runtime: its ``jax``
# section (the simulated devices, jax's imports) after the prelude, and the
# helpers in ``SHARED``; it writes the -t jax contract's tables as that
# module's emitter does (ARG_KEYS, ...).
from sbpc.jax_backend.runtime_template import (  # noqa: E402
    ARG_KEYS,
    ARG_TYPES,
    IN_SPECS,
    RESULT_KEYS,
    AxisType,
    Mesh,
    NamedSharding,
    P,  # noqa: F401 (the emitted specs)
    _devices,
    _put,
    _transfer,
    jax,
    jnp,
    lax,
    np,
    random_args,
    x64_mode,
)

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


def _donations(donate, steps):
    """Task name -> input positions of the donated arguments: each to the
    task that reads it last, when that task runs once (before or after the
    loop: an optimizer update) and it is not returned as it is."""
    tasks = {t.name: t for t in TASKS}
    last = {}
    for step in steps:
        if step[0] == "task":
            for k in tasks[step[1]].inputs:
                last[k] = step
        elif step[0] == "move":
            last[MOVES[step[1]].src] = step
        elif step[0] == "split":
            last[SPLITS[step[1]].src] = step
    out = {}
    for k in sorted({int(i) for i in donate}):
        key = ARG_KEYS[k]
        step = last.get(key)
        if step is None or step[0] != "task" or step[2] is not None:
            continue
        if key in RESULT_KEYS:
            continue
        out.setdefault(step[1], set()).add(tasks[step[1]].inputs.index(key))
    return out


def _key(k):
    return k[0] if isinstance(k, tuple) else k


def _shard_bytes(shape, dtype, sharding):
    """Bytes of one device's piece of a ``shape`` array under ``sharding``."""
    return int(np.prod(sharding.shard_shape(tuple(shape)))) * np.dtype(dtype).itemsize


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

    def __init__(self, meshes=None, donate=(), schedule=None):
        self.meshes = make_meshes() if meshes is None else tuple(meshes)
        self.schedule = schedule or SCHEDULE
        self.steps = STEPS_BY_SCHEDULE[self.schedule]
        modules = load_tasks()
        self.modules = modules
        given = _donations(donate, self.steps)
        self.fns = {
            t.name: modules[t.name].build(
                self.meshes[t.stage],
                donate=tuple(sorted({*t.donate, *given.get(t.name, ())})),
            )
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
        for step in self.steps:
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
            env[_at(move.dst, i)] = _transfer(
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

    def with_schedule(self, schedule):
        """The same compiled tasks run in another schedule's order."""
        other = copy.copy(self)
        other.schedule, other.steps = schedule, STEPS_BY_SCHEDULE[schedule]
        return other

    def memory(self):
        """Per stage, the most bytes one of its devices holds as the schedule
        runs: the values alive between tasks (their shards) plus the running
        task's own buffers (its compiled ``memory_analysis``'s temporaries);
        ``activations``: the part that is per-microbatch values."""
        size, temp = {}, {}
        for name, lowered in self.lower().items():
            compiled = lowered.compile()
            temp[name] = compiled.memory_analysis().temp_size_in_bytes
            shapes = jax.tree.leaves(lowered.out_info)
            task = self.tasks[name]
            for k, info, sharding in zip(
                task.outputs, shapes, compiled.output_shardings, strict=True
            ):
                size[k] = (task.stage, _shard_bytes(info.shape, info.dtype, sharding))
        for k, (shape, dtype), s, spec in zip(
            ARG_KEYS, ARG_TYPES, ARG_STAGES, IN_SPECS, strict=True
        ):
            size[k] = (s, _shard_bytes(shape, dtype, self.sharding(s, spec)))
        for acc in ACCUMULATORS:
            sharding = self.sharding(acc.stage, acc.spec)
            size[acc.key] = size[acc.final] = (
                acc.stage,
                _shard_bytes(acc.shape, acc.dtype, sharding),
            )
        for split in SPLITS:
            stage, n = size[split.src]
            size[split.dst] = (stage, n // MICROBATCHES)
        for move in MOVES:
            size[move.dst] = (move.stage, size[move.src][1])
        live = {}
        peak = [0] * len(self.meshes)
        acts = [0] * len(self.meshes)

        def held(stage, loop_only=False):
            return sum(
                n
                for k, (s, n) in live.items()
                if s == stage and (not loop_only or _key(k) in LOOP_KEYS)
            )

        for step in self.steps:
            what = step[0]
            running = None
            if what == "task":
                _, name, i = step
                running = self.tasks[name]
                for k in running.outputs:
                    live[_at(k, i)] = size[k]
            elif what == "move":
                _, j, i = step
                live[_at(MOVES[j].dst, i)] = size[MOVES[j].dst]
            elif what == "split":
                dst = SPLITS[step[1]].dst
                for i in range(MICROBATCHES):
                    live[(dst, i)] = size[dst]
            elif what == "acc":
                live[ACCUMULATORS[step[1]].key] = size[ACCUMULATORS[step[1]].key]
            elif what == "sum":
                acc = ACCUMULATORS[step[1]]
                live[acc.final] = live.pop(acc.key)
            elif what == "drop":
                live.pop(_at(step[1], step[2]), None)
            for s in range(len(self.meshes)):
                extra = temp[running.name] if running and running.stage == s else 0
                peak[s] = max(peak[s], held(s) + extra)
                acts[s] = max(acts[s], held(s, loop_only=True))
        return [{"peak": p, "activations": a} for p, a in zip(peak, acts, strict=True)]

    def held(self, *args):
        """Per stage, the most bytes of live values one of its devices held
        while a step ran, measured on the arrays themselves."""
        peak = [0] * len(self.meshes)
        devices = [set(m.devices.flat) for m in self.meshes]

        def trace(step, env):
            for s, mine in enumerate(devices):
                total = 0
                for x in env.values():
                    if isinstance(x, jax.Array) and x.sharding.device_set <= mine:
                        total += x.addressable_shards[0].data.nbytes
                peak[s] = max(peak[s], total)

        jax.block_until_ready(self(*args, trace=trace))
        return peak

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


def put_args(*args, mesh=None):
    """The arguments on their stages' meshes (``mesh``: ``make_meshes()``)."""
    meshes = make_meshes() if mesh is None else tuple(mesh)
    with x64_mode():
        return tuple(
            _put(x, NamedSharding(meshes[s], spec))
            for x, s, spec in zip(args, ARG_STAGES, IN_SPECS, strict=True)
        )


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
