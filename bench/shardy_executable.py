"""Shardy's executable tests as an external check of sbpc, in the global view.

openxla/shardy's ``executable_*`` lit tests (``shardy/dialect/sdy/transforms/
*/test/executable_*/*.mlir``, Apache License 2.0; read from a checkout given
on the command line, nothing vendored) hold two parts: ``part1`` with
``sdy.mesh``es and functions (a ``@parallel_*`` one carrying
``#sdy.sharding``, usually a ``@sequential_*`` twin), ``part2`` with a
``@main`` that makes per-device inputs, runs a function on every device
(``interpreter.run_parallel``) and checks the per-device results
(``check.expect_eq``).

Here each ``run_parallel`` is one case, run as Shardy runs it but with sbpc
in the partitioner's place:

1. XLA runs ``@main`` up to the ``run_parallel``: the per-device inputs.
   They are put together into global arrays by the function's argument
   shardings (a device's value is the piece its mesh coordinates select); a
   value that is not a piece of one global array (a "replicated" argument
   that differs per device) makes the case inapplicable to a global-view
   compiler.
2. sbpc compiles the function through
   ``sbp-import-sdy,sbp-inline,sbp-propagate,sbp-lower-boxing -t jax`` and
   runs the emitted program on those global arrays, in two modes:
   ``sequential`` (the ``@sequential_*`` twin given the parallel function's
   mesh and argument/result shardings; the parallel function with its
   reshards dropped where there is no twin) and ``parallel`` (the function
   run by ``run_parallel``, read as written).
3. Its global results are cut into per-device pieces by the result
   shardings, and XLA runs the rest of ``@main`` on them: every
   ``check.expect_eq`` that reads them must hold (Shardy's own expectation,
   usually XLA's unsharded run of the sequential function).

    python bench/shardy_executable.py /path/to/shardy [--verbose]

prints a table per folder: cases, passes per mode, and why the others do not.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import math
import os
import re
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

PIPELINE = "sbp-import-sdy,sbp-inline,sbp-propagate,sbp-lower-boxing"
# The partitioner's tests; import/test/executable_* compares two unsharded
# functions (a rewrite of gather/scatter batching), no partitioning.
GLOB = "shardy/dialect/sdy/transforms/export/test/executable_*/*.mlir"
DEVICES = 16  # the largest mesh in the tests
MODES = ("sequential", "parallel")
DEBUG = bool(os.environ.get("SHARDY_EXECUTABLE_DEBUG"))


# ---------------------------------------------------------------- shardings


@dataclass(frozen=True)
class Mesh:
    axes: tuple[tuple[str, int], ...]
    device_ids: tuple[int, ...] | None

    def coords(self, device: int) -> dict[str, int]:
        """The mesh coordinates of a device id."""
        sizes = [size for _, size in self.axes]
        index = self.device_ids.index(device) if self.device_ids else device
        out = {}
        for (name, _), c in zip(
            self.axes, np.unravel_index(index, sizes) if sizes else (), strict=True
        ):
            out[name] = int(c)
        return out


MESH_RE = re.compile(r"sdy\.mesh @(\w+) = <\[(.*?)\](?:, device_ids=\[([\d, ]*)\])?>")
SHARDING_RE = re.compile(r"#sdy\.sharding<@(\w+), \[(.*?)\]")
AXIS_RE = re.compile(r'"(\w+)"(?::\((\d+)\)(\d+))?')


def parse_meshes(text: str) -> dict[str, Mesh]:
    meshes = {}
    for name, axes, ids in MESH_RE.findall(text):
        pairs = tuple((a, int(s)) for a, s in re.findall(r'"(\w+)"=(\d+)', axes))
        devices = tuple(int(i) for i in ids.split(",")) if ids.strip() else None
        meshes[name] = Mesh(pairs, devices)
    return meshes


def dim_axes(
    sharding: str | None, rank: int
) -> tuple[str | None, list[list[tuple[str, int, int]]]]:
    """The mesh name and, per dimension, its axes as (name, pre-size, size)
    (``size`` 0 for a whole axis)."""
    if not sharding:
        return None, [[] for _ in range(rank)]
    match = SHARDING_RE.search(sharding)
    if match is None:
        raise ValueError(f"unread sharding {sharding}")
    dims = re.findall(r"\{([^{}]*)\}", match.group(2))
    axes = [
        [
            (a, int(pre) if pre else 1, int(size) if size else 0)
            for a, pre, size in AXIS_RE.findall(d)
        ]
        for d in dims
    ]
    return match.group(1), axes


def piece_slices(shape, axes, mesh: Mesh, device: int) -> tuple[list[slice], list[int]]:
    """The global slice a device holds and its (padded) local shape."""
    coords = mesh.coords(device)
    sizes = dict(mesh.axes)
    slices, local = [], []
    for extent, dim in zip(shape, axes, strict=True):
        block, count = 0, 1
        for name, pre, size in dim:
            # "x":(pre)size: the mesh axis x reshaped [pre, size, post] (pre
            # major), its middle coordinate (Shardy's sharding_representation.md).
            n = sizes[name]
            size = size or n
            block = block * size + (coords[name] // (n // (pre * size))) % size
            count *= size
        step = math.ceil(extent / count)
        slices.append(slice(min(block * step, extent), min((block + 1) * step, extent)))
        local.append(step)
    return slices, local


class NoSequential(ValueError):
    """A function with Shardy's collectives and no sequential twin."""


