"""``sbpc.jax.distribute`` of a ``jax.stages.Lowered``: the text read as it
is, with what a pass run on it wrote.

JAX writes no sub-axes itself (a ``PartitionSpec`` names whole axes); Shardy's
propagation does, where a reshape splits a dimension split by one axis
(``"x":(1)2``, ``"x":(2)2`` of an axis of 4).  jaxlib carries Shardy's
passes, so ``sdy-propagation-pipeline`` run on ``jax.jit(f).lower(...)``
gives the layouts ``jax.jit`` itself would use, sub-axes included; sbpc
reads them and must compute ``jax.jit``'s numbers on 8 simulated devices.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.extend.mlir import passmanager
from jax.sharding import AxisType, NamedSharding
from jax.sharding import PartitionSpec as P

import sbpc.jax
from sbpc.jax import SbpcError


def _shardy_propagated(lowered: jax.stages.Lowered) -> jax.stages.Lowered:
    """Shardy's propagation run on ``lowered``'s module, in place."""
    module = lowered.compiler_ir("stablehlo")
    with module.context:
        pm = passmanager.PassManager.parse("builtin.module(sdy-propagation-pipeline)")
        pm.run(module.operation)
    return lowered


def test_distribute_reads_shardy_s_sub_axes() -> None:
    mesh = jax.make_mesh((4, 2), ("x", "y"), axis_types=(AxisType.Auto,) * 2)

    def f(a, c):  # a local function: its lowering is cached for this test only
        a = jax.lax.with_sharding_constraint(a, NamedSharding(mesh, P("x", None)))
        b = jnp.sin(jnp.reshape(a, (2, 4, 6))) * 2.0
        c = jnp.reshape(c, (8, 6))
        c = jax.lax.with_sharding_constraint(c, NamedSharding(mesh, P("x", "y")))
        return b, c + 1.0

    rng = np.random.default_rng(0)
    a = rng.standard_normal((8, 6), dtype=np.float32)
    c = rng.standard_normal((2, 4, 6), dtype=np.float32)
    want = [np.asarray(w) for w in jax.jit(f)(a, c)]  # before the module changes
    lowered = _shardy_propagated(jax.jit(f).lower(a, c))
    text = lowered.as_text()
    assert '{"x":(1)2}, {"x":(2)2}' in text
    assert "sdy.reshard" in text  # the constraints, as Shardy writes them
    step = sbpc.jax.distribute(lowered, a, c, quiet=True)
    # The reshape's result lives on the mesh with x split into its factors.
    assert ("x:(1)2", "x:(2)2", "y") in step.program.PLACEMENT_AXES
    assert (P("x", None), P(None, None, "y")) == step.program.IN_SPECS
    got = step(a, c)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(np.asarray(g), w, rtol=1e-6, atol=1e-6)


def test_a_lowered_needs_its_own_arguments() -> None:
    lowered = jax.jit(lambda x: x * 2.0).lower(np.ones((4,), np.float32))
    with pytest.raises(SbpcError, match=r"lowered on float32\[4\]"):
        sbpc.jax.plan(lowered, np.ones((8,), np.float32), mesh=2, quiet=True)
    with pytest.raises(SbpcError, match="not the ones the function was lowered on"):
        sbpc.jax.plan(lowered, np.ones((4,), np.float32), 1.0, mesh=2, quiet=True)
