"""``models/gpt_scanned.py``: gpt's stack of blocks spelled as ``lax.scan``
over stacked weights, with roles derived from gpt's (no sbpc here: the
distributed step is ``test/bench/test_planning_time.py``'s)."""

from __future__ import annotations

import jax
import numpy as np
import pytest
from models import gpt, gpt_scanned
from models.example import stacked_role

SMALL = {"VOCAB": 32, "SEQ": 8, "MODEL": 16, "HIDDEN": 32}


def test_a_stacked_split_moves_one_dim_in_and_replicated_stays():
    assert stacked_role("S(0)") == "S(1)" and stacked_role("S(1)") == "S(2)"
    assert stacked_role("B") == "B"
    with pytest.raises(ValueError, match="batch"):
        stacked_role("data")


def test_roles_keep_the_layer_axis_whole():
    roles = gpt_scanned.param_roles()
    assert roles["blocks"]["w1"] == "S(2)" and roles["blocks"]["w2"] == "S(1)"
    assert roles["blocks"]["b1"] == "S(1)" and roles["blocks"]["ln1_g"] == "B"
    assert roles["head"] == "S(1)" and roles["wte"] == "B"  # outside the stack
    layouts = gpt_scanned.train_example(3).in_layouts("2d")
    assert layouts[0]["blocks"]["wq"] == "[B, S(2)]"
    assert layouts[1]["v"]["blocks"]["wo"] == "[B, S(1)]"  # Adam's state alike


def test_stacked_weights_are_the_unrolled_ones():
    stacked = gpt_scanned.init_params(3)
    with gpt.Depth(3):
        unrolled = gpt.init_params()
    assert gpt.LAYERS == 2  # restored
    for i, block in enumerate(unrolled["blocks"]):
        for name, weight in block.items():
            np.testing.assert_array_equal(stacked["blocks"][name][i], weight)
    np.testing.assert_array_equal(stacked["head"], unrolled["head"])


def test_the_scanned_loss_is_the_unrolled_loss(monkeypatch):
    for name, value in SMALL.items():
        monkeypatch.setattr(gpt, name, value)
    tokens, targets = gpt.batch()
    with gpt.Depth(3):
        unrolled = jax.jit(gpt.loss_fn)(gpt.init_params(), tokens, targets)
    scanned = jax.jit(gpt_scanned.loss_fn)(gpt_scanned.init_params(3), tokens, targets)
    np.testing.assert_allclose(scanned, unrolled, rtol=1e-6)
