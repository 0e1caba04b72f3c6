"""``sbpc.jax.plan``: plans for meshes larger than this machine, from
abstract arguments, with the machine presets; the source it emits runs where
the devices are and equals ``jax.jit``."""

from __future__ import annotations

import importlib.util
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.sharding import AbstractMesh, NamedSharding
from jax.sharding import PartitionSpec as P

import sbpc.jax as sj
from sbpc.jax_plan import _excerpt

S = jax.ShapeDtypeStruct


def train_step(params, x, y):
    """A ReLU MLP's squared-error SGD step."""

    def loss(params):
        h = x
        for w, b in params:
            h = jax.nn.relu(h @ w + b)
        return jnp.mean((h - y) ** 2)

    value, grads = jax.value_and_grad(loss)(params)
    return value, jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)


def abstract(batch: int, d: int, dtype=jnp.bfloat16):
    """``train_step``'s arguments as ShapeDtypeStructs: no arrays at all."""
    params = [
        (S((d, 4 * d), dtype), S((4 * d,), dtype)),
        (S((4 * d, d), dtype), S((d,), dtype)),
    ]
    return params, S((batch, d), dtype), S((batch, d), dtype)


def _spec(spec: P, rank: int) -> tuple:
    """A PartitionSpec's entries padded to the value's rank (``P("data")``
    and ``P("data", None)`` are the same sharding)."""
    return (*spec, *[None] * (rank - len(spec)))


def _bytes(leaves) -> int:
    return sum(
        int(np.prod(x.shape)) * jnp.dtype(x.dtype).itemsize
        for x in jax.tree.leaves(leaves)
    )


DATA = (None, P("data"), P("data"))  # params free, the batch split over "data"


def _plan_64(args, **options):
    """``train_step`` planned on an 8 x 8 mesh, params free, batch over data."""
    return sj.plan(
        train_step,
        *args,
        mesh=((8, 8), ("data", "model")),
        in_layouts=DATA,
        cost_model="h100-sxm",
        quiet=True,
        **options,
    )


@pytest.fixture(scope="module")
def planned_64():
    return _plan_64(abstract(1024, 512))


@pytest.fixture(scope="module")
def planned_512():
    args = abstract(1024, 512)
    return sj.plan(
        train_step,
        *args,
        mesh={"data": 64, "model": 8},
        in_layouts=DATA,
        cost_model="h100-sxm",
        quiet=True,
    )


def test_a_plan_for_64_devices_without_them(planned_64):
    """8 devices here; the plan is for 64, from ShapeDtypeStructs."""
    assert jax.device_count() < 64
    p = planned_64
    assert p.placement.hierarchy == (8, 8)
    assert "MESH_SHAPE = (8, 8)" in p.source
    assert 'MESH_AXES = ("data", "model")' in p.source
    ins, outs = p.shardings()
    assert all(isinstance(s, P) for s in (*ins, *outs))
    assert len(ins) == 6 and len(outs) == 5  # 4 params, x, y; loss and 4 params
    assert _spec(ins[4], 2) == ("data", None) and _spec(ins[5], 2) == ("data", None)
    assert _spec(outs[0], 0) == ()  # the loss is a scalar
    # every axis named is the mesh's
    named = {
        a
        for s in (*ins, *outs)
        for e in s
        if e
        for a in ((e,) if isinstance(e, str) else e)
    }
    assert named <= {"data", "model"}


def test_memory_and_step_time_of_a_plan(planned_64, planned_512):
    params, x, y = abstract(1024, 512)
    everything = _bytes((params, x, y))
    for p in (planned_64, planned_512):
        assert p.peak_memory == max(f.plan.peak_memory for f in p.plans)
        assert p.step_time == pytest.approx(sum(f.plan.total_time for f in p.plans))
        assert p.step_time > 0
        # at least the device's share of the batch, less than everything
        # replicated with a copy for every intermediate
        assert p.peak_memory >= _bytes((x, y)) / p.placement.hierarchy[0]
        assert p.peak_memory < 4 * everything
        assert p.memory_capacity == 80e9
        assert "sbpc.jax.plan train_step" in p.report
    # 8x more devices on the batch: a smaller share per device
    assert planned_512.peak_memory < planned_64.peak_memory
    assert planned_512.placement.hierarchy == (64, 8)
    assert "MESH_SHAPE = (64, 8)" in planned_512.source
    ins, _ = planned_512.shardings()
    assert _spec(ins[4], 2) == ("data", None)


