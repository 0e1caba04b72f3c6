"""The emitted JAX module computes the program: numbers on 8 simulated CPU devices.

Each test builds boxed Programs by hand, emits them, imports the module and
compares ``build()(*args)`` (sharded, 8 devices) with ``reference(*args)``
and with the numpy oracle (``op_eval`` on the whole inputs).  Many cases
share one Program so that one compilation covers them (the suite stays
fast on two cores).
"""

from __future__ import annotations

import itertools
import random
import re
from pathlib import Path

import jax_programs as jp
import numpy as np
import pytest

from sbpc.algebra.placement import Placement
from sbpc.algebra.sbp import B, P, Partial, S
from sbpc.algebra.signature import Signature
from sbpc.algebra.tensor_type import TensorType
from sbpc.jax_backend.emit import JaxEmitError, emit_jax
from sbpc.ops.registry import nd_signatures
from sbpc.ops.spec import OpSpec, numpy_dtype
from sbpc.program import OpInstr, Program

jax = pytest.importorskip("jax")

_HERE = Path(__file__).parent


Builder = jp.Builder

HIERARCHIES = [(8,), (2, 4), (2, 2, 2)]
PMAX, PMIN = Partial("max"), Partial("min")


def T(*shape: int, e: str = "f32") -> TensorType:
    return TensorType(tuple(shape), e)


def run_and_compare(module, program: Program, inputs: list[np.ndarray]) -> None:
    """Sharded == reference == numpy oracle, result by result."""
    got = module.logical(module.build()(*module.put_args(*inputs)))
    ref = module.reference(*inputs)
    ref = ref if isinstance(ref, tuple) else (ref,)
    oracle = jp.evaluate_program(program, inputs)
    failures = []
    for k, (g, r, o) in enumerate(zip(got, ref, oracle, strict=True)):
        what = f"result {k} ({jp.describe(program, program.results[k].value)})"
        for name, x in (("reference", np.asarray(r)), ("sharded", g)):
            try:
                jp.assert_close(x, o, f"{what} {name} vs numpy")
            except AssertionError as err:
                failures.append(str(err))
    assert not failures, "\n".join(failures)


# --- every collective kind, on every hierarchy ------------------------------------

# (kind, src entry, dst entry) on the dims of the step.
CHANGES = [
    ("all_gather", S(0), B),
    ("all_gather", S(1), B),
    ("all_reduce", P, B),
    ("all_reduce", PMAX, B),
    ("all_reduce", PMIN, B),
    ("reduce_scatter", P, S(0)),
    ("reduce_scatter", PMAX, S(1)),
    ("reduce_scatter", PMIN, S(0)),
    ("all_to_all", S(0), S(1)),
    ("all_to_all", S(1), S(0)),
    ("local_slice", B, S(0)),
    ("local_slice", B, S(1)),
    ("local_to_partial", B, P),
    ("local_to_partial", B, PMAX),
    ("local_to_partial", S(0), P),
    ("local_to_partial", S(1), PMAX),
    ("local_to_partial", S(0), PMIN),
]
# Entries for the dims a step leaves alone: the same tensor dim split by an
# earlier hierarchy dim (hierarchical order), other splits, B, partials.
FILLERS = [S(0), S(1), B, P, PMAX]


