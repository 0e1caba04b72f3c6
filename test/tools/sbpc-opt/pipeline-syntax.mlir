// A pass pipeline xDSL cannot lex (an unterminated quote) is a usage error
// with a caret and a hint, never a traceback; a path works quoted or not (as
// in mlir-opt), and a report path in a missing directory is refused as
// the pipeline is parsed.
// RUN: not sbpc-opt %s -p 'sbp-propagate{report="%t/plan.txt}' 2>&1 | filecheck %s --check-prefix=UNQUOTED
// RUN: sbpc-opt %s -p 'sbp-propagate{report=%t.unquoted.txt}' -o /dev/null
// RUN: filecheck %s --check-prefix=REPORT < %t.unquoted.txt
// RUN: not sbpc-opt %s -p 'sbp-propagate{report=%t/no/such/dir/plan.txt}' 2>&1 | filecheck %s --check-prefix=NODIR
// RUN: not sbpc-opt %s -p 'sbp-propagate{' 2>&1 | filecheck %s --check-prefix=OPEN
// RUN: sbpc-opt %s -p 'sbp-propagate{report="%t.plan.txt"}' | filecheck %s
// RUN: filecheck %s --check-prefix=REPORT < %t.plan.txt

// UNQUOTED: sbpc-opt: error: Error parsing pass pipeline specification:
// UNQUOTED: Unknown token
// UNQUOTED: (quote option values {{.*}} e.g. report="/tmp/plan.txt")
// UNQUOTED-NOT: Traceback
// NODIR: sbpc-opt: error: report: directory '{{.*}}/no/such/dir' does not exist
// NODIR-NOT: internal error
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
