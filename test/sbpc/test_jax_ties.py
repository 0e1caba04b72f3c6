"""State ties: a training step's new state comes back in its arguments' layouts."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import sbpc.jax as sj
from sbpc.algebra.sbp import B, Partial, S
from sbpc.jax_ties import state_ties

STRATEGIES = ("greedy", "bfs", "optimal")


def avals(tree):
    return jax.tree.map(lambda x: jax.ShapeDtypeStruct(np.shape(x), x.dtype), tree)


def arrays(*shapes):
    return [np.zeros(s, np.float32) for s in shapes]


def test_a_steps_state_is_found_by_its_structure() -> None:
    params = {"w": np.zeros((4, 8), np.float32), "b": np.zeros(8, np.float32)}
    opt = (params, params)  # two moments shaped like the parameters
    x = np.zeros((2, 4), np.float32)
    loss = np.zeros((), np.float32)
    ties = state_ties(avals((params, opt, x)), avals((loss, params, opt)))
    # flat arguments: b, w, (b, w), (b, w), x; results: loss, b, w, (b, w) x2
    assert ties == {1: 0, 2: 1, 3: 2, 4: 3, 5: 4, 6: 5}


def test_scalars_and_other_kinds_are_not_tied() -> None:
    w, x = arrays((4, 8), (2, 4))
    step = np.zeros((), np.int32)
    ties = state_ties(avals((w, step, x)), avals((step, w[:2])))
    assert ties == {}  # a scalar has one layout; w[:2] is another shape


def test_arguments_of_one_kind_pair_up_in_order() -> None:
    a, b = arrays((4, 8), (4, 8))
    assert state_ties(avals((a, b)), avals((b, a))) == {0: 0, 1: 1}


def test_an_ambiguous_kind_is_tied_only_where_donated() -> None:
    """(loss, grads, params): both shaped like the parameters.  Untied,
    unless the parameters are donated: then to the last result of the kind."""
    (w,) = arrays((4, 8))
    loss = np.zeros((), np.float32)
    args, outs = avals((w,)), avals((loss, w, w))
    assert state_ties(args, outs) == {}
    assert state_ties(args, outs, donated=(0,)) == {2: 0}


# -- the Megatron + data-parallel SGD step of issue 37 ----------------------

LR = 0.1


def loss_fn(params, x, y):
    h = jax.nn.relu(x @ params["w1"])
    return jnp.mean((h @ params["w2"] - y) ** 2)


def sgd_step(params, x, y):
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    return loss, jax.tree.map(lambda p, g: p - LR * g, params, grads)


def sgd_args():
    rng = np.random.default_rng(0)
    params = {
        "w1": rng.standard_normal((16, 32)).astype(np.float32) / 4,
        "w2": rng.standard_normal((32, 8)).astype(np.float32) / 4,
    }
    x = rng.standard_normal((8, 16)).astype(np.float32)
    y = rng.standard_normal((8, 8)).astype(np.float32)
    return params, x, y


# W1 split by columns over the model axis, W2 by rows (Megatron), the batch
# over the data axis.
MEGATRON = ({"w1": "[B, S(1)]", "w2": "[B, S(0)]"}, "[S(0), B]", "[S(0), B]")


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_megatron_sgd_state_comes_back_as_it_came_in(strategy: str) -> None:
    args = sgd_args()
    step = sj.distribute(
        sgd_step, *args, mesh=(2, 4), in_layouts=MEGATRON, strategy=strategy, quiet=True
    )
    # flat arguments w1, w2, x, y; results loss, w1, w2
    assert step.in_layouts[:2] == [(B, S(1)), (B, S(0))]
    assert step.out_layouts[1:] == step.in_layouts[:2]
    assert "(tied to " in step.report
    want = jax.jit(sgd_step)(*args)
    got = step(*args)
    for g, w in zip(jax.tree.leaves(got), jax.tree.leaves(want), strict=True):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-5, atol=1e-6)
    # the next step takes the state where the last one left it
    again = step(got[1], args[1], args[2])
    twice = jax.jit(sgd_step)(want[1], args[1], args[2])
    for g, w in zip(jax.tree.leaves(again), jax.tree.leaves(twice), strict=True):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_argument_given_as_partial_pieces_ties_no_result(strategy: str) -> None:
    """A result shaped like an argument laid out ``[P]`` is not tied to it:
    tied, it came back as 8 stacked pieces (``float32[8, 3, 6]``, found by
    the fuzzer), which the next call would not take, where jax.jit returns
    the array.  Untied, it is reduced before it is returned."""

    def sort(x):
        return jnp.sort(x, axis=0), jnp.argmax(x, axis=1)

    x = np.random.default_rng(0).standard_normal((3, 6)).astype(np.float32)
    step = sj.distribute(
        sort, x, mesh=8, in_layouts=("[P]",), strategy=strategy, quiet=True
    )
    assert "(tied to " not in step.report
    assert all(not any(isinstance(s, Partial) for s in nd) for nd in step.out_layouts)
    got, want = step(x), jax.jit(sort)(x)
    for g, w in zip(got, want, strict=True):
        assert np.shape(g) == np.shape(w)
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6)


def test_freed_state_may_come_back_otherwise() -> None:
    """``tie_state=False``: the results are free again.  The gradient is a
    partial sum over the data axis, so the search reduce-scatters it and W1
    comes back ``[S(0), S(1)]``, as the issue saw (a loop would reshard it
    before every step)."""
    args = sgd_args()
    free = sj.distribute(
        sgd_step,
        *args,
        mesh=(2, 4),
        in_layouts=MEGATRON,
        tie_state=False,
        quiet=True,
    )
    assert "(tied to " not in free.report
    assert free.out_layouts[1] == (S(0), S(1))
    with pytest.raises(sj.SbpcError, match="tie_state: expected True or False"):
        sj.distribute(sgd_step, *args, mesh=(2, 4), tie_state="yes", quiet=True)


def test_a_flax_optax_training_step_keeps_its_state_layouts(distribute_step) -> None:
    """Free parameters and optimizer state (the search lays them out): every
    leaf of both comes back in the layout it came in, and the numbers are
    jax.jit's."""
    flax = pytest.importorskip("flax.linen")
    optax = pytest.importorskip("optax")

    class Mlp(flax.Module):
        @flax.compact
        def __call__(self, x):
            x = jax.nn.relu(flax.Dense(32)(x))
            return flax.Dense(4)(x)

    model, tx = Mlp(), optax.adam(1e-2)
    rng = np.random.default_rng(1)
    x = rng.standard_normal((16, 8)).astype(np.float32)
    y = rng.standard_normal((16, 4)).astype(np.float32)
    params = model.init(jax.random.key(0), x)
    opt_state = tx.init(params)

    def train_step(params, opt_state, x, y):
        def loss(p):
            return jnp.mean((model.apply(p, x) - y) ** 2)

        value, grads = jax.value_and_grad(loss)(params)
        updates, opt_state = tx.update(grads, opt_state, params)
        return value, optax.apply_updates(params, updates), opt_state

    step = distribute_step(
        train_step, params, opt_state, x, y, mesh=(2, 4), strategy="optimal", quiet=True
    )
    n_params = len(jax.tree.leaves(params))
    n_state = n_params + len(jax.tree.leaves(opt_state))
    # results: loss, then params and opt_state, as the arguments came in
    assert step.out_layouts[1 : 1 + n_state] == step.in_layouts[:n_state]
    want = jax.jit(train_step)(params, opt_state, x, y)
    got = step(params, opt_state, x, y)
    for g, w in zip(jax.tree.leaves(got), jax.tree.leaves(want), strict=True):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-4, atol=1e-5)
