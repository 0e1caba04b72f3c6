"""``bench/shardy_dialect.py`` on a file in the format of Shardy's
parse/print tests: a case sbpc prints as its CHECK lines say passes, one
whose CHECK lines the print does not match fails in FileCheck, an op sbpc
does not know fails in sbpc-opt, and the meshes and the whole file are
cases of their own."""

from __future__ import annotations

import shardy_dialect as sd

TEST = """// RUN: sdy_opt %s 2>&1 | FileCheck %s

// CHECK: sdy.mesh @mesh = <["a"=2]>
sdy.mesh @mesh = <["a"=2]>

// CHECK-LABEL: func @right
func.func @right(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // CHECK-NEXT: sdy.reshard %arg0 <@mesh, [{"a"}]> : tensor<8xf32>
  %0 = sdy.reshard %arg0 <@mesh, [{"a"}]> : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// CHECK-LABEL: func @wrong
func.func @wrong(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // CHECK-NEXT: sdy.reshard %arg0 <@mesh, [{}]> : tensor<8xf32>
  %0 = sdy.reshard %arg0 <@mesh, [{"a"}]> : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// CHECK-LABEL: func @unknown
func.func @unknown(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  %0 = sdy.no_such_op %arg0 : tensor<8xf32>
  return %0 : tensor<8xf32>
}
"""


def test_cases_pass_fail_and_say_why(tmp_path, capsys) -> None:
    (tmp_path / "mini_parse_print.mlir").write_text(TEST)
    assert sd.main([str(tmp_path), "--verbose"]) == 0
    out = capsys.readouterr().out
    assert "mini_parse_print.mlir right: pass" in out
    assert "mini_parse_print.mlir wrong: FileCheck:" in out
    assert "mini_parse_print.mlir unknown: sbpc-opt:" in out
    assert "mini_parse_print.mlir (meshes): pass" in out
    assert "mini_parse_print.mlir (whole file): sbpc-opt:" in out
    assert "| mini_parse_print | 4 | 2 | fail |" in out
    assert "2 of 4 cases pass." in out
