"""``bench/shardy_executable.py`` on test files written in the format of
Shardy's executable tests (``part1`` functions, ``part2`` a ``@main`` that
runs one on every device and checks the pieces): a right program passes in
both modes, a wrong twin fails in the sequential mode only, a "replicated"
argument that differs per device is inapplicable, and an op sbpc refuses is
reported with sbpc's message."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import shardy_executable as se

PART1 = """//--- part1.mlir
sdy.mesh @mesh = <["x"=2, "y"=2], device_ids=[0, 2, 1, 3]>

func.func @sequential_f(%arg0: tensor<4x4xi32>) -> tensor<4x4xi32> {
  %0 = stablehlo.SEQOP %arg0, %arg0 : tensor<4x4xi32>
  return %0 : tensor<4x4xi32>
}

func.func @parallel_f(
  %arg0: tensor<4x4xi32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y"}]>})
  -> (tensor<4x4xi32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"y"}]>}) {
  %0 = stablehlo.add %arg0, %arg0 : tensor<4x4xi32>
  %1 = sdy.reshard %0 <@mesh, [{}, {"y"}]> : tensor<4x4xi32>
  return %1 : tensor<4x4xi32>
}
"""

PART2 = """//--- part2.mlir
func.func @main() {
  %in = stablehlo.iota dim = 0 : tensor<4x4xi32>
  %t = stablehlo.transpose %in, dims = [1, 0] : (tensor<4x4xi32>) -> tensor<4x4xi32>
  %x = stablehlo.add %in, %t : tensor<4x4xi32>
  %seq = func.call @sequential_f(%x) : (tensor<4x4xi32>) -> tensor<4x4xi32>
  %p0 = "stablehlo.slice"(%x) {start_indices = array<i64: 0, 0>, limit_indices = array<i64: 2, 2>, strides = array<i64: 1, 1>} : (tensor<4x4xi32>) -> tensor<2x2xi32>
  %p1 = "stablehlo.slice"(%x) {start_indices = array<i64: 2, 0>, limit_indices = array<i64: 4, 2>, strides = array<i64: 1, 1>} : (tensor<4x4xi32>) -> tensor<2x2xi32>
  %p2 = "stablehlo.slice"(%x) {start_indices = array<i64: 0, 2>, limit_indices = array<i64: 2, 4>, strides = array<i64: 1, 1>} : (tensor<4x4xi32>) -> tensor<2x2xi32>
  %p3 = "stablehlo.slice"(%x) {start_indices = array<i64: 2, 2>, limit_indices = array<i64: 4, 4>, strides = array<i64: 1, 1>} : (tensor<4x4xi32>) -> tensor<2x2xi32>
  %res:4 = "interpreter.run_parallel"(%p0, %p1, %p2, %p3) {
    programs = [[@parallel_f, @parallel_f, @parallel_f, @parallel_f]]
  } : (tensor<2x2xi32>, tensor<2x2xi32>, tensor<2x2xi32>, tensor<2x2xi32>) -> (tensor<4x2xi32>, tensor<4x2xi32>, tensor<4x2xi32>, tensor<4x2xi32>)
  %left = "stablehlo.slice"(%seq) {start_indices = array<i64: 0, 0>, limit_indices = array<i64: 4, 2>, strides = array<i64: 1, 1>} : (tensor<4x4xi32>) -> tensor<4x2xi32>
  %right = "stablehlo.slice"(%seq) {start_indices = array<i64: 0, 2>, limit_indices = array<i64: 4, 4>, strides = array<i64: 1, 1>} : (tensor<4x4xi32>) -> tensor<4x2xi32>
  "check.expect_eq"(%res#0, %left) : (tensor<4x2xi32>, tensor<4x2xi32>) -> ()
  "check.expect_eq"(%res#1, %left) : (tensor<4x2xi32>, tensor<4x2xi32>) -> ()
  "check.expect_eq"(%res#2, %right) : (tensor<4x2xi32>, tensor<4x2xi32>) -> ()
  "check.expect_eq"(%res#3, %right) : (tensor<4x2xi32>, tensor<4x2xi32>) -> ()
  return
}
"""
# Devices 0..3 sit at mesh positions 0, 2, 1, 3 (device_ids): device 1 is
# ("x"=1, "y"=0), device 2 is ("x"=0, "y"=1), so %p1 and %p2 above are the
# pieces of rows 2:4, columns 0:2 and of rows 0:2, columns 2:4.


def run(tmp_path: Path, text: str) -> se.Case:
    path = tmp_path / "t.mlir"
    path.write_text(text)
    (case,) = se.run_file(path, "t", tmp_path, verbose=False)
    return case


def test_a_right_program_passes_both_modes(tmp_path) -> None:
    case = run(tmp_path, PART1.replace("SEQOP", "add") + PART2)
    assert case.function == "parallel_f"
    assert case.outcome == {"sequential": "pass", "parallel": "pass"}


def test_a_wrong_twin_fails_the_sequential_mode(tmp_path) -> None:
    case = run(tmp_path, PART1.replace("SEQOP", "multiply") + PART2)
    # The expectation is the (wrong) twin's own unsharded run, so sbpc's
    # sequential compile agrees with it and the parallel function does not.
    assert case.outcome == {"sequential": "pass", "parallel": "wrong numbers"}


DIFFERING = """//--- part1.mlir
sdy.mesh @mesh = <["x"=2]>
func.func @f(%arg0: tensor<2xi32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}) -> tensor<2xi32> {
  return %arg0 : tensor<2xi32>
}
//--- part2.mlir
func.func @main() {
  %a = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %b = stablehlo.constant dense<[3, 4]> : tensor<2xi32>
  %res:2 = "interpreter.run_parallel"(%a, %b) {programs = [[@f, @f]]} : (tensor<2xi32>, tensor<2xi32>) -> (tensor<2xi32>, tensor<2xi32>)
  "check.expect_eq"(%res#0, %a) : (tensor<2xi32>, tensor<2xi32>) -> ()
  return
}
"""


def test_a_replicated_argument_that_differs_per_device_is_inapplicable(
    tmp_path,
) -> None:
    case = run(tmp_path, DIFFERING)
    assert all(o.startswith("inapplicable") for o in case.outcome.values())
    same = run(tmp_path, DIFFERING.replace("[3, 4]", "[1, 2]"))
    assert same.outcome["parallel"] == "pass"


def test_an_op_sbpc_refuses_is_reported_with_its_message(tmp_path) -> None:
    text = (PART1.replace("SEQOP", "add") + PART2).replace(
        "%0 = stablehlo.add %arg0, %arg0 : tensor<4x4xi32>\n  %1",
        "%0 = stablehlo.custom_call @foo(%arg0) : (tensor<4x4xi32>) -> tensor<4x4xi32>\n  %1",
    )
    case = run(tmp_path, text)
    assert case.outcome["sequential"] == "pass"
    assert case.outcome["parallel"].startswith("sbpc:")


def test_pieces_follow_the_mesh_device_order() -> None:
    mesh = se.parse_meshes('sdy.mesh @m = <["x"=2, "y"=2], device_ids=[0, 2, 1, 3]>')[
        "m"
    ]
    value = np.arange(16).reshape(4, 4)
    axes = se.dim_axes('#sdy.sharding<@m, [{"x"}, {"y"}]>', 2)[1]
    pieces = se.cut(value, axes, mesh, 4)
    np.testing.assert_array_equal(pieces[1], value[2:4, 0:2])
    np.testing.assert_array_equal(
        se.assemble(pieces, (4, 4), value.dtype, axes, mesh), value
    )


def test_the_report_counts_per_folder() -> None:
    cases = [
        se.Case("a", "f", "g", {"sequential": "pass", "parallel": "sbpc: no"}),
        se.Case("a", "f", "h", {"sequential": "pass", "parallel": "pass"}),
    ]
    text = se.report(cases)
    assert "| a | 2 | 2 | 1 |" in text
    assert "1  sbpc: no" in text


def test_no_tests_under_the_path_is_an_error(tmp_path, capsys) -> None:
    assert se.main([str(tmp_path)]) == 2
    assert "no executable tests" in capsys.readouterr().err


@pytest.fixture(autouse=True)
def _no_debug(monkeypatch) -> None:
    monkeypatch.setattr(se, "DEBUG", False)


def test_a_sub_axis_is_the_middle_of_its_axis_reshaped() -> None:
    """``"x":(pre)size``: x reshaped [pre, size, post], pre major (Shardy's
    sharding_representation.md): of x=4, ``(1)2`` is x // 2, ``(2)2`` x % 2."""
    mesh = se.Mesh((("x", 4),), None)
    major = [se.piece_slices((8,), [[("x", 1, 2)]], mesh, d)[0][0] for d in range(4)]
    minor = [se.piece_slices((8,), [[("x", 2, 2)]], mesh, d)[0][0] for d in range(4)]
    assert [s.start for s in major] == [0, 0, 4, 4]
    assert [s.start for s in minor] == [0, 4, 0, 4]
