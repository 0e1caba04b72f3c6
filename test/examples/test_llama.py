"""The Llama-3/Mixtral-shaped decoders: published sizes, and a tiny step runs."""

import jax
import numpy as np
import pytest
from models import llama


@pytest.mark.parametrize(
    ("name", "billions"),
    [("llama3-8b", 8.03), ("llama3-70b", 70.55), ("mixtral-8x7b", 46.70)],
)
def test_parameter_counts_are_the_published_ones(name: str, billions: float) -> None:
    cfg = llama.CONFIGS[name]
    assert llama.parameter_count(cfg) / 1e9 == pytest.approx(billions, abs=0.01)


def test_abstract_arguments_allocate_nothing_and_match_the_shapes() -> None:
    params, opt, tokens, targets = llama.abstract_train_args(llama.LLAMA3_70B)
    assert params["layers"][0]["wk"].shape == (8192, 1024)  # 8 kv heads of 128
    assert params["embed"].dtype == np.dtype("bfloat16")
    assert opt["m"]["head"].dtype == np.float32
    assert tokens.shape == targets.shape == (64, 8192)


@pytest.mark.parametrize("name", ["llama3-8b", "mixtral-8x7b"])
def test_tiny_step_lowers_with_bf16_algorithms_and_learns(name: str) -> None:
    cfg = llama.CONFIGS[name].tiny()
    step = jax.jit(llama.train_step(cfg))
    args = llama.train_args(cfg)
    assert "algorithm = <lhs_precision_type = bf16" in step.lower(*args).as_text()
    loss0, params, opt = step(*args)
    loss1, _, _ = step(params, opt, *args[2:])
    assert np.isfinite(float(loss0)) and float(loss1) < float(loss0)