def collective_cases(hierarchy: tuple[int, ...]) -> list[tuple]:
    """(kind, dims, src, dst) for every dim group and change, valid fillers."""
    n = len(hierarchy)
    cases = []
    groups = [g for r in range(1, n + 1) for g in itertools.combinations(range(n), r)]
    for gi, dims in enumerate(groups):
        for ci, (kind, s, t) in enumerate(CHANGES):
            rest = [d for d in range(n) if d not in dims]
            for shift in range(len(FILLERS) ** len(rest)):
                src, dst = [None] * n, [None] * n
                for d in dims:
                    src[d], dst[d] = s, t
                for j, d in enumerate(rest):
                    pick = (shift // len(FILLERS) ** j + gi + ci + d) % len(FILLERS)
                    src[d] = dst[d] = FILLERS[pick]
                if jp.valid_step(kind, dims, tuple(src), tuple(dst)):
                    cases.append((kind, dims, tuple(src), tuple(dst)))
                    break
    return cases


@pytest.mark.parametrize("hierarchy", HIERARCHIES, ids=str)
def test_every_collective_kind(hierarchy: tuple[int, ...], tmp_path: Path) -> None:
    """Each step from its source layout (an argument) to its target (the result).

    Covers multi-dim groups (a tuple of axis names) and tensor dims split over
    several mesh axes, whose block order must match the nd_sbp meaning.
    """
    cases = collective_cases(hierarchy)
    assert len(cases) >= len(CHANGES) * (2 ** len(hierarchy) - 1) * 0.8
    b = Builder(Placement.of_size(hierarchy))
    rng = np.random.default_rng(0)
    inputs = []
    for kind, dims, src, dst in cases:
        x = b.arg(T(16, 16), src)
        inputs.append(rng.standard_normal((16, 16)).astype(np.float32))
        y = b.step(kind, dims, x, dst)
        b.ret(y)  # partial targets come back as stacked pieces
    # Results in other layouts too: every collective result boxed to all-B.
    for v in list(b.program.results[:6]):
        b.ret(v.value, (B,) * len(hierarchy))
    module = jp.load(b.program, tmp_path, f"coll_{'x'.join(map(str, hierarchy))}")
    run_and_compare(module, b.program, inputs)


def test_multi_axis_spec_matches_nd_sbp_meaning(tmp_path: Path) -> None:
    """(S(0), S(0)) on 2x4: device (i, j) holds block i*4+j; (S(1), S(0)) too."""
    pl = Placement.of_size((2, 4))
    b = Builder(pl)
    x = b.arg(T(8, 8), (S(0), S(0)))
    y = b.arg(T(8, 8), (S(1), S(0)))
    # iota along dim 0 split as x: each device's offset = its block's first row.
    iota = OpSpec("stablehlo.iota", [], [T(8, 8)], {"iota_dimension": 0})
    (i,) = b.op(iota, Signature((), ((S(0), S(0)),)), [])
    add = OpSpec("stablehlo.add", [T(8, 8), T(8, 8)], [T(8, 8)])
    (z,) = b.op(add, Signature(((S(0), S(0)), (S(0), S(0))), ((S(0), S(0)),)), [x, i])
    b.ret(z)
    b.ret(b.step("all_gather", [0, 1], z, (B, B)))
    b.ret(y)
    module = jp.load(b.program, tmp_path, "multi_axis")
    assert module.IN_SPECS[0] == jax.sharding.PartitionSpec(("d0", "d1"), None)
    assert module.IN_SPECS[1] == jax.sharding.PartitionSpec("d1", "d0")
    xs = [np.arange(64, dtype=np.float32).reshape(8, 8) for _ in range(2)]
    out = module.build()(*module.put_args(*xs))
    mesh_devices = module.make_mesh().devices
    for (row, col), dev in np.ndenumerate(mesh_devices):
        shard = next(s for s in out[0].addressable_shards if s.device == dev)
        block = row * 4 + col
        np.testing.assert_array_equal(
            np.asarray(shard.data), xs[0][block : block + 1] + block
        )
    run_and_compare(module, b.program, xs)


# --- every op of the rule catalogue, under sampled signatures -----------------------

rules = jp.import_path(
    "sbpc_test_op_rules_cases", _HERE.parent / "ops" / "test_registry.py"
)
_X64 = {"i64", "ui64", "f64", "index"}
# 64-bit cases need jax's x64 mode, a process-wide switch: the self-check
# subprocess below covers them.
OP_CASES = [
    c
    for c in rules.CASES
    if not any(t.element in _X64 for t in (*c[1].operands, *c[1].results))
]
SAMPLES = {(8,): 2, (2, 4): 3, (2, 2, 2): 2}
# fptoui of a negative float is undefined (numpy wraps, XLA saturates).
NONNEGATIVE = {"arith_fptoui"}


@pytest.mark.parametrize("hierarchy", HIERARCHIES, ids=str)
def test_every_op_under_sampled_signatures(
    hierarchy: tuple[int, ...], tmp_path: Path
) -> None:
    """Every op kind the rules know, each under a few of its N-D signatures.

    Arguments come in the operand layouts (partial ones made into pieces in
    the body); half the results come back as the signature gives them
    (partials as stacked pieces), half boxed to all-B through collectives.
    """
    b = Builder(Placement.of_size(hierarchy))
    inputs: list[np.ndarray] = []
    count = 0
    for cid, op, make in OP_CASES:
        sigs = nd_signatures(op, hierarchy)
        rng = random.Random(f"{cid}{hierarchy}")
        split = [s for s in sigs if any(x != B for nd in s.outputs for x in nd)]
        chosen = rng.sample(split or sigs, min(SAMPLES[hierarchy], len(split or sigs)))
        for sig in chosen:
            xs = rules._inputs(op, make, seed=len(cid) + count)
            if cid in NONNEGATIVE:
                xs = [np.abs(x) for x in xs]
            args = [b.arg(t, nd) for t, nd in zip(op.operands, sig.inputs, strict=True)]
            inputs += xs
            outs = b.op(op, sig, args)
            for v in outs:
                b.ret(v, (B,) * len(hierarchy) if count % 2 else None)
            count += 1
    module = jp.load(b.program, tmp_path, f"ops_{'x'.join(map(str, hierarchy))}")
    run_and_compare(module, b.program, inputs)


# --- named op families in one distributed program -------------------------------------


sig_with = jp.sig_with


DOT = {
    "lhs_batching_dimensions": (),
    "rhs_batching_dimensions": (),
    "lhs_contracting_dimensions": (1,),
    "rhs_contracting_dimensions": (0,),
}


def test_op_families_with_boxing_between_them(tmp_path: Path, row_gather) -> None:
    """A small model on 2x4: each op under a split signature, boxing in between.

    matmul with a P output + all_reduce, bias via broadcast_in_dim, elementwise,
    reshape, transpose, a reduce giving P, split iota and compare, a constant
    under P(sum), a gather (embedding lookup), concatenate and slice on unsplit
    dims.
    """
    h = (2, 4)
    b = Builder(Placement.of_size(h))
    x = b.arg(T(8, 16), (S(0), S(1)))
    w = b.arg(T(16, 32), (B, S(0)))
    bias = b.arg(T(32), (B, B))
    table = b.arg(T(32, 8), (B, S(1)))
    ids = b.arg(T(8, 1, e="i32"), (S(0), B))

    mm = OpSpec("stablehlo.dot_general", [T(8, 16), T(16, 32)], [T(8, 32)], DOT)
    (y,) = b.op(mm, sig_with(mm, h, [(S(0), S(1)), (B, S(0))], [(S(0), P)]), [x, w])
    y = b.step("all_reduce", [1], y, (S(0), B))
    bc = OpSpec(
        "stablehlo.broadcast_in_dim",
        [T(32)],
        [T(8, 32)],
        {"broadcast_dimensions": (1,)},
    )
    (bb,) = b.op(bc, sig_with(bc, h, outputs=[(S(0), B)]), [bias])
    add = OpSpec("stablehlo.add", [T(8, 32)] * 2, [T(8, 32)])
    (y,) = b.op(add, sig_with(add, h, outputs=[(S(0), B)]), [y, bb])
    th = OpSpec("stablehlo.tanh", [T(8, 32)], [T(8, 32)])
    (y,) = b.op(th, sig_with(th, h, outputs=[(S(0), S(1))]), [y])
    rs = OpSpec("stablehlo.reshape", [T(8, 32)], [T(8, 4, 8)])
    (y,) = b.op(rs, sig_with(rs, h, outputs=[(S(0), S(1))]), [y])
    tr = OpSpec(
        "stablehlo.transpose", [T(8, 4, 8)], [T(4, 8, 8)], {"permutation": (1, 0, 2)}
    )
    (y,) = b.op(tr, sig_with(tr, h, outputs=[(S(0), S(1))]), [y])
    red = OpSpec(
        "stablehlo.reduce",
        [T(4, 8, 8), T()],
        [T(8, 8)],
        {"dimensions": (0,), "kind": "add"},
    )
    zero = b.op(
        OpSpec("stablehlo.constant", [], [T()], {"value": np.float32(0)}),
        Signature((), ((B, B),)),
        [],
    )[0]
    (r,) = b.op(red, sig_with(red, h, [(S(0), S(1)), (P, B)], [(P, S(0))]), [y, zero])
    # iota split over both mesh axes on dim 1 compared with a split constant.
    io = OpSpec("stablehlo.iota", [], [T(8, 8, e="i32")], {"iota_dimension": 1})
    (i,) = b.op(io, Signature((), ((S(1), S(1)),)), [])
    cval = (np.arange(64).reshape(8, 8) % 8).astype(np.int32)
    cst = OpSpec("stablehlo.constant", [], [T(8, 8, e="i32")], {"value": cval})
    (c,) = b.op(cst, Signature((), ((S(1), S(1)),)), [])
    cmp = OpSpec(
        "stablehlo.compare",
        [T(8, 8, e="i32")] * 2,
        [T(8, 8, e="i1")],
        {"comparison_direction": "EQ"},
    )
    (eq,) = b.op(cmp, sig_with(cmp, h, outputs=[(S(1), S(1))]), [i, c])
    # a constant held once under P(sum), added to the partial reduction.
    pc = OpSpec(
        "stablehlo.constant", [], [T(8, 8)], {"value": np.full((8, 8), 2.5, np.float32)}
    )
    (k,) = b.op(pc, Signature((), ((P, S(0)),)), [])
    add8 = OpSpec("stablehlo.add", [T(8, 8)] * 2, [T(8, 8)])
    (r,) = b.op(add8, sig_with(add8, h, [(P, S(0))] * 2, [(P, S(0))]), [r, k])
    # embedding lookup: rows of table by ids, batch split over hierarchy dim 0.
    g = OpSpec(
        "stablehlo.gather",
        [T(32, 8), T(8, 1, e="i32")],
        [T(8, 8)],
        row_gather(1, (1, 8)),
    )
    (e,) = b.op(g, sig_with(g, h, [(B, S(1)), (S(0), B)], [(S(0), S(1))]), [table, ids])
    cat = OpSpec(
        "stablehlo.concatenate", [T(8, 8), T(8, 8)], [T(8, 16)], {"dimension": 1}
    )
    (ce,) = b.op(cat, sig_with(cat, h, outputs=[(S(0), B)]), [e, r])
    sl = OpSpec(
        "stablehlo.slice",
        [T(8, 16)],
        [T(8, 6)],
        {"start_indices": (0, 3), "limit_indices": (8, 15), "strides": (1, 2)},
    )
    (s,) = b.op(sl, sig_with(sl, h, outputs=[(S(0), B)]), [ce])
    b.ret(s)
    b.ret(r)  # (P, S(0)): stacked partial pieces
    b.ret(eq)
    module = jp.load(b.program, tmp_path, "families")
    rng = np.random.default_rng(1)
    inputs = [
        rng.standard_normal((8, 16)).astype(np.float32),
        rng.standard_normal((16, 32)).astype(np.float32),
        rng.standard_normal(32).astype(np.float32),
        rng.standard_normal((32, 8)).astype(np.float32),
        rng.integers(-2, 34, (8, 1)).astype(np.int32),  # some clamp
    ]
    assert module.OUT_PARTIAL == ((), ("sum",), ())
    run_and_compare(module, b.program, inputs)
    text = module.build().lower(*module.put_args(*inputs)).as_text()
    assert "all_reduce" in text and "all_gather" in text


# --- pipeline stages on two placements ------------------------------------------------


def test_two_placement_pipeline(tmp_path: Path) -> None:
    """OneFlow's seed example (001): matmul on ranks 0-3, the result moved to
    ranks 4-7, another matmul there, and back again; one value crosses as
    partial (reduced at the stage exit, remade as pieces after the transfer)."""
    p0 = Placement.from_nested("cpu", [[0, 1], [2, 3]])
    p1 = Placement.from_nested("cpu", [4, 5, 6, 7])
    b = Builder(p0)
    a0 = b.arg(T(8, 16), (S(0), B))
    b0 = b.arg(T(16, 8), (B, S(1)))
    b1 = b.arg(T(8, 12), (B,), p1)
    mm0 = OpSpec("stablehlo.dot_general", [T(8, 16), T(16, 8)], [T(8, 8)], DOT)
    (y0,) = b.op(mm0, sig_with(mm0, (2, 2), outputs=[(S(0), S(1))]), [a0, b0])
    # a partial value too: contracting dim split over hierarchy dim 1.
    (yp,) = b.op(mm0, sig_with(mm0, (2, 2), [(B, S(1)), (B, S(0))], [(B, P)]), [a0, b0])
    y1 = b.transfer(y0, p1, (B,))
    ypp = b.transfer(yp, p1, (P,))
    mm1 = OpSpec("stablehlo.dot_general", [T(8, 8), T(8, 12)], [T(8, 12)], DOT)
    (y2,) = b.op(mm1, sig_with(mm1, (4,), [(B,), (B,)], [(B,)]), [y1, b.box(b1, (B,))])
    add = OpSpec("stablehlo.add", [T(8, 8)] * 2, [T(8, 8)])
    (s1,) = b.op(add, sig_with(add, (4,), [(P,), (P,)], [(P,)]), [ypp, b.box(y1, (P,))])
    back = b.transfer(y2, p0, (S(0), B))
    add12 = OpSpec("stablehlo.add", [T(8, 12)] * 2, [T(8, 12)])
    (z,) = b.op(add12, sig_with(add12, (2, 2), outputs=[(S(0), B)]), [back, back])
    b.ret(z)
    b.ret(s1, (B,))
    b.ret(y2)
    b.ret(yp)  # partial on p0, returned as stacked pieces
    module = jp.load(b.program, tmp_path, "pipeline")
    assert module.PLACEMENTS == (((0, 1, 2, 3), (2, 2)), ((4, 5, 6, 7), (4,)))
    assert module.ARG_PLACEMENTS == (0, 0, 1) and module.OUT_PLACEMENTS == (0, 1, 1, 0)
    fn = module.build()
    assert isinstance(fn, module.Pipeline)
    assert sum(isinstance(s, module._Stage) for s in module._STEPS) == 4
    rng = np.random.default_rng(2)
    inputs = [
        rng.standard_normal(t.shape).astype(np.float32)
        for t in (T(8, 16), T(16, 8), T(8, 12))
    ]
    run_and_compare(module, b.program, inputs)
    out = fn(*inputs)
    ranks = {d.id for d in out[0].sharding.device_set}
    assert ranks == {0, 1, 2, 3} and {d.id for d in out[1].sharding.device_set} == {
        4,
        5,
        6,
        7,
    }
    assert len(fn.lower(*inputs)) == 4


# --- the module's own contract ----------------------------------------------------------


def _small_program() -> Program:
    """A 2x4 program touching 64-bit types (x64 mode) and a partial result."""
    b = Builder(Placement.of_size((2, 4)))
    x = b.arg(T(8, 16), (S(0), S(1)))
    w = b.arg(T(16, 8), (S(1), B))
    mm = OpSpec("stablehlo.dot_general", [T(8, 16), T(16, 8)], [T(8, 8)], DOT)
    (y,) = b.op(mm, sig_with(mm, (2, 4), outputs=[(S(0), P)]), [x, w])
    cv = OpSpec("stablehlo.convert", [T(8, 8)], [T(8, 8, e="f64")])
    (y64,) = b.op(cv, sig_with(cv, (2, 4), [(S(0), P)], [(S(0), P)]), [y])
    b.ret(y64, (B, B))
    b.ret(y)
    return b.program


def test_self_check_script(tmp_path: Path) -> None:
    """``python module.py`` checks itself on simulated devices (exit 0); a
    broken module fails its self-check (exit 1)."""
    source = emit_jax(_small_program())
    compile(source, "emitted", "exec")
    assert "_X64 = True" in source
    path = tmp_path / "prog.py"
    path.write_text(source)
    run = jp.run_script(path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "ok" in run.stdout
    broken = tmp_path / "broken.py"
    assert "lax.psum(" in source
    broken.write_text(source.replace("lax.psum(", "(lambda x, axes: x)(", 1))
    run = jp.run_script(broken)
    assert run.returncode == 1 and "MISMATCH" in run.stdout, run.stdout + run.stderr


# --- what the emitter refuses -------------------------------------------------------------


def test_64_bit_program_runs_in_scoped_x64_mode(tmp_path: Path) -> None:
    """A module with 64-bit types loads and runs without switching the
    process to x64 mode (its calls enter it), and keeps its f64 result."""
    import jax

    program = _small_program()
    assert not jax.config.jax_enable_x64
    module = jp.load(program, tmp_path, "x64_program")
    assert not jax.config.jax_enable_x64
    inputs = module.random_args(1)
    got = module.build()(*module.put_args(*inputs))
    assert not jax.config.jax_enable_x64
    assert got[0].dtype == np.float64
    run_and_compare(module, program, inputs)
    assert not jax.config.jax_enable_x64


def _one_op_program(op: OpSpec, sig: Signature, hierarchy=(8,), label="") -> Program:
    b = Builder(Placement.of_size(hierarchy))
    args = [b.arg(t, nd) for t, nd in zip(op.operands, sig.inputs, strict=True)]
    outs = b.op(op, sig, args)
    b.ret(outs[0])
    if label:
        instr = b.program.body[-1]
        b.program.body[-1] = OpInstr(
            instr.op, instr.sig, instr.operands, instr.results, instr.placement, label
        )
    return b.program


def test_unsupported_op_is_a_located_error() -> None:
    op = OpSpec("stablehlo.custom_call", [T(8)], [T(8)], {"call_target_name": "foo"})
    prog = _one_op_program(op, Signature(((B,),), ((B,),)), label="model.py:3:7")
    with pytest.raises(
        JaxEmitError, match=r"no lowering for 'stablehlo\.custom_call'"
    ) as e:
        emit_jax(prog)
    assert e.value.label == "model.py:3:7"
    assert str(e.value).startswith("model.py:3:7: ")


def test_reduce_with_unknown_body_is_refused() -> None:
    op = OpSpec("stablehlo.reduce", [T(8, 8), T()], [T(8)], {"dimensions": (1,)})
    with pytest.raises(JaxEmitError, match="body kind None"):
        emit_jax(_one_op_program(op, Signature(((B,), (B,)), ((B,),))))


def test_layout_mismatch_and_bad_collectives_are_refused() -> None:
    add = OpSpec("stablehlo.add", [T(8, 8)] * 2, [T(8, 8)])
    b = Builder(Placement.of_size((2, 4)))
    x = b.arg(T(8, 8), (S(0), B))
    b.op(add, Signature(((B, B), (B, B)), ((B, B),)), [x, x], box=False)
    b.ret(b.program.body[-1].results[0])
    with pytest.raises(JaxEmitError, match=r"is \[S\(0\), B\] but is used as \[B, B\]"):
        emit_jax(b.program)
    cases = [
        # the changed split is not the innermost one of tensor dim 0
        ("all_gather", [0], (S(0), S(0)), (B, S(0)), "not contiguous"),
        # pieces combine inner dim first: max before sum is wrong
        ("all_reduce", [0], (PMAX, P), (B, P), "reduce dim 1 first"),
        ("all_gather", [0], (P, B), (B, B), "is not a step of all_gather"),
        ("local_slice", [0, 1], (B, B), (S(0), S(1)), "one change"),
    ]
    for kind, dims, src, dst, message in cases:
        b = Builder(Placement.of_size((2, 4)))
        b.ret(b.step(kind, dims, b.arg(T(8, 8), src), dst))
        with pytest.raises(JaxEmitError, match=message):
            emit_jax(b.program)


def test_uneven_layout_is_padded_and_unknown_dtype_refused() -> None:
    b = Builder(Placement.of_size(8))
    b.ret(b.arg(T(6, 4), (S(0),)))
    source = emit_jax(b.program)
    assert "ARG_PADS = (((0, (0, 1, 2, 3, 4, 5, 5, 5)),),)" in source
    assert "OUT_PADS = (((0, (0, 1, 2, 3, 4, 5)),),)" in source
    b = Builder(Placement.of_size(8))
    b.ret(b.arg(T(8, e="f6E2M3FN"), (B,)))
    with pytest.raises(JaxEmitError, match="no JAX dtype"):
        emit_jax(b.program)


def test_device_dependent_attribute_without_symbolic_form() -> None:
    """A local op whose attribute differs per device is refused, not guessed."""
    from sbpc.ops import registry as op_rules
    from sbpc.ops.derive import sig1d
    from sbpc.ops.kind import OP_KINDS

    name = "test.shifted"
    op_rules.register_rule(name, lambda op: [sig1d([S(0)], [S(0)])])
    op_rules.register_local(
        name, lambda op, local, sig, h, coord: local.replace(shift=coord[0])
    )
    try:
        op = OpSpec(name, [T(8)], [T(8)], {"shift": 0})
        with pytest.raises(JaxEmitError, match=r"attribute 'shift' of test\.shifted"):
            emit_jax(_one_op_program(op, Signature(((S(0),),), ((S(0),),))))
    finally:
        OP_KINDS.remove(name)


def test_names_and_labels_cannot_break_the_source() -> None:
    add = OpSpec("stablehlo.add", [T(8)] * 2, [T(8)])
    prog = _one_op_program(
        add, Signature(((S(0),), (S(0),)), ((S(0),),)), label='a\n"""b'
    )
    prog.name = 'odd """ name \\'
    source = emit_jax(prog)
    compile(source, "emitted", "exec")
    assert "odd" in source


def test_partial_results_are_finished_unless_asked_for(tmp_path: Path) -> None:
    """A result layout with B where the value is P reduces it before returning;
    P kept comes back as stacked pieces; an out-of-order mix is refused."""
    h = (2, 4)
    b = Builder(Placement.of_size(h))
    x = b.arg(T(8, 16), (S(1), S(1)))
    w = b.arg(T(16, 8), (S(0), S(0)))
    mm = OpSpec("stablehlo.dot_general", [T(8, 16), T(16, 8)], [T(8, 8)], DOT)
    (y,) = b.op(mm, sig_with(mm, h, [(S(1), S(1)), (S(0), S(0))], [(P, P)]), [x, w])
    b.ret_as(y, (B, B))
    b.ret_as(y, (P, B))
    b.ret_as(y, (P, P))
    module = jp.load(b.program, tmp_path, "finish")
    assert module.OUT_PARTIAL == ((), ("sum",), ("sum", "sum"))
    rng = np.random.default_rng(3)
    inputs = [rng.standard_normal(s).astype(np.float32) for s in ((8, 16), (16, 8))]
    run_and_compare(module, b.program, inputs)
    pieces = module.build()(*module.put_args(*inputs))
    assert [p.shape for p in pieces] == [(8, 8), (2, 8, 8), (2, 4, 8, 8)]

    b = Builder(Placement.of_size(h))
    y = b.arg(T(8, 8), (P, Partial("max")))
    b.ret_as(y, (B, Partial("max")))
    with pytest.raises(JaxEmitError, match="out of order"):
        emit_jax(b.program)
    b = Builder(Placement.of_size(h))
    b.ret_as(b.arg(T(8, 8), (S(0), B)), (B, B))
    with pytest.raises(JaxEmitError, match=r"not as \[B, B\]"):
        emit_jax(b.program)


# --- combined collectives ----------------------------------------------------------

# (kind, dims, src, dst, type) on a 2x4 mesh; the same (kind, dims, reduction,
# element type) may run as one collective when independent.
COMBINABLE = [
    ("all_gather", [1], (B, S(0)), (B, B), T(8, 4)),
    ("all_gather", [1], (S(0), S(1)), (S(0), B), T(4, 8, 3)),
    ("all_gather", [1], (B, S(2)), (B, B), T(2, 3, 8)),
    ("all_gather", [0, 1], (S(0), S(0)), (B, B), T(16, 2)),
    ("all_gather", [0, 1], (S(1), S(1)), (B, B), T(2, 16)),
    ("all_gather", [1], (B, S(0)), (B, B), T(8, e="i32")),
    ("all_gather", [1], (B, S(0)), (B, B), T(4, e="i32")),
    ("reduce_scatter", [1], (B, P), (B, S(0)), T(8, 4)),
    ("reduce_scatter", [1], (B, P), (B, S(1)), T(3, 8)),
    ("reduce_scatter", [1], (S(0), P), (S(0), S(2)), T(2, 2, 4)),
    ("all_reduce", [0], (P, B), (B, B), T(5)),
    ("all_reduce", [0], (P, S(0)), (B, S(0)), T(4, 3)),
    ("all_reduce", [0], (P, B), (B, B), T()),
    ("all_reduce", [0], (PMAX, B), (B, B), T(3)),
    ("all_reduce", [0], (PMAX, B), (B, B), T(2, 2)),
    ("all_reduce", [1], (B, P), (B, B), T(4, e="i1")),  # bool: stays alone
    ("all_reduce", [1], (B, P), (B, B), T(2, e="i1")),
]


_HLO_COLLECTIVE = re.compile(
    r"\b(?:all-gather|all-reduce|reduce-scatter|all-to-all|collective-permute)"
    r"(?:-start)?\("
)


def _collective_count(module, inputs: list[np.ndarray]) -> int:
    """Collective instructions in the compiled HLO (an op's use, not its name)."""
    compiled = module.build().lower(*module.put_args(*inputs)).compile()
    return len(_HLO_COLLECTIVE.findall(compiled.as_text()))


def test_independent_collectives_run_combined(tmp_path: Path) -> None:
    """Independent steps of one kind on the same mesh axes (and element type)
    run as one collective on their pieces concatenated: the module calls the
    combined helpers, XLA's HLO has fewer collectives, and the numbers are
    those of the separate steps.  A step that depends on another of its kind
    stays apart."""
    b = Builder(Placement.of_size((2, 4)))
    rng = np.random.default_rng(3)
    inputs = []
    for kind, dims, src, dst, t in COMBINABLE:
        assert jp.valid_step(kind, dims, src, dst), (kind, dims, src, dst)
        x = b.arg(t, src)
        inputs.append((rng.standard_normal(t.shape) * 3).astype(numpy_dtype(t.element)))
        b.ret(b.step(kind, dims, x, dst))
    # A chain: the second all-gather on d1 needs the first one's result.
    x = b.arg(T(8, 8), (B, S(0)))
    inputs.append(rng.standard_normal((8, 8)).astype(np.float32))
    y = b.step("local_slice", [1], b.step("all_gather", [1], x, (B, B)), (B, S(1)))
    b.ret(b.step("all_gather", [1], y, (B, B)))

    combined = jp.load(b.program, tmp_path, "combined")
    source = (tmp_path / "combined.py").read_text()
    calls = [
        line.split("=", 1)[1].split("(")[0].strip()
        for line in source.splitlines()
        if line.startswith("    ") and "_many(" in line and "def " not in line
    ]
    # f32 gathers on d1 (3 + the chain's first), on (d0, d1) (2), i32 on d1
    # (2); f32 reduce-scatters on d1 (3); psums on d0 (3); pmaxes on d0 (2).
    assert sorted(calls) == sorted(
        ["_all_gather_many"] * 3 + ["_psum_scatter_many"] + ["_reduce_many"] * 2
    ), source
    run_and_compare(combined, b.program, inputs)

    apart = jp.load(b.program, tmp_path, "apart", combine_bytes=0)
    assert "_many(" not in (tmp_path / "apart.py").read_text()
    run_and_compare(apart, b.program, inputs)
    assert _collective_count(combined, inputs) < _collective_count(apart, inputs)


def test_combine_threshold_cuts_groups(tmp_path: Path) -> None:
    b = Builder(Placement.of_size((8,)))
    for _ in range(4):
        b.ret(b.step("all_gather", [0], b.arg(T(8, 8), (S(0),)), (B,)))
    # Each gather's result is 256 bytes per device: two fit in 600.
    source = emit_jax(b.program, combine_bytes=600)
    assert source.count("= _all_gather_many(") == 2
    assert emit_jax(b.program).count("= _all_gather_many(") == 1
    with pytest.raises(ValueError, match="combine_bytes must be >= 0"):
        emit_jax(b.program, combine_bytes=-1)


def test_steps_on_a_group_of_one_device_write_no_collective(tmp_path: Path) -> None:
    """On a mesh axis of size 1 every step keeps the device's piece (one
    block is the whole dim, one partial piece is the value): the module
    writes the operand itself, not a collective for XLA to fold, and
    computes the same numbers."""
    cases = [c for c in collective_cases((2, 1)) if c[1] == (1,)]
    assert {kind for kind, *_ in cases} == {kind for kind, *_ in CHANGES}
    b = Builder(Placement.of_size((2, 1)))
    rng = np.random.default_rng(5)
    inputs = []
    for kind, dims, src, dst in cases:
        x = b.arg(T(8, 8), src)
        inputs.append(rng.standard_normal((8, 8)).astype(np.float32))
        b.ret(b.step(kind, dims, x, dst))
    module = jp.load(b.program, tmp_path, "alone")
    lines = (tmp_path / "alone.py").read_text().splitlines()
    steps = [lines[i + 1] for i, line in enumerate(lines) if " = sbp." in line]
    assert len(steps) == len(cases)
    assert all(re.fullmatch(r" +v\d+ = v\d+", line) for line in steps), steps
    run_and_compare(module, b.program, inputs)
    assert _collective_count(module, inputs) == 0
