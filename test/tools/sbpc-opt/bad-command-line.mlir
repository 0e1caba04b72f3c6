// Issue 21, item 1: a command line sbpc-opt cannot use is one
// `sbpc-opt: error:` line (a caret under a bad spec), status 1, and neither
// a traceback nor argparse's usage text.
// RUN: not sbpc-opt %s -p ',,' 2>&1 | filecheck %s --check-prefix=EMPTY
// RUN: not sbpc-opt %s -p 'sbp-propagate{strategy=}' 2>&1 | filecheck %s --check-prefix=NOVALUE
// RUN: not sbpc-opt %s -p 'sbp-propagate{cost_model=bw=0}' 2>&1 | filecheck %s --check-prefix=UNQUOTED
// RUN: not sbpc-opt %s -t 'jax{' 2>&1 | filecheck %s --check-prefix=TARGET
// RUN: not sbpc-opt %s -t nosuch 2>&1 | filecheck %s --check-prefix=NOTARGET
// RUN: not sbpc-opt %s --no-such-flag 2>&1 | filecheck %s --check-prefix=FLAG
// The exit status is 1 (argparse's own is 2).
// RUN: %python -c "import subprocess as s, sys; sys.exit(s.run(sys.argv[1:], capture_output=True).returncode != 1)" sbpc-opt %s -t nosuch
// RUN: %python -c "import subprocess as s, sys; sys.exit(s.run(sys.argv[1:], capture_output=True).returncode != 1)" sbpc-opt %s -t 'jax{' 
// The quoted form of the documented option works.
// RUN: sbpc-opt %s -p 'sbp-propagate{cost_model="bw=1e11"}' | filecheck %s

// EMPTY: sbpc-opt: error: Error parsing pass pipeline specification:
// EMPTY: Expected pass name here
// EMPTY-NOT: Traceback
// NOVALUE: sbpc-opt: error: Error parsing pass pipeline specification:
// NOVALUE: Unknown argument value
// NOVALUE-NOT: Traceback
// UNQUOTED: sbpc-opt: error: bad cost_model option: link bandwidth must be positive, got 0.0
// UNQUOTED-NOT: Traceback
// TARGET: sbpc-opt: error: bad target (-t): Error parsing pass pipeline specification:
// TARGET-NEXT: pass-pipeline:1:5
// TARGET-NEXT: jax{
// TARGET-NOT: internal error
// NOTARGET: sbpc-opt: error: argument -t/--target: invalid choice: 'nosuch'
// NOTARGET-NOT: usage:
// FLAG: sbpc-opt: error: unrecognized arguments: --no-such-flag
// FLAG-NOT: usage:
// CHECK: sbp.sig
module attributes {sbp.placement = #sbp.placement<cpu, [0, 1]>} {
  func.func @main(%a: tensor<4x8xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>}) -> tensor<4x8xf32> {
    %0 = stablehlo.add %a, %a : tensor<4x8xf32>
    return %0 : tensor<4x8xf32>
  }
}
