"""The cost model: DESIGN.md's byte table, per-dimension links, option text."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from sbpc.algebra.sbp import B, P, Partial, S
from sbpc.algebra.tensor_type import TensorType
from sbpc.boxing.collective_kind import CollectiveKind
from sbpc.boxing.cost_model import (
    DEFAULT_COST_MODEL,
    NETWORK_LIKE,
    NVLINK_LIKE,
    RANGES,
    CostModel,
    CostModelError,
    Link,
    collective_bytes,
    collective_kind,
    group_bytes,
    local_bytes,
    rounds,
)


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        ("all_gather", Fraction(3, 4)),
        ("all_to_all", Fraction(3, 16)),
        ("all_reduce", Fraction(6, 4)),
        ("reduce_scatter", Fraction(3, 4)),
        ("local_slice", Fraction(0)),
        ("local_to_partial", Fraction(0)),
    ],
)
def test_byte_table(kind, expected):
    assert collective_bytes(kind, 4, 1024) == expected * 1024


def test_bytes_are_exact():
    assert collective_bytes("all_reduce", 3, 4) == Fraction(16, 3)


@pytest.mark.parametrize(
    ("src", "dst", "kind"),
    [
        (S(0), B, "all_gather"),
        (S(0), S(1), "all_to_all"),
        (P, B, "all_reduce"),
        (Partial("max"), S(0), "reduce_scatter"),
        (B, S(1), "local_slice"),
        (B, Partial("min"), "local_to_partial"),
        (S(1), P, "local_to_partial"),
        (P, Partial("max"), None),
        (Partial("max"), P, None),
        (S(0), S(0), None),
        (B, B, None),
    ],
)
def test_collective_kind(src, dst, kind):
    assert collective_kind(src, dst) == kind


def test_rounds():
    assert rounds("all_gather", 4) == 3
    assert rounds("all_reduce", 4) == 6
    assert rounds("all_to_all", 8) == 7  # a pairwise exchange
    assert rounds("all_to_all", 8, grouped_a2a=True) == 1  # all peers at once
    assert rounds("local_slice", 4) == 0
    assert rounds("all_gather", 1) == 0


def test_group_bytes_is_the_tensor_the_group_holds():
    t = TensorType((16, 8), "f32")  # 512 bytes
    nd = (S(0), S(0))
    assert group_bytes(nd, (1,), t, (2, 4)) == 256  # dim 0 halves it
    assert group_bytes(nd, (0,), t, (2, 4)) == 128  # dim 1 quarters it
    assert group_bytes(nd, (0, 1), t, (2, 4)) == 512
    assert local_bytes(nd, t, (2, 4)) == 64
    assert group_bytes((P, B), (0,), t, (2, 4)) == 512


def test_default_links_follow_the_innermost_dim():
    m = DEFAULT_COST_MODEL
    assert m.link(0, 1) == NVLINK_LIKE
    assert [m.link(d, 2) for d in range(2)] == [NETWORK_LIKE, NVLINK_LIKE]
    assert [m.link(d, 3) for d in range(3)] == [NETWORK_LIKE, NETWORK_LIKE, NVLINK_LIKE]


def test_step_time_is_alpha_beta_on_the_bottleneck_link():
    m = DEFAULT_COST_MODEL
    one = m.step_time("all_gather", (1,), (2, 4), Fraction(3000))
    assert float(one) == pytest.approx(5e-6 + 3 * 1e-6 + 3000 / 100e9)
    both = m.step_time("all_reduce", (0, 1), (2, 4), Fraction(3000))
    assert float(both) == pytest.approx(10e-6 + 14 * 5e-6 + 3000 / 25e9)
    assert m.step_time("local_slice", (0,), (2, 4), Fraction(0)) == 0


def test_transfer_time():
    m = DEFAULT_COST_MODEL
    assert m.transfer_time(Fraction(0)) == 0
    t = m.transfer_time(Fraction(1000), fan_out=2)
    assert float(t) == pytest.approx(2 * 5e-6 + 1000 / 25e9)


def test_grouped_all_to_all_waits_one_round():
    """``a2a=1`` (the GPU and TPU presets): an all_to_all over 8 devices pays
    one launch and one round, an all_gather still its ring's 7."""
    ring, grouped = CostModel(), CostModel.parse("a2a=1")
    assert grouped.grouped_a2a and not ring.grouped_a2a
    assert CostModel.parse("h100-sxm").grouped_a2a
    a2a, ag = CollectiveKind.ALL_TO_ALL, CollectiveKind.ALL_GATHER
    assert grouped.step_latency(a2a, (0,), (8,)) == Fraction(5e-6) + Fraction(1e-6)
    assert ring.step_latency(a2a, (0,), (8,)) == Fraction(5e-6) + 7 * Fraction(1e-6)
    assert grouped.step_latency(ag, (0,), (8,)) == ring.step_latency(ag, (0,), (8,))