def test_an_abstract_mesh_of_4096_devices():
    p = sj.plan(
        train_step,
        *abstract(4096, 256),
        mesh=AbstractMesh((64, 64), ("data", "model")),
        in_layouts=DATA,
        cost_model="tpu-v5p",
        strategy="greedy",
        quiet=True,
    )
    assert p.placement.size == 4096
    assert "MESH_SHAPE = (64, 64)" in p.source
    assert _spec(p.shardings()[0][4], 2) == ("data", None)


def test_the_emitted_source_runs_where_the_devices_are_and_equals_jit(tmp_path):
    """Planned from ShapeDtypeStructs on a named 2x4 mesh; its source,
    executed on the 8 simulated devices, equals jax.jit of the function."""
    shapes = abstract(16, 8, jnp.float32)
    planned = sj.plan(
        train_step,
        *shapes,
        mesh=((2, 4), ("data", "model")),
        in_layouts=DATA,
        cost_model="cpu-sim",
        quiet=True,
    )
    rng = np.random.default_rng(0)
    args = jax.tree.map(
        lambda s: rng.standard_normal(s.shape).astype(np.float32), shapes
    )
    path = tmp_path / "planned_step.py"
    path.write_text(planned.source)  # the file that would be copied to the cluster
    spec = importlib.util.spec_from_file_location("planned_step", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["planned_step"] = module  # its dataclasses look it up
    try:
        spec.loader.exec_module(module)
        assert module.MESH_AXES == ("data", "model")
        got = module.build()(*jax.tree.leaves(args))
    finally:
        del sys.modules["planned_step"]
    want = jax.jit(train_step)(*args)
    for g, w in zip(jax.tree.leaves(got), jax.tree.leaves(want), strict=True):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-5, atol=1e-5)


def test_distribute_is_plan_then_loading():
    """The same function, mesh and options: the same layouts and source;
    the distributed step's shardings are the plan's specs on the mesh."""
    shapes = abstract(16, 8, jnp.float32)
    options = {"mesh": {"data": 2, "model": 4}, "in_layouts": DATA, "quiet": True}
    planned = sj.plan(train_step, *shapes, **options)
    step = sj.distribute(train_step, *shapes, **options)
    assert isinstance(step, sj.Planned)
    assert step.source == planned.source
    assert step.in_layouts == planned.in_layouts
    assert step.out_layouts == planned.out_layouts
    assert step.peak_memory == planned.peak_memory
    assert "sbpc.jax.distribute train_step" in step.report
    ins, outs = step.shardings()
    specs_in, specs_out = planned.shardings()
    assert all(isinstance(s, NamedSharding) for s in (*ins, *outs))
    assert [s.spec for s in ins] == specs_in
    assert [s.spec for s in outs] == specs_out


def test_distribute_compiles_the_reference_when_it_is_first_run():
    """The loaded program's ``_reference`` (the unsharded program, half the
    text) is compiled from its own lines when ``reference()`` first runs;
    the text keeps it whole, and both compute ``jax.jit``'s numbers."""
    rng = np.random.default_rng(0)
    params = [
        (rng.normal(size=(8, 32)), rng.normal(size=(32,))),
        (rng.normal(size=(32, 8)), rng.normal(size=(8,))),
    ]
    params = jax.tree.map(lambda a: jnp.asarray(a, jnp.float32), params)
    x, y = (jnp.asarray(rng.normal(size=(16, 8)), jnp.float32) for _ in range(2))
    step = sj.distribute(train_step, params, x, y, mesh={"data": 8}, quiet=True)
    program = step.program
    assert "@jax.jit\ndef _reference(" in step.source
    assert not hasattr(program._reference, "lower")  # the stub, not jitted
    want = jax.jit(train_step)(params, x, y)
    flat = [np.asarray(a) for a in jax.tree.leaves((params, x, y))]
    got = program.reference(*flat)
    assert hasattr(program._reference, "lower")  # compiled, jitted, in place
    for a, b in zip(jax.tree.leaves(want), got, strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-6)
    done = jax.tree.leaves(step(params, x, y))
    for a, b in zip(jax.tree.leaves(want), done, strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-6)