class NotPieces(Exception):
    """Per-device values that are not pieces of one global array."""


def assemble(pieces, shape, dtype, axes, mesh: Mesh) -> np.ndarray:
    out = np.zeros(shape, dtype)
    seen = np.zeros(shape, bool)
    for device, piece in enumerate(pieces):
        slices, local = piece_slices(shape, axes, mesh, device)
        if tuple(np.shape(piece)) != tuple(local):
            raise ValueError(
                f"device {device}'s input has shape {np.shape(piece)}, "
                f"its sharding gives {tuple(local)}"
            )
        valid = np.asarray(piece)[tuple(slice(0, s.stop - s.start) for s in slices)]
        region = out[tuple(slices)]
        known = seen[tuple(slices)]
        if np.any(known & (region != valid)):
            raise NotPieces
        out[tuple(slices)] = valid
        seen[tuple(slices)] = True
    return out


def cut(value: np.ndarray, axes, mesh: Mesh, devices: int) -> list[np.ndarray]:
    out = []
    for device in range(devices):
        slices, local = piece_slices(value.shape, axes, mesh, device)
        piece = np.zeros(local, value.dtype)
        piece[tuple(slice(0, s.stop - s.start) for s in slices)] = value[tuple(slices)]
        out.append(piece)
    return out


# ------------------------------------------------------------- MLIR surgery


def ir_context():
    from jax._src.interpreters import mlir

    ctx = mlir.make_ir_context()
    ctx.allow_unregistered_dialects = True
    return ctx


def walk(op, fn) -> None:
    for region in op.regions:
        for block in region.blocks:
            for inner in list(block.operations):
                walk(inner.operation, fn)
                fn(inner.operation)


def functions(module) -> dict:
    return {
        op.operation.attributes["sym_name"].value: op.operation
        for op in module.body.operations
        if op.operation.name == "func.func"
    }


def strip_sdy(func) -> None:
    """Drop a function's shardings and reshards: its unsharded form."""
    for key in ("arg_attrs", "res_attrs"):
        if key in func.attributes:
            del func.attributes[key]

    def visit(op) -> None:
        if "sdy.sharding" in op.attributes:
            del op.attributes["sdy.sharding"]
        if op.name in ("sdy.reshard", "sdy.sharding_constraint"):
            op.results[0].replace_all_uses_with(op.operands[0])
            op.erase()
        elif op.name.startswith("sdy."):
            raise NoSequential(f"no unsharded form of {op.name}")

    walk(func, visit)