def test_parse_option():
    m = CostModel.parse("bw=25e9:100e9,lat=5e-6:1e-6,transfer_bw=1e9,transfer_lat=1e-4")
    # omitted keys keep the default (a launch overhead of 10 us between
    # nodes and 5 us inside one; none for transfers between placements)
    assert m.links == (Link(25e9, 5e-6, 10e-6), Link(100e9, 1e-6, 5e-6))
    assert m.transfer == Link(1e9, 1e-4)
    assert CostModel.parse("default") == DEFAULT_COST_MODEL
    assert CostModel.parse("") == DEFAULT_COST_MODEL
    uniform = CostModel.parse("bw=1e9,lat=0,overhead=0")
    assert uniform.links == (Link(1e9, 0.0),)
    assert uniform.link(2, 3) == Link(1e9, 0.0)
    assert CostModel.parse("bw=1:2:3,lat=0,overhead=0").links == (
        Link(1, 0),
        Link(2, 0),
        Link(3, 0),
    )
    # a default list meets a longer given one on the innermost dimension
    assert CostModel.parse("bw=1:2:3,lat=0").links == (
        Link(1, 0, 10e-6),
        Link(2, 0, 10e-6),
        Link(3, 0, 5e-6),
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("speed=1", "expected one of 'bw=', 'lat=', .*'flops=', 'hbm='"),
        ("flops=0", "device flops must be positive"),
        ("hbm=1:2", "'hbm' takes one value"),
        ("bw=fast", "expected numbers"),
        ("bw=1:2,lat=1:2:3", "'bw' lists 2 values but 'lat' lists 3"),
        ("bw=0", "bandwidth must be positive"),
        ("lat=-1", "latency must be non-negative"),
        ("bw=1,bw=2", "sets 'bw' twice"),
        ("transfer_bw=1:2", "takes one value"),
        ("bw=1|flops=2", "scenario 2 sets 'flops': a scenario changes only links"),
        ("bw=1|lat=1|combine=1", "scenario 3 sets 'combine'"),
        ("bw=1|", "scenario 2 is empty"),
        ("bw=1| default", "scenario 2 is empty"),
        ("bw=1|lat=1,lat=2", "scenario 2 sets 'lat' twice"),
        ("bw=1|speed=1", "expected one of .* in cost model scenario 2, got 'speed=1'"),
        ("bw=1|bw=0", "bandwidth must be positive"),
        ("bw=1:2|lat=1:2:3", "'bw' lists 2 values but 'lat' lists 3"),
        ("flops_half=-1", "half extent must be non-negative"),
        ("flops_half=inf", "half extent must be non-negative"),
        ("flops_half=8:16", "'flops_half' takes one value"),
        ("bw=1|flops_half=8", "scenario 2 sets 'flops_half'"),
        ("overhead=-1e-4", "link overhead must be non-negative, got -0.0001"),
        ("overhead=inf", "link overhead must be non-negative, got inf"),
        ("overhead=soon", "expected numbers separated by ':' for 'overhead'"),
        ("bw=1:2,overhead=1:2:3", "'bw' lists 2 values but 'overhead' lists 3"),
        ("overhead=1,overhead=2", "sets 'overhead' twice"),
        ("a2a=2", "'a2a' takes 0 or 1, got 2"),
        ("bw=1|a2a=1", "scenario 2 sets 'a2a'"),
    ],
)
def test_parse_errors(text, message):
    with pytest.raises(CostModelError, match=message):
        CostModel.parse(text)


