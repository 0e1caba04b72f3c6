// A pass pipeline xDSL cannot lex (an unquoted path) is a usage error with a
// caret and a hint, never a traceback; the quoted form works.
// RUN: not sbpc-opt %s -p 'sbp-propagate{report=%t/plan.txt}' 2>&1 | filecheck %s --check-prefix=UNQUOTED
// RUN: not sbpc-opt %s -p 'sbp-propagate{' 2>&1 | filecheck %s --check-prefix=OPEN
// RUN: sbpc-opt %s -p 'sbp-propagate{report="%t.plan.txt"}' | filecheck %s
// RUN: filecheck %s --check-prefix=REPORT < %t.plan.txt

// UNQUOTED: sbpc-opt: error: Error parsing pass pipeline specification:
// UNQUOTED: Unknown token
// UNQUOTED: (quote option values {{.*}} e.g. report="/tmp/plan.txt")
// UNQUOTED-NOT: Traceback
// OPEN: sbpc-opt: error:
// OPEN-NOT: Traceback
// CHECK: sbp.sig
// REPORT: @main
module attributes {sbp.placement = #sbp.placement<cpu, [0, 1]>} {
  func.func @main(%a: tensor<4x8xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>}) -> tensor<4x8xf32> {
    %0 = stablehlo.add %a, %a : tensor<4x8xf32>
    return %0 : tensor<4x8xf32>
  }
}
