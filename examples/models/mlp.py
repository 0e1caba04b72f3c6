"""A multi-layer perceptron classifier: forward pass and an Adam training step."""

from __future__ import annotations

import itertools

import jax
import numpy as np

from .example import REPLICATED, Model
from .optim import adam_step, cross_entropy

SIZES, CLASSES, BATCH = (128, 512, 512, 128), 16, 64


def forward(params, x):
    """ReLU hidden layers, then logits over ``CLASSES``."""
    for layer in params[:-1]:
        x = jax.nn.relu(x @ layer["w"] + layer["b"])
    return x @ params[-1]["w"] + params[-1]["b"]


def loss_fn(params, x, labels):
    return cross_entropy(forward(params, x), labels, CLASSES)


# (params, opt, x, labels) -> (loss, params, opt)
train_step = adam_step(loss_fn)


def init_params(seed: int = 0):
    rng = np.random.default_rng(seed)
    dims = (*SIZES, CLASSES)
    return [
        {
            "w": (rng.standard_normal((i, o)) / np.sqrt(i)).astype(np.float32),
            "b": np.zeros(o, np.float32),
        }
        for i, o in itertools.pairwise(dims)
    ]


def batch(seed: int = 0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((BATCH, SIZES[0])).astype(np.float32)
    return x, rng.integers(0, CLASSES, BATCH).astype(np.int32)


def param_roles():
    """Megatron pairs: odd layers column-split, even layers row-split."""
    n = len(SIZES)
    return [
        {"w": "S(1)", "b": "S(0)"} if k % 2 == 0 else {"w": "S(0)", "b": REPLICATED}
        for k in range(n)
    ]


_MODEL = Model(forward, train_step, init_params, batch, param_roles)
forward_example, train_example = _MODEL.forward_example, _MODEL.train_example
forward_args, train_args = _MODEL.forward_args, _MODEL.train_args  # sbpc-import --args
