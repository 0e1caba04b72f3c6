"""Machine presets: named cost models, links by level, per-dtype flop rates,
memory capacity (docs/machines.md)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from sbpc.boxing.cost_model import (
    DEFAULT_COST_MODEL,
    CostModel,
    CostModelError,
    Link,
    rate_class,
)
from sbpc.boxing.machines import PRESETS

NVLINK = 450e9  # an H100's NVLink 4, each way
NDR = 50e9  # one 400 Gb/s InfiniBand port per GPU


@pytest.mark.parametrize("name", ["h100-sxm", "a100-80gb", "tpu-v5p", "cpu-sim"])
def test_every_preset_parses_with_a_capacity(name: str) -> None:
    model = CostModel.parse(name)
    assert model.memory_capacity is not None and model.memory_capacity > 1e9
    assert model == CostModel.parse(PRESETS[name])  # the preset is its text


def test_capacities_are_the_datasheets() -> None:
    assert CostModel.parse("h100-sxm").memory_capacity == 80e9
    assert CostModel.parse("a100-80gb").memory_capacity == 80e9
    assert CostModel.parse("tpu-v5p").memory_capacity == 95e9


@pytest.mark.parametrize(
    ("hierarchy", "bandwidths"),
    [
        ((8,), [NVLINK]),  # one node
        ((2, 8), [NDR, NVLINK]),  # two nodes of 8
        ((8, 8), [NDR, NVLINK]),  # eight nodes of 8
        ((64,), [NDR]),  # one ring over 8 nodes: the network is its bottleneck
        ((2, 2, 2), [NVLINK, NVLINK, NVLINK]),  # 8 devices: one node
        ((4, 4), [NDR, NVLINK]),  # the outer 4 reach a second node
    ],
)
def test_gpu_links_by_level(
    hierarchy: tuple[int, ...], bandwidths: list[float]
) -> None:
    model = CostModel.parse("h100-sxm")
    got = [model.link(d, hierarchy).bandwidth for d in range(len(hierarchy))]
    assert got == bandwidths


def test_a_ring_over_both_levels_pays_the_network() -> None:
    model = CostModel.parse("h100-sxm")
    both = model.step_time("all_gather", (0, 1), (8, 8), Fraction(64_000))
    inner = model.step_time("all_gather", (1,), (8, 8), Fraction(64_000))
    # plus one launch: the level's default overhead (10 us across, 5 us inside)
    assert float(both) == pytest.approx(10e-6 + 63 * 5e-6 + 64_000 / NDR)
    assert float(inner) == pytest.approx(5e-6 + 7 * 1e-6 + 64_000 / NVLINK)


def test_tpu_links_are_ici_within_a_slice() -> None:
    model = CostModel.parse("tpu-v5p")
    for hierarchy in [(8,), (2, 8), (8, 8), (64,), (16, 16, 16)]:
        assert {model.link(d, hierarchy) for d in range(len(hierarchy))} == {
            Link(200e9, 1e-6, 5e-6)
        }
    # two slices of 4096: the outer axis crosses the data-center network
    assert model.link(0, (2, 4096)).bandwidth == 6.25e9


def test_a_machine_with_levels_needs_the_hierarchys_sizes() -> None:
    with pytest.raises(CostModelError, match="depend on the hierarchy's sizes"):
        CostModel.parse("h100-sxm").link(0, 2)


def test_overrides_replace_the_presets_keys() -> None:
    model = CostModel.parse("h100-sxm,net_bw=25e9,mem=40e9,flops_bf16=500e12")
    assert model.link(0, (8, 8)).bandwidth == 25e9
    assert model.link(1, (8, 8)).bandwidth == NVLINK
    assert model.memory_capacity == 40e9
    assert model.device.flop_rate(["bf16", "bf16"]) == 500e12
    assert model.device.flop_rate(["f32", "f32"]) == 67e12
    # node=0: per-dimension links as the key=value models give them
    flat = CostModel.parse("h100-sxm,node=0")
    assert flat.levels is None and flat.links == DEFAULT_COST_MODEL.links


def test_levels_on_a_key_value_model() -> None:
    model = CostModel.parse("node=4,node_bw=1e11,net_bw=1e10")
    assert [model.link(d, (2, 4)).bandwidth for d in range(2)] == [1e10, 1e11]
    assert [model.link(d, (8,)).bandwidth for d in range(1)] == [1e10]
    assert model.memory_capacity is None


def test_scenarios_may_change_levels() -> None:
    model = CostModel.parse("h100-sxm|net_bw=25e9")
    (other,) = model.scenarios
    assert other.link(0, (8, 8)).bandwidth == 25e9
    assert other.device == model.device


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "h200",
            "unknown machine 'h200': expected one of h100-sxm, a100-80gb, "
            "tpu-v5p, cpu-sim, or key=value items",
        ),
        ("bw=1e9,h100-sxm", "expected one of .* got 'h100-sxm'"),
        ("h100-sxm,bw=1e9", "'bw' gives each hierarchy dim its link but 'node='"),
        ("h100-sxm,mem=0", "memory capacity must be positive"),
        ("h100-sxm,flops_bf16=-1", "flops_bf16 must be positive"),
        ("node_bw=1e9", "'node_bw' needs 'node='"),
        ("node=2.5", "whole number of devices per node"),
        ("node=8,overhead=1:2", "'overhead' takes one value with 'node='"),
        ("mem=1:2", "'mem' takes one value"),
        ("h100-sxm,mem=1,mem=2", "sets 'mem' twice"),
        ("bw=1|mem=1", "scenario 2 sets 'mem'"),
    ],
)
def test_bad_machines(text: str, message: str) -> None:
    with pytest.raises(CostModelError, match=message):
        CostModel.parse(text)


def test_rate_classes() -> None:
    assert rate_class("f8E4M3FN") == rate_class("f8E5M2") == "f8"
    assert rate_class("ui8") == rate_class("i8") == "i8"
    assert rate_class("bf16") == "bf16"
    assert rate_class("i32") == "i32"  # no rate of its own: the device's flops


def test_a_products_rate_is_its_slowest_operands() -> None:
    device = CostModel.parse("h100-sxm").device
    assert device.flop_rate(["bf16", "bf16"]) == 989e12
    assert device.flop_rate(["bf16", "f32"]) == 67e12
    assert device.flop_rate(["f8E4M3FN", "f8E5M2"]) == 1979e12
    assert device.flop_rate(["i32", "i32"]) == device.flops
    assert device.flop_rate([]) == device.flops  # not a product
    # the key=value models without flops_<dtype> keys: one rate for all
    old = DEFAULT_COST_MODEL.device
    assert old.flop_rate(["bf16", "bf16"]) == old.flop_rate(["f32"]) == old.flops
