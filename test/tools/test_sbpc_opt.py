"""Unit tests of sbpc-opt's mlir-opt-style diagnostics handling."""

import os
import subprocess
import sys

from sbpc.dialects.diagnostics import Diagnostic
from sbpc.tools.sbpc_opt import _matches, parse_expectations

SOURCE = """\
// expected-error @below {{first}}
op1
op2 // expected-warning {{second}}
// expected-remark @-2 {{third}}
// expected-error-re @+1 {{fo+rth}}
op5
"""


def test_expectation_lines_follow_mlir_opt() -> None:
    exps = parse_expectations(SOURCE, line_offset=10)
    assert [(e.severity, e.line, e.text) for e in exps] == [
        ("error", 12, "first"),
        ("warning", 13, "second"),
        ("remark", 12, "third"),
        ("error", 16, "fo+rth"),
    ]
    assert exps[3].regex


def test_matching_needs_severity_line_and_text() -> None:
    exp = parse_expectations("x // expected-error {{bad thing}}", 0)[0]
    assert _matches(exp, Diagnostic("error", "a bad thing here", "f", 1, 3))
    assert not _matches(exp, Diagnostic("warning", "a bad thing here", "f", 1, 3))
    assert not _matches(exp, Diagnostic("error", "a bad thing here", "f", 2, 3))
    assert not _matches(exp, Diagnostic("error", "a good thing", "f", 1, 3))


def test_internal_errors_have_no_traceback(tmp_path) -> None:
    # A directory is not a readable file: the driver must say so plainly.
    proc = subprocess.run(
        [sys.executable, "-m", "sbpc.tools.sbpc_opt", str(tmp_path)],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert "error" in proc.stderr


def test_no_generic_top_level_packages_are_installed(tmp_path) -> None:
    # Outside a source checkout (no PYTHONPATH, another cwd), only `sbpc` exists.
    code = (
        "import importlib.util as u, sbpc.dialects, sbpc.passes, sbpc.tools;"
        "print([n for n in ('dialects', 'passes', 'tools') if u.find_spec(n)])"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


def test_help_fits_one_screen_and_names_only_sbpc() -> None:
    """``--help`` is one screen and lists exactly sbpc's passes and targets."""
    from sbpc.passes.universe import SBPC_UNIVERSE
    from sbpc.tools.opt_help import SBPC_TARGETS

    out = subprocess.run(
        [sys.executable, "-m", "sbpc.tools.sbpc_opt", "--help"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert len(out.splitlines()) <= 60
    passes, targets = out.split("sbpc passes (-p):")[1].split("targets (-t):")

    def names(block: str) -> list[str]:  # rows are "  name  text"
        rows = block.split("\n\n")[0].splitlines()
        return [r.split()[0] for r in rows if r[:2] == "  " and r[2:3] != " "]

    assert names(passes) == list(SBPC_UNIVERSE.all_passes)
    assert names(targets) == list(SBPC_TARGETS)


# Prints, as sbpc-opt exits, the pass modules its run imported.
_PASS_MODULES_AT_EXIT = """
import atexit, sys
sys.argv = ["sbpc-opt", *sys.argv[1:]]
atexit.register(lambda: print(sorted(
    m for m in sys.modules if m.startswith("sbpc.passes.") and m != "sbpc.passes.universe"
), file=sys.stderr))
from sbpc.tools.sbpc_opt import main
main()
"""


def test_only_the_help_imports_every_pass(tmp_path) -> None:
    """The help lists every pass by its docstring, which imports every pass
    module (about a third of a second): a run that prints no help imports
    only the passes it runs, and the help still lists them all."""
    src = tmp_path / "f.mlir"
    src.write_text(
        "func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
        "  return %a : tensor<4xf32>\n}\n"
    )

    def imported(*args: str) -> str:
        proc = subprocess.run(
            [sys.executable, "-c", _PASS_MODULES_AT_EXIT, *args],
            capture_output=True,
            text=True,
        )
        assert proc.returncode == 0, proc.stderr
        return proc.stderr.strip().splitlines()[-1]

    assert imported(str(src)) == "[]"
    inlined = imported(str(src), "-p", "sbp-inline")
    assert "'sbpc.passes.inline'" in inlined and "propagate" not in inlined
    assert "'sbpc.passes.propagate'" in imported("--help")