def test_plan_needs_no_devices_but_distribute_does():
    shapes = abstract(32, 8, jnp.float32)
    planned = sj.plan(train_step, *shapes, mesh=(16,), quiet=True)
    assert planned.placement.size == 16
    with pytest.raises(sj.SbpcError, match=r"needs devices 0\.\.15 but JAX has 8"):
        sj.distribute(train_step, *shapes, mesh=(16,), quiet=True)
    with pytest.raises(sj.SbpcError, match=r"needs devices 0\.\.15"):
        sj.distribute(train_step, *shapes, mesh={"data": 4, "model": 4}, quiet=True)


@pytest.mark.parametrize(
    ("mesh", "message"),
    [
        (((2, 4), ("data",)), "one axis name per size"),
        (((2, 2), ("a", "a")), "axis names must be distinct"),
        ({"a": 0}, "axis sizes must be positive"),
        ({"a": 2.5}, "axis sizes must be positive"),
        ({}, "at least one"),
        ("2y4", "expected sizes like 8 or 2x4"),
    ],
)
def test_bad_meshes(mesh, message):
    with pytest.raises(sj.SbpcError, match=message):
        sj.plan(train_step, *abstract(16, 8), mesh=mesh, quiet=True)


def test_the_devices_memory_is_the_default_budget():
    """``mem=`` (a preset's capacity) bounds every plan unless
    memory_budget is given; when nothing fits the error names a budget
    that does."""
    shapes = abstract(16, 8, jnp.float32)
    options = {"mesh": {"data": 2, "model": 4}, "in_layouts": DATA, "quiet": True}
    fits = sj.plan(train_step, *shapes, cost_model="cpu-sim", **options)
    assert fits.peak_memory <= fits.memory_capacity == 3e9
    with pytest.raises(
        sj.SbpcError,
        match=r"the device's memory \(100 B, the cost model's mem=\) is the memory "
        r"budget: no plan fits .* a feasible budget is",
    ):
        sj.plan(train_step, *shapes, cost_model="cpu-sim,mem=100", **options)
    with pytest.raises(
        sj.SbpcError, match=r"the greedy plan needs .* more than the device's memory"
    ):
        sj.plan(
            train_step,
            *shapes,
            cost_model="cpu-sim,mem=100",
            strategy="greedy",
            **options,
        )
    # an explicit budget wins over the device's memory
    wins = sj.plan(
        train_step,
        *shapes,
        cost_model="cpu-sim,mem=100",
        memory_budget=fits.peak_memory,
        **options,
    )
    assert wins.peak_memory <= fits.peak_memory


def test_a_bad_preset_names_the_presets():
    with pytest.raises(
        sj.SbpcError, match="unknown machine 'h200': expected one of h100-sxm"
    ):
        sj.plan(train_step, *abstract(16, 8), mesh=8, cost_model="h200", quiet=True)


def test_named_shardings_on_an_abstract_mesh_give_the_mesh():
    mesh = AbstractMesh((16, 4), ("data", "model"))
    batch = NamedSharding(mesh, P("data"))
    planned = sj.plan(
        train_step, *abstract(64, 16), in_layouts=(None, batch, batch), quiet=True
    )
    assert planned.placement.hierarchy == (16, 4)
    assert _spec(planned.shardings()[0][4], 2) == ("data", None)


def test_excerpt_keeps_short_lines_and_windows_long_ones():
    assert _excerpt("    %0 = stablehlo.exponential %x", 5) == (
        "%0 = stablehlo.exponential %x"
    )
    line = "  " + "a" * 500 + "HERE" + "b" * 500
    cut = _excerpt(line, 503)
    assert "HERE" in cut and cut.startswith("... ") and cut.endswith(" ...")


def test_plan_writes_the_source_without_compiling_it(monkeypatch) -> None:
    """A plan may run elsewhere: its text is written, not compiled (a large
    model's program takes seconds to compile); loading it compiles it."""
    import sbpc.jax_backend.emit as emit

    def refused(source: str, filename: str):
        raise AssertionError("plan compiled the emitted program")

    monkeypatch.setattr(emit, "program_code", refused)
    planned = sj.plan(
        train_step, *abstract(64, 32), mesh={"data": 8}, in_layouts=DATA, quiet=True
    )
    monkeypatch.undo()
    assert "def build(" in planned.source
    assert planned.program.MESH_SHAPE == (8,)  # compiled when first loaded


