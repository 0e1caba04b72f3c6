"""Helpers for the JAX emitter tests: build boxed Programs by hand, load and run them.

Not a test module (no ``test_`` prefix); the tests load it by path because
``--import-mode=importlib`` gives test folders no package.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

import numpy as np

from sbpc.algebra.placement import Placement
from sbpc.algebra.sbp import B, Broadcast, NdSbp, Partial, Split
from sbpc.algebra.signature import Signature
from sbpc.algebra.tensor_type import TensorType
from sbpc.jax_backend.collectives import check_step
from sbpc.jax_backend.emit import emit_jax
from sbpc.ops.registry import nd_signatures
from sbpc.ops.spec import OpSpec
from sbpc.program import Arg, CollectiveInstr, OpInstr, Program, Result, ValueId
from sbpc.simulator.execute import evaluate_whole


class Builder:
    """A Program written instruction by instruction, boxing inserted on request."""

    def __init__(self, placement: Placement, name: str = "main") -> None:
        self.program = Program(name, placement)
        self.next = 0
        self.layout: dict[ValueId, NdSbp] = {}
        self.where: dict[ValueId, Placement] = {}

    def _new(self, t: TensorType, layout: NdSbp, where: Placement) -> ValueId:
        v = self.next
        self.next += 1
        self.program.types[v] = t
        self.layout[v], self.where[v] = layout, where
        return v

    def arg(
        self, t: TensorType, layout: NdSbp, placement: Placement | None = None
    ) -> ValueId:
        where = placement or self.program.placement
        v = self._new(t, tuple(layout), where)
        self.program.args.append(Arg(v, tuple(layout), where))
        return v

    def op(
        self, op: OpSpec, sig: Signature, operands: Sequence[ValueId], box: bool = True
    ) -> list[ValueId]:
        """``op`` under ``sig``; operands boxed to the layouts it wants if ``box``."""
        where = self.where[operands[0]] if operands else self.program.placement
        ins = [
            self.box(v, nd) if box else v
            for v, nd in zip(operands, sig.inputs, strict=True)
        ]
        outs = [
            self._new(t, nd, where)
            for t, nd in zip(op.results, sig.outputs, strict=True)
        ]
        self.program.body.append(OpInstr(op, sig, tuple(ins), tuple(outs), where))
        return outs

    def step(self, kind: str, dims: Sequence[int], v: ValueId, dst: NdSbp) -> ValueId:
        src, where = self.layout[v], self.where[v]
        out = self._new(self.program.types[v], tuple(dst), where)
        self.program.body.append(
            CollectiveInstr(kind, tuple(dims), src, tuple(dst), v, out, where)  # type: ignore[arg-type]
        )
        return out

    def box(self, v: ValueId, dst: NdSbp) -> ValueId:
        """To all-B from the last hierarchy dim up, then to ``dst`` from the first."""
        dst = tuple(dst)
        cur = self.layout[v]
        if cur == dst:
            return v
        for k in reversed(range(len(cur))):
            s = cur[k]
            if isinstance(s, Broadcast):
                continue
            nxt = (*cur[:k], B, *cur[k + 1 :])
            v = self.step(
                "all_gather" if isinstance(s, Split) else "all_reduce", [k], v, nxt
            )
            cur = nxt
        for k, s in enumerate(dst):
            if isinstance(s, Broadcast):
                continue
            nxt = (*cur[:k], s, *cur[k + 1 :])
            kind = "local_slice" if isinstance(s, Split) else "local_to_partial"
            v = self.step(kind, [k], v, nxt)
            cur = nxt
        return v

    def transfer(self, v: ValueId, to: Placement, dst: NdSbp) -> ValueId:
        out = self._new(self.program.types[v], tuple(dst), to)
        self.program.body.append(
            CollectiveInstr(
                "transfer", (), self.layout[v], tuple(dst), v, out, self.where[v], to
            )
        )
        return out

    def ret(self, v: ValueId, layout: NdSbp | None = None) -> None:
        if layout is not None:
            v = self.box(v, layout)
        self.program.results.append(Result(v, self.layout[v], self.where[v]))

    def ret_as(self, v: ValueId, layout: NdSbp) -> None:
        """Return ``v`` with result layout ``layout`` and no boxing step."""
        self.program.results.append(Result(v, tuple(layout), self.where[v]))


# The numpy oracle: global ops in order, boxing steps the identity.
evaluate_program = evaluate_whole


def load(
    program: Program, directory: Path, name: str, **emit_options: int
) -> ModuleType:
    """Emit ``program``, write it to ``directory/name.py`` and import it."""
    path = directory / f"{name}.py"
    path.write_text(emit_jax(program, **emit_options))
    return import_path(name, path)


def import_path(name: str, path: Path) -> ModuleType:
    """Import the file ``path`` as module ``name`` (tests are not a package)."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def sig_with(
    op: OpSpec, hierarchy: Sequence[int], inputs=None, outputs=None
) -> Signature:
    """The N-D signature of ``op`` with these operand / result layouts."""
    for sig in nd_signatures(op, hierarchy):
        if (inputs is None or sig.inputs == tuple(inputs)) and (
            outputs is None or sig.outputs == tuple(outputs)
        ):
            return sig
    raise AssertionError(f"{op.name} has no signature {inputs} -> {outputs}")


def run_script(path: Path) -> subprocess.CompletedProcess[str]:
    """``python path`` as a user runs an emitted module: its own self-check on
    simulated CPU devices (no XLA_FLAGS inherited: the module sets them)."""
    env = {k: v for k, v in os.environ.items() if k != "XLA_FLAGS"}
    env["JAX_PLATFORMS"] = "cpu"
    return subprocess.run(
        [sys.executable, str(path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def assert_close(got: np.ndarray, want: np.ndarray, what: str) -> None:
    """Floats within 1e-4 of the largest magnitude (1e-2 for 16-bit), others exact."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, f"{what}: shape {got.shape} != {want.shape}"
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype} != {want.dtype}"
    if np.issubdtype(want.dtype, np.inexact):
        w = want.astype(np.float64)
        finite = np.abs(w[np.isfinite(w)])
        scale = max(1.0, float(finite.max())) if finite.size else 1.0
        tol = (1e-2 if want.dtype.itemsize <= 2 else 1e-4) * scale
        ok = np.allclose(got.astype(np.float64), w, rtol=0, atol=tol, equal_nan=True)
        err = np.nanmax(np.abs(got.astype(np.float64) - w)) if got.size else 0.0
        assert ok, f"{what}: max error {err} > {tol}"
    else:
        bad = np.argwhere(got != want)
        assert not len(bad), f"{what}: {len(bad)} elements differ, first at {bad[0]}"


def valid_step(kind: str, dims: Sequence[int], src: NdSbp, dst: NdSbp) -> bool:
    try:
        check_step(kind, dims, src, dst)
    except ValueError:
        return False
    return True


def describe(program: Program, v: ValueId) -> str:
    """The op (and signature) that defines ``v``, for failure messages."""
    for instr in program.body:
        if isinstance(instr, OpInstr) and v in instr.results:
            return f"%{v} = {instr.op} under {instr.sig}"
        if isinstance(instr, CollectiveInstr) and v == instr.result:
            src = describe(program, instr.operand)
            return f"%{v} = {instr.kind} {instr.src} -> {instr.dst} of ({src})"
    return f"%{v} (argument)"


def is_partial(nd: NdSbp) -> bool:
    return any(isinstance(s, Partial) for s in nd)
