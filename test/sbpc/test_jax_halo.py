"""A flax CNN (3x3 'SAME' convolutions, an overlapping 3x3 max pool) on one
image (batch 1: no batch split to fall back on) split along its rows through
``sbpc.jax.distribute``: the convolutions and the pool run on row pieces
with halo exchanges (``lax.ppermute``) and give ``jax.jit``'s numbers.

On an image this small every strategy (greedy and bfs after their local
improvement) rightly prefers one all-gather (one launch and latency) to
several halo exchanges (a launch and latency each) under the default links;
with negligible fixed costs (``lat=1e-12,overhead=0``, what a large image
looks like next to its bytes) they keep the rows split."""

from __future__ import annotations

import flax.linen as nn
import jax
import numpy as np
import pytest

import sbpc.jax as sj


class RowCNN(nn.Module):
    @nn.compact
    def __call__(self, x):
        x = nn.relu(nn.Conv(8, (3, 3), padding="SAME")(x))
        x = nn.max_pool(x, (3, 3), (2, 2), padding="SAME")
        return nn.Conv(4, (3, 3), padding="SAME", kernel_dilation=(2, 2))(x)


@pytest.mark.parametrize(
    ("strategy", "mesh", "layout", "cost_model"),
    [
        ("greedy", 4, "[S(1)]", "lat=1e-12,overhead=0"),
        ("bfs", (2, 2), "[S(1), S(2)]", "lat=1e-12,overhead=0"),
        ("optimal", 2, "[S(1)]", "lat=1e-12,overhead=0"),
    ],
)
def test_cnn_on_row_pieces(strategy, mesh, layout, cost_model) -> None:
    model = RowCNN()
    x = np.random.default_rng(0).standard_normal((1, 16, 16, 3)).astype(np.float32)
    variables = model.init(jax.random.key(0), x)
    dist = sj.distribute(
        model.apply,
        variables,
        x,
        mesh=mesh,
        in_layouts=(None, layout),
        strategy=strategy,
        cost_model=cost_model,
    )
    want = jax.jit(model.apply)(variables, x)
    np.testing.assert_allclose(
        np.asarray(dist(variables, x)), np.asarray(want), rtol=2e-4, atol=2e-5
    )
    assert dist.source.count("lax.ppermute") >= 2