def test_parse_scenarios_change_links_only():
    """Each ``|`` part is the first part's machine with the link keys it
    lists changed; the device and ``combine`` stay the first part's."""
    m = CostModel.parse("bw=2e9,lat=1e-5,overhead=3e-5,hbm=1e9,combine=1|overhead=7e-5")
    assert m.links == (Link(2e9, 1e-5, 3e-5),)
    (other,) = m.scenarios
    assert other.links == (Link(2e9, 1e-5, 7e-5),)
    assert other.device == m.device and other.device.memory_bandwidth == 1e9
    assert other.combine and not other.scenarios
    two = CostModel.parse("default|bw=1e9|transfer_lat=1e-3")
    assert [s.links for s in two.scenarios] == [
        (Link(1e9, 5e-6, 10e-6), Link(1e9, 1e-6, 5e-6)),
        DEFAULT_COST_MODEL.links,
    ]
    assert two.scenarios[1].transfer == Link(25e9, 1e-3)
    assert CostModel.parse("bw=1e9").scenarios == ()
    assert hash(m) == hash(
        CostModel.parse("bw=2e9,lat=1e-5,overhead=3e-5,hbm=1e9,combine=1|overhead=7e-5")
    )


def test_models_are_hashable_for_plan_caches():
    assert hash(CostModel.parse("bw=1e9")) == hash(CostModel.parse("bw=1e9"))


def test_device_roofline_and_parsing() -> None:
    model = CostModel.parse("flops=1e9,hbm=1e8")
    assert model.device.flops == 1e9 and model.device.memory_bandwidth == 1e8
    assert model.compute_time(2e9, 0) == pytest.approx(2.0)  # compute bound
    assert model.compute_time(1e9, 1e9) == pytest.approx(10.0)  # memory bound
    assert CostModel.parse("bw=1e9").device == CostModel().device


def test_flops_half_is_hockneys_n_half() -> None:
    """A product of smallest extent e runs at flops * e / (e + half)."""
    model = CostModel.parse("flops=1e9,hbm=1e12,flops_half=8")
    assert model.device.half_extent == 8
    assert model.device.product_rate(8) == pytest.approx(0.5e9)
    assert model.device.product_rate(24) == pytest.approx(0.75e9)
    assert model.device.product_rate(math.inf) == 1e9
    assert model.compute_time(1e9, 0, extent=8) == pytest.approx(2.0)
    assert model.compute_time(1e9, 0) == pytest.approx(1.0)  # not a product
    assert model.compute_time(0, 1e12, extent=0) == pytest.approx(1.0)  # no flops
    assert CostModel.parse("flops=1e9").compute_time(1e9, 0, 8) == pytest.approx(1.0)


@pytest.mark.parametrize("key", sorted(RANGES))
def test_every_number_is_refused_outside_its_range(key) -> None:
    """Issue 36, row D: a number whose arithmetic overflows (or whose time
    rounds to nothing) is a parse error naming the key; the ends plan."""
    low, high, _ = RANGES[key]
    # The links by level are read only beside ``node=``.
    given = "node=8," if key.startswith(("node_", "net_")) else ""
    for value in (low, high):
        CostModel.parse(f"{given}{key}={value:g}")
    for value in (high * 10, 1e308, low / 10 if low else -1.0):
        with pytest.raises(CostModelError, match=f"'{key}' must be|must be"):
            CostModel.parse(f"{given}{key}={value:g}")
