"""Shardy's own parse/print dialect tests, run through sbpc's ``sdy`` dialect.

openxla/shardy's ``shardy/dialect/sdy/ir/test/*_parse_print.mlir`` (Apache
License 2.0; read from a checkout given on the command line, nothing
vendored) are ``sdy_opt %s | FileCheck %s`` tests: the file is parsed,
printed back, and its ``CHECK`` lines must match the print.  Here
``sbpc-opt`` (no passes) is the printer, one case at a time: each top-level
function with the ``CHECK`` lines before and inside it, after the file's
module-level ops (its meshes); a case passes when ``sbpc-opt`` prints it
and ``filecheck`` accepts its lines.  The meshes with their own ``CHECK``
lines are one more case, and so is the whole file as Shardy runs it.

The ``CHECK`` lines are Shardy's, unchanged: ``func @f`` and ``return``
match xDSL's ``func.func @f`` and ``func.return``.

    python bench/shardy_dialect.py /path/to/shardy [--verbose]

prints a table per file: cases, passes, and why the others fail.
"""

from __future__ import annotations

import contextlib
import io
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from shardy_executable import command_line

GLOB = "shardy/dialect/sdy/ir/test/*_parse_print.mlir"
CHECK = re.compile(r"^\s*//\s*CHECK")
# The filecheck of the Python running this (the venv's), else the PATH's.
FILECHECK = (
    shutil.which("filecheck", path=str(Path(sys.executable).parent)) or "filecheck"
)


@dataclass
class Case:
    file: str
    name: str
    text: str  # the module sbpc-opt reads, CHECK lines included
    outcome: str = "?"


def split_cases(path: Path) -> list[Case]:
    """The file's per-function cases, its meshes' case, and the whole file."""
    lines = path.read_text().splitlines()
    preamble: list[str] = []  # module-level ops other than functions
    preamble_checks: list[str] = []
    cases: list[Case] = []
    pending: list[str] = []  # comments since the last top-level op
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("func.func"):
            end = i
            while end < len(lines) and lines[end] != "}":
                end += 1
            body = lines[i : end + 1]
            name = re.search(r"@([\w.$-]+)", line)
            cases.append(Case(path.name, name.group(1) if name else f"line {i}", ""))
            cases[-1].text = "\n".join([*pending, *body])
            pending, i = [], end + 1
            continue
        if line.startswith("//"):
            if CHECK.match(line) and "sdy.mesh" in line:
                preamble_checks.append(line)
            elif not line.startswith("// RUN"):
                pending.append(line)
        elif line.strip():
            preamble.append(line)
        i += 1
    head = "\n".join(preamble)
    for case in cases:
        case.text = head + "\n" + case.text + "\n"
    if preamble_checks:
        cases.append(Case(path.name, "(meshes)", "\n".join([*preamble_checks, head])))
    cases.append(Case(path.name, "(whole file)", path.read_text()))
    return cases


def sbpc_print(text: str, workdir: Path) -> tuple[int, str]:
    """``sbpc-opt`` on ``text``: (exit status, stdout or the first error)."""
    from sbpc.tools.sbpc_opt import main as sbpc_opt

    path = workdir / "case.mlir"
    path.write_text(text)
    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            sbpc_opt([str(path)])
        except SystemExit as e:
            code = int(e.code or 0)
    if code:
        lines = [x for x in err.getvalue().splitlines() if "error" in x] or [""]
        return code, re.sub(r"^.*?error: ", "", lines[0])[:120]
    return 0, out.getvalue()


def run_case(case: Case, workdir: Path) -> str:
    code, printed = sbpc_print(case.text, workdir)
    if code:
        return f"sbpc-opt: {printed}"
    if not any(CHECK.match(x) for x in case.text.splitlines()):
        return "pass"
    checks = workdir / "checks.mlir"
    checks.write_text(case.text)
    done = subprocess.run(
        [FILECHECK, str(checks)],
        input=printed,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode == 0:
        return "pass"
    why = [x for x in done.stderr.splitlines() if "error" in x] or ["FileCheck"]
    return "FileCheck: " + re.sub(r"^.*?error: ", "", why[0])[:100]


def reason(outcome: str) -> str:
    return re.sub(r"%\w+|\d+", "_", outcome)[:110]


def report(cases: list[Case]) -> str:
    lines = ["| file | cases | pass | whole file |", "| --- | --- | --- | --- |"]
    for name in sorted({c.file for c in cases}):
        mine = [c for c in cases if c.file == name and c.name != "(whole file)"]
        whole = [c for c in cases if c.file == name and c.name == "(whole file)"]
        ok = sum(c.outcome == "pass" for c in mine)
        lines.append(
            f"| {name.removesuffix('.mlir')} | {len(mine)} | {ok} | "
            f"{'pass' if whole and whole[0].outcome == 'pass' else 'fail'} |"
        )
    parts = [c for c in cases if c.name != "(whole file)"]
    ok = sum(c.outcome == "pass" for c in parts)
    lines.append(f"\n{ok} of {len(parts)} cases pass.")
    why = Counter(reason(c.outcome) for c in parts if c.outcome != "pass")
    lines.append("Not passing:")
    lines.extend(f"  {n:3}  {text}" for text, n in why.most_common())
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    options = command_line(__doc__, argv)
    root: Path = options.shardy
    paths = sorted(root.glob(GLOB)) or sorted(root.glob("*_parse_print.mlir"))
    if not paths:
        print(f"no parse/print tests under {root}", file=sys.stderr)
        return 2
    cases = [c for p in paths for c in split_cases(p)]
    with tempfile.TemporaryDirectory() as tmp:
        for case in cases:
            case.outcome = run_case(case, Path(tmp))
            if options.verbose:
                print(f"{case.file} {case.name}: {case.outcome}", flush=True)
    print(report(cases))
    return 0


if __name__ == "__main__":
    sys.exit(main())