def test_recomputed_layers_are_named_in_ranges() -> None:
    """A 32-layer step's report line stays short: runs of three or more
    layers as ranges, per policy too."""
    from sbpc.jax_plan import recomputed_text

    assert recomputed_text([0, 1], ["full"] * 2) == (
        "recomputed layers: 0, 1 (policy full)"
    )
    assert recomputed_text(list(range(32)), ["full"] * 32) == (
        "recomputed layers: 0-31 (policy full)"
    )
    policies = ["full"] * 6 + ["dots"] * 26
    assert recomputed_text(list(range(32)), policies) == (
        "recomputed layers: 0-31 (policy full: 0-5; dots: 6-31)"
    )
    assert recomputed_text([0, 2, 3, 4, 7, 8], ["dots"] * 6) == (
        "recomputed layers: 0, 2-4, 7, 8 (policy dots)"
    )


def test_donated_state_is_counted_once_in_a_plans_memory():
    """``plan(donate_argnums=)`` is ``distribute``'s: the donated
    parameters' buffers hold the new parameters, so the plan's peak counts
    them once, and the arguments are marked for the emitted program."""
    args = abstract(1024, 512, jnp.float32)
    kept, donated = _plan_64(args), _plan_64(args, donate_argnums=0)
    (memory,) = (f.plan.memory for f in donated.plans)
    assert memory.aliased > 0
    assert all(f.plan.memory.aliased == 0 for f in kept.plans)
    assert donated.peak_memory < kept.peak_memory
    assert "jax.buffer_donor" in str(donated.module)
    with pytest.raises(sj.SbpcError, match="donate_argnums"):
        sj.plan(train_step, *args, mesh=8, donate_argnums=3, quiet=True)


def _attention_loss(q, k, v):
    return jnp.sum(jax.nn.dot_product_attention(q, k, v, is_causal=True) ** 2)


def test_order_fences_keep_the_numbers_and_bad_thresholds_are_named():
    """Fencing every stored buffer (``fence_bytes=1``) of an attention
    step's gradient puts barriers in the emitted program and leaves its
    numbers those of ``jax.jit``; ``fence_bytes=0`` writes none."""
    grad = jax.grad(_attention_loss, argnums=(0, 1, 2))
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal((4, 16, 4, 8)).astype(np.float32) for _ in "qkv")
    want = jax.jit(grad)(q, k, v)
    barriers = {}
    for fence in (1, 0):
        step = sj.distribute(
            grad, q, k, v, mesh={"data": 2, "model": 4}, fence_bytes=fence, quiet=True
        )
        barriers[fence] = step.source.count("lax.optimization_barrier(")
        for g, w in zip(step(q, k, v), want, strict=True):
            np.testing.assert_allclose(
                np.asarray(g), np.asarray(w), rtol=1e-5, atol=1e-5
            )
    assert barriers[1] > barriers[0] == 0
    for bad in (-1, "lots", True):
        with pytest.raises(sj.SbpcError, match="fence_bytes"):
            sj.plan(grad, q, k, v, mesh=8, fence_bytes=bad, quiet=True)


def test_order_fences_by_default_at_scale():
    """Attention's gradient at a large model's widths (batch 64, 64 heads,
    sequence 4096, bf16) planned from ShapeDtypeStructs for an 8 x 8 mesh
    under ``h100-sxm``: its 4 GiB score matrices per device are over the
    default threshold (1/64 of 80 GB), so the plan is fenced by default;
    ``fence_bytes=0`` turns it off."""
    grad = jax.grad(_attention_loss, argnums=(0, 1, 2))
    qkv = [jax.ShapeDtypeStruct((64, 4096, 64, 128), jnp.bfloat16)] * 3
    options = {
        "mesh": AbstractMesh((8, 8), ("data", "model")),
        "in_layouts": (P("data"),) * 3,
        "cost_model": "h100-sxm",
        "strategy": "greedy",
        "quiet": True,
    }
    fenced = sj.plan(grad, *qkv, **options)
    plain = sj.plan(grad, *qkv, fence_bytes=0, **options)
    assert fenced.plans[0].plan.stats["order_fences"] > 0
    assert "order_fences" not in plain.plans[0].plan.stats
    count = "lax.optimization_barrier("
    assert fenced.source.count(count) > plain.source.count(count) == 0
    assert fenced.peak_memory == plain.peak_memory  # the same plan
