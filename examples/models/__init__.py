"""Example models: plain JAX functions with example arguments and layout roles.

``EXAMPLES`` names each program the runner (``examples/run.py``) and the
benchmark (``bench/vs_xla.py``) know.
"""

from __future__ import annotations

from collections.abc import Callable

from . import gpt, mixer, mlp
from .example import SCHEMES, Example, layout, layouts

EXAMPLES: dict[str, Callable[[], Example]] = {
    "mlp": mlp.forward_example,
    "mlp_train": mlp.train_example,
    "gpt": gpt.forward_example,
    "gpt_train": gpt.train_example,
    "mixer": mixer.forward_example,
    "mixer_train": mixer.train_example,
}

__all__ = ["EXAMPLES", "SCHEMES", "Example", "layout", "layouts"]
