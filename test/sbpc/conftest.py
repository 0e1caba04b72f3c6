"""Shared setup of the ``sbpc`` tests."""

import pytest

# A training step's batch, ``x`` and ``y``: rows split over the mesh's first dim.
BATCH = "[S(0), B]"


def _distribute_step(step, params, opt, x, y, *, mesh, **options):
    """``step(params, opt, x, y)`` distributed data-parallel on a 2-D mesh:
    the batch in ``BATCH``, the parameters and optimizer state free."""
    import sbpc.jax as sj  # jax only for the tests that ask for it

    return sj.distribute(
        step,
        params,
        opt,
        x,
        y,
        mesh=mesh,
        in_layouts=(None, None, BATCH, BATCH),
        **options,
    )


@pytest.fixture
def distribute_step():
    """``distribute_step(step, params, opt, x, y, mesh=..., **options)``: a
    training step distributed with its batch split over the first mesh dim."""
    return _distribute_step