def run_xla(module_text: str, name: str, args: list[np.ndarray]) -> list[np.ndarray]:
    import jax
    import jax.extend
    from jax._src import compiler
    from jax._src.lib import xla_client as xc
    from jax._src.lib.mlir import ir

    with ir_context():
        module = ir.Module.parse(module_text)
        module.operation.attributes["sym_name"] = ir.StringAttr.get(name)
        exe = compiler.backend_compile_and_load(
            jax.extend.backend.get_backend(),
            module,
            xc.DeviceList(tuple(jax.devices()[:1])),
            compiler.get_compile_options(num_replicas=1, num_partitions=1),
            [],
        )
    device = jax.devices()[0]
    results = exe.execute_sharded([jax.device_put(a, device) for a in args])
    return [np.asarray(r[0]) for r in results.disassemble_into_single_device_arrays()]


# -------------------------------------------------------------------- cases


@dataclass
class Case:
    folder: str
    file: str
    function: str
    outcome: dict[str, str] = field(default_factory=dict)  # mode -> "pass" or why not


def split_parts(text: str) -> dict[str, str]:
    parts = re.split(r"^//--- (\S+)\s*$", text, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def first_line(error: BaseException) -> str:
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    for line in lines:
        if "error" in line.lower() or "not " in line:
            return re.sub(r"\s+", " ", line)[:140]
    return (lines[0] if lines else type(error).__name__)[:140]


def sbpc_run(
    module_text: str, inputs: list[np.ndarray], workdir: Path
) -> list[np.ndarray]:
    from sbpc.passes.jax_target import jax_source
    from sbpc.passes.pipeline import parse_module, run_passes

    module = run_passes(parse_module(module_text), PIPELINE)
    path = workdir / f"prog_{abs(hash(module_text))}.py"
    path.write_text(jax_source(module))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    program = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(program)
    got = program.logical(program.build()(*program.put_args(*inputs)))
    return [np.asarray(g) for g in (got if isinstance(got, tuple | list) else [got])]


def run_file(path: Path, folder: str, workdir: Path, verbose: bool) -> list[Case]:
    from jax._src.lib.mlir import ir

    text = path.read_text()
    parts = split_parts(text)
    # A RUN line may rename part1's function (``sed 's/f_test/f_combined/g'``).
    renamed = {
        new: old for old, new in re.findall(r"RUN:.*sed 's/(\w+)/(\w+)/g'", text)
    }
    part1, part2 = parts.get("part1.mlir", ""), parts.get("part2.mlir", "")
    # The check dialect's pretty form, generic (its dialect is not loaded).
    part2 = re.sub(
        r"^(\s*)(check\.\w+) (%[\w#]+), (%[\w#]+) : (.+)$",
        r'\1"\2"(\3, \4) : (\5, \5) -> ()',
        part2,
        flags=re.M,
    )
    part1 = with_twins(part1, part2)
    meshes = parse_meshes(part1)
    with ir_context(), ir.Location.unknown():
        source = ir.Module.parse(part1 + part2)
        funcs = functions(source)
        main = funcs["main"]
        block = main.regions[0].blocks[0]
        runs = [
            op.operation
            for op in block.operations
            if op.operation.name == "interpreter.run_parallel"
        ]
        cases = []
        for run in runs:
            programs = [
                str(p).strip("@") for row in run.attributes["programs"] for p in row
            ]
            programs = [renamed.get(p, p) for p in programs]
            cases.append((run, programs))
    out, pieces = [], []
    for index, (_, programs) in enumerate(cases):
        case = Case(folder, path.name, programs[0])
        out.append(case)
        mine: dict[str, list[np.ndarray]] = {}
        try:
            mine = evaluate(case, index, part1, part2, meshes, programs, workdir)
        except Exception as error:  # a report, not a crash
            if DEBUG:
                raise
            for mode in MODES:
                case.outcome.setdefault(mode, f"harness: {first_line(error)}")
        pieces.append(mine)
    for mode in MODES:
        try:
            check(part1, part2, out, [p.get(mode) for p in pieces], mode)
        except Exception as error:
            if DEBUG:
                raise
            for case in out:
                case.outcome.setdefault(mode, f"harness: {first_line(error)}")
    if verbose:
        for case in out:
            print(f"{folder}/{path.name} @{case.function}: {case.outcome}", flush=True)
    return out


def with_twins(part1: str, part2: str) -> str:
    """``part1`` with a ``@sequential_*`` twin for every ``@parallel_*``
    function ``part2`` calls it by and that has none: the parallel function
    with its shardings and reshards dropped, as Shardy's script makes it."""
    from jax._src.lib.mlir import ir

    with ir_context(), ir.Location.unknown():
        module = ir.Module.parse(part1)
        funcs = functions(module)
        for name, func in list(funcs.items()):
            twin = "sequential_" + name.removeprefix("parallel_")
            if (
                name.startswith("parallel_")
                and twin not in funcs
                and f"@{twin}(" in part2
            ):
                copy = func.clone()
                copy.attributes["sym_name"] = ir.StringAttr.get(twin)
                with contextlib.suppress(NoSequential):
                    strip_sdy(copy)
                module.body.append(copy)
        return "\n".join(str(op) for op in module.body.operations) + "\n"


def xla_module(part1: str, part2: str, index: int, twin: str | None = None) -> str:
    """Two XLA programs from ``@main``: ``pre`` (the ``index``-th
    run_parallel's inputs, or those of the first call of ``twin``) and
    ``post`` (every run's results as arguments, the checks' operands as
    results), with the unsharded functions they call."""
    from jax._src.lib.mlir import ir
    from jax._src.lib.mlir.dialects import func as func_d

    with ir_context(), ir.Location.unknown():
        module = ir.Module.parse(part1 + part2)
        for op in list(module.body.operations):
            if op.operation.name != "func.func":
                op.operation.erase()
        funcs = functions(module)
        for name, func in funcs.items():
            if name == "main":
                continue
            try:
                strip_sdy(func)
            except ValueError:
                func.erase()
                continue
            func.attributes["sym_visibility"] = ir.StringAttr.get("private")
        main = funcs["main"]
        pre = main.clone()
        post = main
        pre.attributes["sym_name"] = ir.StringAttr.get("pre")
        # pre: cut at the run.
        ops = [o.operation for o in pre.regions[0].blocks[0].operations]
        runs = [o for o in ops if o.name == "interpreter.run_parallel"]
        run = runs[index]
        if twin is not None:
            run = next(
                o
                for o in ops
                if o.name == "func.call" and str(o.attributes["callee"]) == f"@{twin}"
            )
        with ir.InsertionPoint(run):
            func_d.ReturnOp(list(run.operands))
        at = ops.index(run)
        for op in reversed(ops[at:]):
            op.erase()
        # Earlier runs and what only checks read from them go too.
        for op in reversed(ops[:at]):
            if op.name.startswith("check.") or (
                op.results and not any(list(r.uses) for r in op.results)
            ):
                op.erase()
        ret = list(pre.regions[0].blocks[0].operations)[-1]
        pre.attributes["function_type"] = ir.TypeAttr.get(
            ir.FunctionType.get([], [v.type for v in ret.operation.operands])
        )
        # post: every run's results as arguments, checks as results.
        body = post.regions[0].blocks[0]
        ops = [o.operation for o in body.operations]
        arg_types = []
        for op in [o for o in ops if o.name == "interpreter.run_parallel"]:
            for result in op.results:
                arg = body.add_argument(result.type, ir.Location.unknown())
                arg_types.append(result.type)
                result.replace_all_uses_with(arg)
            op.erase()
        checked = []
        for op in [o.operation for o in body.operations]:
            if op.name.startswith("check."):
                checked.extend(op.operands)
                op.erase()
        terminator = list(body.operations)[-1].operation
        with ir.InsertionPoint(terminator):
            func_d.ReturnOp(checked)
        terminator.erase()
        post.attributes["sym_name"] = ir.StringAttr.get("post")
        post.attributes["function_type"] = ir.TypeAttr.get(
            ir.FunctionType.get(arg_types, [v.type for v in checked])
        )
        module.body.append(pre)
        return str(module)


def shardings_of(
    func_text: str, name: str
) -> tuple[list[str | None], list[str | None]]:
    """Each argument's and result's ``#sdy.sharding`` (None where unwritten)."""
    from jax._src.lib.mlir import ir

    with ir_context():
        module = ir.Module.parse(func_text)
        func = functions(module)[name]

        def read(key: str, count: int) -> list[str | None]:
            if key not in func.attributes:
                return [None] * count
            return [
                str(d["sdy.sharding"]) if "sdy.sharding" in d else None
                for d in func.attributes[key]
            ]

        ftype = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
        return read("arg_attrs", len(ftype.inputs)), read(
            "res_attrs", len(ftype.results)
        )


def copy_shardings(source, target) -> None:
    """``source``'s argument and result attributes on ``target``, position by
    position where the types agree (a twin may take a constant as an extra
    argument)."""
    from jax._src.lib.mlir import ir

    types = [
        ir.FunctionType(ir.TypeAttr(f.attributes["function_type"]).value)
        for f in (source, target)
    ]
    for key, kind in (("arg_attrs", "inputs"), ("res_attrs", "results")):
        if key not in source.attributes:
            continue
        mine, theirs = (list(getattr(t, kind)) for t in types)
        attrs = list(source.attributes[key])
        empty = ir.DictAttr.get({})
        target.attributes[key] = ir.ArrayAttr.get(
            [
                attrs[i] if i < len(mine) and str(mine[i]) == str(theirs[i]) else empty
                for i in range(len(theirs))
            ]
        )


def case_module(part1: str, function: str, mode: str) -> str:
    """The module sbpc compiles: the meshes and one function."""
    from jax._src.lib.mlir import ir

    with ir_context(), ir.Location.unknown():
        module = ir.Module.parse(part1)
        funcs = functions(module)
        parallel = funcs[function]
        keep = parallel
        if mode == "sequential":
            twin = "sequential_" + function.removeprefix("parallel_")
            if twin in funcs and twin != function:
                keep = funcs[twin]
                copy_shardings(parallel, keep)
            else:
                keep = parallel
                saved = {
                    k: parallel.attributes[k]
                    for k in ("arg_attrs", "res_attrs")
                    if k in parallel.attributes
                }
                strip_sdy(keep)
                for k, attr in saved.items():
                    keep.attributes[k] = attr
        for op in list(module.body.operations):
            op = op.operation
            if op.name == "func.func" and op != keep:
                op.erase()
        keep.attributes["sym_name"] = ir.StringAttr.get("main")
        return str(module)


def evaluate(case, index, part1, part2, meshes, programs, workdir) -> dict[str, list]:
    """sbpc's per-device pieces of one run, per mode that compiled; the
    outcome of the others in ``case``."""
    function = programs[0]
    devices = len(programs)
    text = xla_module(part1, part2, index)
    inputs = run_xla(text.replace("@pre(", "@main(", 1), "pre", [])
    args_sh, results_sh = shardings_of(part1, function)
    nargs = len(args_sh)
    mesh_name = next(
        (dim_axes(s, 0)[0] for s in args_sh + results_sh if s), next(iter(meshes), None)
    )
    mesh = meshes.get(mesh_name) if mesh_name else Mesh((), None)
    if mesh is None:
        raise ValueError(f"mesh @{mesh_name} not read")

    def mesh_of(sharding: str | None) -> Mesh:
        """The mesh a sharding names (a module may hold several)."""
        name = dim_axes(sharding, 0)[0]
        return meshes.get(name, mesh) if name else mesh

    per_device = [inputs[d * nargs : (d + 1) * nargs] for d in range(devices)]
    from jax._src.lib.mlir import ir

    with ir_context():
        module = ir.Module.parse(part1)
        ftype = ir.FunctionType(
            ir.TypeAttr(functions(module)[function].attributes["function_type"]).value
        )
        global_shapes = [
            (tuple(ir.RankedTensorType(t).shape), None) for t in ftype.inputs
        ]
        result_shapes = [tuple(ir.RankedTensorType(t).shape) for t in ftype.results]
    try:
        global_inputs = [
            assemble(
                [per_device[d][i] for d in range(devices)],
                shape,
                per_device[0][i].dtype,
                dim_axes(args_sh[i], len(shape))[1],
                mesh_of(args_sh[i]),
            )
            for i, (shape, _) in enumerate(global_shapes)
        ]
    except NotPieces:
        for mode in MODES:
            case.outcome[mode] = (
                "inapplicable: per-device inputs are not pieces of one global array"
            )
        return {}
    twin = "sequential_" + function.removeprefix("parallel_")
    pieces: dict[str, list] = {}
    for mode in MODES:
        inputs = global_inputs
        try:
            text = case_module(part1, function, mode)
            if mode == "sequential" and f"@{twin}(" in part2:
                pre = xla_module(part1, part2, index, twin)
                inputs = run_xla(pre.replace("@pre(", "@main(", 1), "pre", [])
            got = sbpc_run(text, inputs, workdir)
        except NoSequential:
            case.outcome[mode] = "n/a: no sequential function (Shardy's collectives)"
            continue
        except Exception as error:
            case.outcome[mode] = f"sbpc: {first_line(error)}"
            continue
        cuts = [
            cut(
                value,
                dim_axes(results_sh[r], len(result_shapes[r]))[1],
                mesh_of(results_sh[r]),
                devices,
            )
            for r, value in enumerate(got)
        ]
        pieces[mode] = [cuts[r][d] for d in range(devices) for r in range(len(got))]
    return pieces


def check(part1, part2, cases: list[Case], pieces: list, mode: str) -> None:
    """Run ``@main``'s checks on every run's pieces in one mode; a run
    passes when every check that reads its results (and only results sbpc
    computed) holds."""
    from jax._src.lib.mlir import ir

    text = xla_module(part1, part2, 0)
    with ir_context():
        module = ir.Module.parse(text)
        body = functions(module)["post"].regions[0].blocks[0]
        shapes = [tuple(ir.RankedTensorType(a.type).shape) for a in body.arguments]
        dtypes = [
            numpy_dtype(str(ir.RankedTensorType(a.type).element_type))
            for a in body.arguments
        ]
        ret = list(body.operations)[-1].operation
        deps = [reads_args(v, body) for v in ret.operands]
    owner, args, offset = {}, [], 0
    for index, run in enumerate(pieces):
        count = len(run) if run is not None else None
        for k in range(count if count is not None else 0):
            owner[offset + k] = index
            args.append(run[k])
        if run is None:
            # This run's results: as many arguments as the run has results.
            count = _run_results(part1, part2, index)
            for k in range(count):
                owner[offset + k] = None
                args.append(np.zeros(shapes[offset + k], dtypes[offset + k]))
        offset += count
    if not any(run is not None for run in pieces):
        return
    results = run_xla(text.replace("@post(", "@main(", 1), "post", args)
    for index, (case, run) in enumerate(zip(cases, pieces, strict=True)):
        if run is None:
            continue
        verdict = "harness: no check reads this run's results"
        for k in range(len(results) // 2):
            reads = deps[2 * k] | deps[2 * k + 1]
            if not any(owner[a] == index for a in reads):
                continue
            if any(owner[a] is None for a in reads):
                verdict = "untested: its check reads a run sbpc did not compile"
                continue
            a, b = results[2 * k], results[2 * k + 1]
            if a.shape != b.shape or not np.allclose(a, b, rtol=1e-4, atol=1e-5):
                verdict = "wrong numbers"
                break
            if not verdict.startswith("untested"):
                verdict = "pass"
        case.outcome[mode] = verdict


def numpy_dtype(element: str) -> np.dtype:
    """The numpy dtype of an MLIR element type (``i32``, ``f32``, ``i1``, ...)."""
    named = {"i1": "bool", "f32": "float32", "f64": "float64", "f16": "float16"}
    named |= {"complex<f32>": "complex64", "complex<f64>": "complex128"}
    if element in named:
        return np.dtype(named[element])
    match = re.fullmatch(r"(u?)i(\d+)", element.replace("ui", "ui"))
    if match:
        return np.dtype(f"{'u' if match.group(1) else ''}int{match.group(2)}")
    import ml_dtypes

    return np.dtype(getattr(ml_dtypes, element.replace("bf16", "bfloat16")))


def _run_results(part1: str, part2: str, index: int) -> int:
    from jax._src.lib.mlir import ir

    with ir_context():
        module = ir.Module.parse(part1 + part2)
        block = functions(module)["main"].regions[0].blocks[0]
        runs = [
            o.operation
            for o in block.operations
            if o.operation.name == "interpreter.run_parallel"
        ]
        return len(runs[index].results)


def reads_args(value, body) -> set[int]:
    """Which block arguments a value is computed from."""
    from jax._src.lib.mlir import ir

    out: set[int] = set()
    stack, seen = [value], set()
    while stack:
        v = stack.pop()
        if isinstance(v.owner, ir.Block):
            out.add(ir.BlockArgument(v).arg_number)
            continue
        op = v.owner
        key = id(op)
        if key in seen:
            continue
        seen.add(key)
        stack.extend(op.operands)
    return out


def files(root: Path) -> list[Path]:
    return sorted(root.glob(GLOB))


def reason(outcome: str) -> str:
    return re.sub(r"'[^']*'|\d+", "_", outcome)[:110]


def report(cases: list[Case]) -> str:
    lines = [
        "| folder | cases | sequential pass | parallel pass |",
        "| --- | --- | --- | --- |",
    ]
    for folder in sorted({c.folder for c in cases}):
        mine = [c for c in cases if c.folder == folder]
        counts = [sum(c.outcome.get(m) == "pass" for c in mine) for m in MODES]
        lines.append(f"| {folder} | {len(mine)} | {counts[0]} | {counts[1]} |")
    for mode in MODES:
        why = Counter(
            c.outcome.get(mode, "?") for c in cases if c.outcome.get(mode) != "pass"
        )
        lines.append(f"\n{mode}, not passing:")
        lines.extend(f"  {n:3}  {text}" for text, n in why.most_common())
    return "\n".join(lines)


def command_line(doc: str, argv: list[str] | None) -> argparse.Namespace:
    """``shardy`` (a checkout) and ``--verbose``, as these scripts take them."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument(
        "shardy", type=Path, help="a checkout of openxla/shardy (or a test folder)"
    )
    parser.add_argument("--verbose", action="store_true", help="one line per case")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    options = command_line(__doc__, argv)
    paths = files(options.shardy) or sorted(options.shardy.glob("*.mlir"))
    if not paths:
        print(f"no executable tests under {options.shardy}", file=sys.stderr)
        return 2
    flags = os.environ.get("XLA_FLAGS", "")
    flags = re.sub(r"--xla_force_host_platform_device_count=\d+", "", flags)
    os.environ["XLA_FLAGS"] = (
        f"{flags} --xla_force_host_platform_device_count={DEVICES}"
    )
    # The tests compute in i64 and complex<f64> too.
    os.environ.setdefault("JAX_ENABLE_X64", "1")
    cases: list[Case] = []
    with tempfile.TemporaryDirectory() as tmp:
        for path in paths:
            try:
                cases.extend(
                    run_file(path, path.parent.name, Path(tmp), options.verbose)
                )
            except Exception as error:  # one file's harness failure
                if DEBUG:
                    raise
                why = f"harness: {first_line(error)}"
                cases.append(
                    Case(path.parent.name, path.name, "?", dict.fromkeys(MODES, why))
                )
    print(report(cases))
    return 0


if __name__ == "__main__":
    sys.exit(main())
