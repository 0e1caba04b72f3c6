"""The emitted module runs unchanged on two processes (multi-controller JAX).

Two local processes of 4 CPU devices each join through
``jax.distributed.initialize`` and run the emitted modules with CPU
collectives over gloo; collectives on hierarchy dim 0 of a 2x4 mesh cross
the process boundary.  Each process checks ``build()`` against
``reference()`` and writes its logical results, which this test compares
with the numpy oracle.  The emitted modules are imported without sbpc on
the path: they depend on jax and numpy only.
"""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
from pathlib import Path

import jax_programs as jp
import numpy as np
import pytest

from sbpc.algebra.placement import Placement
from sbpc.algebra.sbp import B, P, Partial, S
from sbpc.algebra.signature import Signature
from sbpc.algebra.tensor_type import TensorType
from sbpc.jax_backend.emit import emit_jax
from sbpc.ops.spec import OpSpec
from sbpc.program import Program

jax = pytest.importorskip("jax")
if "jax_cpu_collectives_implementation" not in jax.config.values:
    pytest.skip("this jax has no CPU collectives option", allow_module_level=True)

_HERE = Path(__file__).parent

TIMEOUT_S = 240
DOT = {
    "lhs_batching_dimensions": (),
    "rhs_batching_dimensions": (),
    "lhs_contracting_dimensions": (1,),
    "rhs_contracting_dimensions": (0,),
}

DRIVER = """
import importlib.util, os, sys
pid, port, out_dir = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"
os.environ["JAX_PLATFORMS"] = "cpu"
import jax
import numpy as np
jax.config.update("jax_cpu_collectives_implementation", "gloo")
jax.distributed.initialize(
    coordinator_address=f"localhost:{port}", num_processes=2, process_id=pid,
    initialization_timeout=120,
)
assert jax.process_count() == 2 and len(jax.devices()) == 8
status = 0
for path in sys.argv[4:]:
    name = os.path.basename(path)[:-3]
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    args = mod.random_args(0)
    got = mod.logical(mod.build()(*mod.put_args(*args)))
    want = mod.fetch(mod.reference(*args))
    want = want if isinstance(want, tuple) else (want,)
    errors = mod.max_errors(got, want)
    ok = all(e <= mod._tolerance(w) for e, w in zip(errors, want))
    print(f"process {pid} {name}: max errors {errors} {'ok' if ok else 'MISMATCH'}")
    status |= 0 if ok else 1
    np.savez(os.path.join(out_dir, f"{name}.{pid}.npz"), *got)
jax.distributed.shutdown()
sys.exit(status)
"""


def T(*shape: int, e: str = "f32") -> TensorType:
    return TensorType(tuple(shape), e)


_sig = jp.sig_with


def mesh_program() -> Program:
    """A 2x4 mesh whose rows are the two processes: collectives across them."""
    h = (2, 4)
    b = jp.Builder(Placement.of_size(h))
    x = b.arg(T(8, 16), (S(1), S(1)))
    w = b.arg(T(16, 16), (S(0), S(0)))
    mm = OpSpec("stablehlo.dot_general", [T(8, 16), T(16, 16)], [T(8, 16)], DOT)
    (y,) = b.op(mm, _sig(mm, h, [(S(1), S(1)), (S(0), S(0))], [(P, P)]), [x, w])
    rs = b.step("reduce_scatter", [0, 1], y, (S(0), S(0)))  # psum_scatter over both
    a2a = b.step("all_to_all", [0, 1], rs, (S(1), S(1)))  # one group of 8
    ag = b.step("all_gather", [1], a2a, (S(1), B))
    a2a = b.step("all_to_all", [0], ag, (S(0), B))  # across processes
    iota = OpSpec("stablehlo.iota", [], [T(8, 16)], {"iota_dimension": 0})
    (i,) = b.op(iota, Signature((), ((S(0), B),)), [])
    add = OpSpec("stablehlo.add", [T(8, 16)] * 2, [T(8, 16)])
    (z,) = b.op(add, _sig(add, h, outputs=[(S(0), B)]), [a2a, i])
    b.ret(z, (B, B))  # all_gather over the process boundary
    mx = b.step("local_to_partial", [0], b.box(y, (B, B)), (Partial("max"), B))
    b.ret(mx)  # stacked partial pieces
    b.ret(y, (B, B))
    return b.program


def pipeline_program(r0, r1) -> Program:
    """Seed 001's pipeline: matmul on placement 0, the result moved to placement 1."""
    p0, p1 = Placement.from_nested("cpu", r0), Placement.from_nested("cpu", r1)
    b = jp.Builder(p0)
    a0 = b.arg(T(8, 16), (S(0), B))
    b0 = b.arg(T(16, 8), (B, S(1)))
    b1 = b.arg(T(8, 12), (S(1),), p1)
    mm0 = OpSpec("stablehlo.dot_general", [T(8, 16), T(16, 8)], [T(8, 8)], DOT)
    (y0,) = b.op(mm0, _sig(mm0, (2, 2), outputs=[(S(0), S(1))]), [a0, b0])
    y1 = b.transfer(y0, p1, (B,))
    mm1 = OpSpec("stablehlo.dot_general", [T(8, 8), T(8, 12)], [T(8, 12)], DOT)
    (y2,) = b.op(mm1, _sig(mm1, (4,), [(B,), (S(1),)], [(S(1),)]), [y1, b1])
    b.ret(y2)
    b.ret(y0)
    return b.program


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("localhost", 0))
        return s.getsockname()[1]


def test_two_processes_over_gloo(tmp_path: Path) -> None:
    programs = {
        "mesh2x4": mesh_program(),
        # stages on one host each, and stages spanning both hosts
        "pipe_split": pipeline_program([[0, 1], [2, 3]], [4, 5, 6, 7]),
        "pipe_span": pipeline_program([[0, 1], [4, 5]], [2, 3, 6, 7]),
    }
    paths = []
    for name, program in programs.items():
        path = tmp_path / f"{name}.py"
        path.write_text(emit_jax(program))
        paths.append(str(path))
    driver = tmp_path / "driver.py"
    driver.write_text(DRIVER)
    env = {k: v for k, v in os.environ.items() if k not in ("XLA_FLAGS", "PYTHONPATH")}
    port = _free_port()
    procs = [
        subprocess.Popen(
            [sys.executable, str(driver), str(pid), str(port), str(tmp_path), *paths],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
            cwd=tmp_path,
        )
        for pid in range(2)
    ]
    logs = []
    try:
        for proc in procs:
            out, _ = proc.communicate(timeout=TIMEOUT_S)
            logs.append(out)
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    report = "\n".join(
        line for log in logs for line in log.splitlines() if "Gloo" not in line
    )
    assert all(p.returncode == 0 for p in procs), report
    for name, program in programs.items():
        spec = importlib.util.spec_from_file_location(
            f"mh_{name}", tmp_path / f"{name}.py"
        )
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        want = jp.evaluate_program(program, module.random_args(0))
        for pid in range(2):
            with np.load(tmp_path / f"{name}.{pid}.npz") as got:
                for k, w in enumerate(want):
                    jp.assert_close(
                        got[f"arr_{k}"], w, f"{name} process {pid} result {k}"
                    )
