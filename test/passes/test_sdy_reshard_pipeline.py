"""``sdy.reshard`` and Shardy's collectives through ``sbp-import-sdy`` to
``-t jax``: the emitted program computes the unsharded numbers.

``jax.sharding.reshard`` under JAX's explicit-sharding mode lowers (jax
0.10) to ``sdy.sharding_constraint``; Shardy's propagation writes the same
layout change as ``sdy.reshard``.  Both spellings of one lowered function go
through ``sbp-import-sdy,sbp-inline,sbp-propagate,sbp-lower-boxing -t jax``
and must give ``jax.jit``'s results on 8 simulated devices.  A hand-written
"parallel" function in Shardy's explicit form (reshards, collectives,
``sdy.constant``) must give numpy's.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.sharding import AxisType, NamedSharding
from jax.sharding import PartitionSpec as P

from sbpc.passes.jax_target import jax_source
from sbpc.passes.pipeline import parse_module, run_passes

PIPELINE = "sbp-import-sdy,sbp-inline,sbp-propagate,sbp-lower-boxing"


def _explicit_mesh() -> jax.sharding.Mesh:
    return jax.make_mesh((2, 4), ("x", "y"), axis_types=(AxisType.Explicit,) * 2)


def _f(a, b):
    c = a @ b
    c = jax.sharding.reshard(c, P(None, "y"))
    d = jnp.tanh(c) + 1.0
    d = jax.sharding.reshard(d, P("x", None))
    return d * 2.0


def _run(text: str, args, tmp_path, load_module, name: str):
    module = run_passes(parse_module(text), PIPELINE)
    emitted = load_module(jax_source(module), tmp_path / f"{name}.py")
    got = emitted.logical(emitted.build()(*emitted.put_args(*args)))
    return emitted, got[0] if isinstance(got, tuple | list) else got


@pytest.mark.parametrize("spelling", ["sharding_constraint", "reshard"])
def test_explicit_reshard_equals_jit(spelling, tmp_path, load_module) -> None:
    mesh = _explicit_mesh()
    rng = np.random.default_rng(0)
    a = rng.standard_normal((16, 32), dtype=np.float32)
    b = rng.standard_normal((32, 8), dtype=np.float32)
    with jax.sharding.set_mesh(mesh):
        da = jax.device_put(a, NamedSharding(mesh, P("x", None)))
        db = jax.device_put(b, NamedSharding(mesh, P(None, "y")))
        text = jax.jit(_f).lower(da, db).as_text()
        want = np.asarray(jax.jit(_f)(da, db))
    assert "sdy.sharding_constraint" in text
    if spelling == "reshard":
        text = text.replace("sdy.sharding_constraint", "sdy.reshard")
        assert "sdy.reshard" in text
    emitted, got = _run(text, [a, b], tmp_path, load_module, spelling)
    assert emitted.MESH_AXES == ("x", "y")
    assert (P("x", None), P(None, "y")) == emitted.IN_SPECS
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-5)


PARALLEL = """
sdy.mesh @mesh = <["x"=2, "y"=4]>
func.func @main(%a: tensor<16x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"x"}]>},
                %b: tensor<32x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y"}]>})
    -> (tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{}, {"y"}], unreduced={"x"}>]>} : (tensor<16x32xf32>, tensor<32x8xf32>) -> tensor<16x8xf32>
  %1 = sdy.reduce_scatter [{"x"}, {}] %0 out_sharding=<@mesh, [{"x"}, {"y"}]> : tensor<16x8xf32>
  %2 = sdy.all_gather [{}, {"y"}] %1 out_sharding=<@mesh, [{"x"}, {}]> : tensor<16x8xf32>
  %3 = sdy.all_to_all [{"x"}: 0->1] %2 out_sharding=<@mesh, [{}, {"x"}]> : tensor<16x8xf32>
  %4 = sdy.all_slice [{"y"}, {}] %3 out_sharding=<@mesh, [{"y"}, {"x"}]> : tensor<16x8xf32>
  %5 = sdy.collective_permute %4 out_sharding=<@mesh, [{"y"}, {"x"}]> : tensor<16x8xf32>
  %6 = stablehlo.tanh %5 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"y"}, {"x"}]>]>} : tensor<16x8xf32>
  %7 = sdy.replicated_to_unreduced {"x"} %0 out_sharding=<@mesh, [{}, {"y"}], unreduced={"x"}> : tensor<16x8xf32>
  %8 = sdy.all_reduce {"x"} %7 out_sharding=<@mesh, [{}, {"y"}]> : tensor<16x8xf32>
  %c = sdy.constant dense<0.5> : tensor<16x8xf32>
  %9 = stablehlo.multiply %8, %c : tensor<16x8xf32>
  %10 = stablehlo.add %6, %9 : tensor<16x8xf32>
  %11 = sdy.reshard %10 <@mesh, [{"x"}, {}]> : tensor<16x8xf32>
  return %11 : tensor<16x8xf32>
}
"""


def test_parallel_form_equals_numpy(tmp_path, load_module) -> None:
    rng = np.random.default_rng(1)
    a = rng.standard_normal((16, 32), dtype=np.float32)
    b = rng.standard_normal((32, 8), dtype=np.float32)
    emitted, got = _run(PARALLEL, [a, b], tmp_path, load_module, "parallel")
    assert (P(None, "x"), P("x", "y")) == emitted.IN_SPECS
    assert P("x", None) == emitted.OUT_SPECS
    c = a @ b
    want = np.tanh(c) + c * 0.5
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-4, atol=1e-4)


def test_distribute_explicit_reshard() -> None:
    """``sbpc.jax.distribute`` plans an explicit-mode function with
    ``jax.sharding.reshard``; its step (called outside ``set_mesh``: the
    emitted program builds its own mesh) gives ``jax.jit``'s numbers."""
    import sbpc.jax

    mesh = _explicit_mesh()
    rng = np.random.default_rng(2)
    a = rng.standard_normal((16, 32), dtype=np.float32)
    b = rng.standard_normal((32, 8), dtype=np.float32)
    layouts = (NamedSharding(mesh, P("x", None)), NamedSharding(mesh, P(None, "y")))
    with jax.sharding.set_mesh(mesh):
        step = sbpc.jax.distribute(_f, a, b, in_layouts=layouts)
        da, db = jax.device_put(a, layouts[0]), jax.device_put(b, layouts[1])
        want = np.asarray(jax.jit(_f)(da, db))
    assert (P("x", None), P(None, "y")) == step.program.IN_SPECS
    assert P("x", None) == step.program.OUT_SPECS
    np.testing.assert_allclose(np.asarray(step(a, b)), want, rtol=1e-5, atol=1e-5)
