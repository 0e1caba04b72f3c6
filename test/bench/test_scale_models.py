"""``bench/scale_models.py``'s pinned expert layouts, unrolled and scanned
(the planning itself is the bench's: real sizes take seconds to minutes)."""

from __future__ import annotations

import scale_models  # bench/scale_models.py (test/bench/conftest.py)
from jax.sharding import PartitionSpec as P
from models import llama


def _specs(scan: bool, config: str) -> dict[str, P]:
    cfg = llama.LLAMA3_70B.with_(layers=2, scan_layers=scan)
    args = llama.abstract_train_args(cfg)
    params = scale_models._layouts(
        args, scale_models.CONFIGS[config], ("data", "model")
    )[0]
    layers = params["layers"] if scan else params["layers"][0]
    return {"wq": layers["wq"], "w2": layers["w2"], "embed": params["embed"]}


def test_stacked_weights_take_each_layers_layout_with_the_layer_dimension_whole() -> (
    None
):
    for config in ("fsdp", "tp x fsdp"):
        unrolled, scanned = _specs(False, config), _specs(True, config)
        assert scanned["wq"] == P(None, *unrolled["wq"])
        assert scanned["w2"] == P(None, *unrolled["w2"])
        assert scanned["embed"] == unrolled["embed"]  # not a layer weight
    assert _specs(True, "tp x fsdp")["wq"] == P(None, "data", "model")


def test_the_words_find_stacked_experts() -> None:
    class Planned:  # what _words reads of sbpc.jax.Planned
        class program:
            MESH_AXES = ("data", "model")

        def shardings(self):
            specs = [P(None, "model", None, None), P(None, "data"), P("data"), P()]
            return specs, []

    words = scale_models._words(Planned(), 2, stacked=True)
    assert "experts over model" in words
    assert "experts over" not in scale_models._words(Planned(), 2)
