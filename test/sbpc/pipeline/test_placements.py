"""Stages as placements: the stage axis cut into sub-meshes."""

from __future__ import annotations

import pytest

from sbpc.algebra.placement import Placement
from sbpc.algebra.sbp import B, Split
from sbpc.pipeline.placements import (
    StagePlacementError,
    boundary_layout,
    stage_axis,
    stage_axis_names,
    stage_layout,
    stage_placements,
)


def test_two_stages_of_a_2x2x2_mesh_are_its_halves() -> None:
    mesh = Placement.of_size((2, 2, 2))
    first, second = stage_placements(mesh, 2)
    assert first.nested_ranks() == [[0, 1], [2, 3]]
    assert second.nested_ranks() == [[4, 5], [6, 7]]
    assert stage_layout((B, Split(0), B), mesh, 2) == (Split(0), B)
    assert stage_axis_names(("stage", "data", "model"), mesh, 2) == ("data", "model")


def test_fewer_stages_than_the_axis_keep_it() -> None:
    mesh = Placement.of_size((4, 2))
    first, second = stage_placements(mesh, 2)
    assert first.nested_ranks() == [[0, 1], [2, 3]] and second.hierarchy == (2, 2)
    assert stage_layout((Split(0), B), mesh, 2) == (Split(0), B)


def test_one_stage_is_the_whole_mesh() -> None:
    mesh = Placement.of_size((2, 4))
    assert stage_placements(mesh, 1) == [mesh]


def test_the_stage_axis_is_the_one_named_stage() -> None:
    mesh = Placement.of_size((2, 4))
    assert stage_axis(mesh, ("data", "stage")) == 1
    assert stage_axis(mesh, ("data", "model")) == 0
    second = stage_placements(mesh, 4, axis=1)[1]
    assert second.nested_ranks() == [1, 5]


def test_a_stage_count_must_divide_the_stage_axis() -> None:
    with pytest.raises(StagePlacementError, match="3 stages do not divide"):
        stage_placements(Placement.of_size((4, 2)), 3)


def test_values_cross_stages_split_along_the_batch_where_even() -> None:
    assert boundary_layout((4, 32, 64), (2, 2), 0) == (Split(0), Split(0))
    assert boundary_layout((2, 32, 64), (2, 2), 0) == (Split(0), Split(2))
    assert boundary_layout((1,), (2,), None) == (B,)
