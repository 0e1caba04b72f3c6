"""Pass option checks (``passes/options.py``) and the pass refusing bad values
when it is built, as the pipeline is parsed."""

from __future__ import annotations

import math

import pytest

from sbpc.passes.options import OptionError, positive_number, writable_file
from sbpc.passes.propagate import SbpPropagatePass


@pytest.mark.parametrize(
    ("value", "want"), [(None, None), (5, 5.0), (2.5, 2.5), ("1e30", 1e30)]
)
def test_positive_numbers(value, want) -> None:
    assert positive_number("x", value, "bytes") == want


@pytest.mark.parametrize("value", [0, -5, -0.5, "abc", "", True, math.inf, "nan"])
def test_other_values_are_refused_by_name(value) -> None:
    with pytest.raises(OptionError, match=r"^x must be a positive number of bytes"):
        positive_number("x", value, "bytes")


def test_writable_file(tmp_path) -> None:
    assert writable_file("report", "") == ""
    assert writable_file("report", "-") == "-"
    assert writable_file("report", str(tmp_path / "plan.txt"))
    with pytest.raises(OptionError, match="is a directory"):
        writable_file("report", str(tmp_path))
    with pytest.raises(OptionError, match="does not exist"):
        writable_file("report", str(tmp_path / "no" / "plan.txt"))
    # a link is checked where it points
    (tmp_path / "to-dir").symlink_to(tmp_path)
    with pytest.raises(OptionError, match="is a directory"):
        writable_file("report", str(tmp_path / "to-dir"))
    (tmp_path / "dangling").symlink_to(tmp_path / "no" / "plan.txt")
    with pytest.raises(OptionError, match="does not exist"):
        writable_file("report", str(tmp_path / "dangling"))
    (tmp_path / "link").symlink_to("plan.txt")
    assert writable_file("report", str(tmp_path / "link"))


def test_the_pass_refuses_bad_values_when_built() -> None:
    with pytest.raises(OptionError, match="memory_budget"):
        SbpPropagatePass(memory_budget=-1)
    with pytest.raises(OptionError, match="time_limit"):
        SbpPropagatePass(time_limit="soon")
    assert SbpPropagatePass(memory_budget="1e30").limits() == (1e30, None)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"strategy": "nope"}, "unknown strategy 'nope'"),
        ({"report_format": "png"}, "unknown report_format 'png'"),
        ({"trip_count": -1}, "trip_count must be at least 0"),
        ({"cluster": -1}, "cluster must be at least 0"),
        ({"combine_bytes": -1}, "combine_bytes must be at least 0"),
        ({"cost_model": "lat=1e308"}, "'lat' must be 0 or between"),
    ],
)
def test_every_option_is_checked_when_built(options, message) -> None:
    with pytest.raises(OptionError, match=message):
        SbpPropagatePass(**options)


def test_values_are_converted_once() -> None:
    """Issue 36, row A: the pass holds numbers and a CostModel, not text."""
    p = SbpPropagatePass(memory_budget="1e9", time_limit=2, cost_model="bw=1e9")
    assert p.memory_budget == 1e9 and isinstance(p.memory_budget, float)
    assert p.time_limit == 2.0 and isinstance(p.time_limit, float)
    assert p.parsed_cost_model.links[0].bandwidth == 1e9


@pytest.mark.parametrize("value", [0, "0", 0.0, "0.0"])
def test_a_zero_fence_bytes_in_any_spelling_turns_fences_off(value) -> None:
    assert SbpPropagatePass(fence_bytes=value).fence_bytes == 0


@pytest.mark.parametrize("value", [-1, "-1", "lots", "inf", "nan", True])
def test_a_bad_fence_bytes_is_named(value) -> None:
    with pytest.raises(OptionError, match="fence_bytes must be 0 or a positive"):
        SbpPropagatePass(fence_bytes=value)
