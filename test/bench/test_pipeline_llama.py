"""``bench/pipeline_llama.py``: a Llama-3-70B-structured step planned on 64
devices with and without a pipeline, from abstract arguments (here at the
tiny configuration's widths, so the test is quick; the benchmark plans the
published shapes): the weights free, or given Megatron's layouts."""

from __future__ import annotations

import pipeline_llama
import pytest
from jax.sharding import PartitionSpec as P
from models import llama

import sbpc.jax


@pytest.mark.parametrize(("stages", "layout"), [(None, "free"), (4, "megatron")])
def test_a_llama_step_is_planned_on_64_devices(stages: int | None, layout: str) -> None:
    cfg = llama.LLAMA3_70B.tiny(layers=4, batch=64)
    fn, args = pipeline_llama.model(cfg)
    pipe = None if stages is None else sbpc.jax.Pipeline(stages, 8, "1f1b")
    given = layout == "megatron"
    layouts = (
        pipeline_llama.megatron(cfg) if given else (None, None, P("data"), P("data"))
    )
    with pipeline_llama.plain_attention():
        planned = sbpc.jax.plan(
            fn,
            *args,
            mesh=pipeline_llama.mesh(pipe),
            in_layouts=layouts,
            strategy="greedy",
            cost_model="h100-sxm",
            quiet=True,
            pipeline=pipe,
        )
    assert llama.attention is not pipeline_llama.attention  # restored
    assert planned.step_time > 0 and planned.peak_memory > 0
    if stages is None:
        assert planned.pipeline is None and len(planned.plans) == 1
    else:
        assert len(planned.plans) == 4 and planned.program.MESH_SHAPE == (4, 2, 8)
        assert len(planned.pipeline.chosen.stages) == 4
    if given:  # layer 0's w1 column-, w2 row-split on its stage's (data, model)
        assert "%arg4: [B, S(1)] (given)" in planned.report
        assert "%arg5: [B, S(0)] (given)" in planned.report
