"""sbpc's own fuzzer: grammar-aware mutations of real inputs, run in-process.

Inputs are the ``.mlir`` files of ``examples/`` and ``test/`` (split at
``// -----``; ``test/fuzz/inputs/`` holds JAX programs with Shardy
annotations, ``make_seeds.py``), mutated the way a user or a tool gets MLIR
wrong: numbers out of range, shapes and layouts that disagree, uneven and
empty shapes, meshes and shardings changed, ops and types swapped, SSA names
crossed, text truncated or nested deep, bytes that are not text; sometimes
several chunks joined with ``// -----``.  Each one runs through
``sbpc-opt``'s real ``main`` with a random pipeline, target, flags and
output (``fuzz_argv.py``: every pass option, output onto links and full
disks); about one case in six is instead a call of ``sbpc.jax.distribute`` with
mutated arguments (``fuzz_api.py``).  Each ends in one ``Outcome``:

- ``success``: exit 0 (and the numbers of every emitted program that runs
  equal its unsharded reference, ``fuzz_numbers.py``);
- ``diagnostic``: exit 1 and every error line a located
  ``file:line:col: error:`` or ``sbpc-opt: error:`` (what users should see);
- ``traceback`` / ``internal``: a Python traceback, or the driver's
  ``internal error`` (a bug in sbpc);
- ``hang``: the input ran past the per-input bound (CPU seconds, or four
  times that in wall-clock seconds);
- ``warning``: a warning leaked (numpy's, or one raised in sbpc's code);
- ``wrong``: an emitted program whose numbers differ from its reference,
  or that fails when run; a distributed function unlike ``jax.jit``'s;
- ``output``: the output contract broken (a link replaced, its target not
  written, a full disk that succeeded, a temporary file left);
- ``unclassified``: anything else (another exit status, an error in no
  known form).

Everything is drawn from one ``random.Random(seed)``, so a seed replays a
campaign exactly.  ``python test/fuzz/harness.py --count 2000`` is
``make fuzz``; ``test_fuzz.py`` runs a fixed-seed slice in CI.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import random
import re
import signal
import sys
import tempfile
import time
import warnings
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the fuzz_* modules

from fuzz_api import random_case, run_case
from fuzz_argv import Outputs, random_argv
from fuzz_numbers import check_programs

ROOT = Path(__file__).resolve().parents[2]
BAD = ("traceback", "internal", "hang", "warning", "wrong", "output", "unclassified")
# One case in ``API_SHARE`` calls sbpc.jax.distribute instead of sbpc-opt.
API_SHARE = 0.18

# -- the corpus ------------------------------------------------------------


def corpus(root: Path = ROOT) -> list[tuple[str, str]]:
    """(name, text) of every chunk of every example and lit input, sorted."""
    files = sorted(
        p
        for folder in ("examples", "test")
        for p in (root / folder).rglob("*.mlir")
        if "Output" not in p.parts
    )
    chunks: list[tuple[str, str]] = []
    for path in files:
        text = path.read_text(errors="replace")
        for i, chunk in enumerate(text.split("// -----")):
            if chunk.strip():
                chunks.append((f"{path.relative_to(root)}#{i}", chunk))
    return chunks


# -- mutations ---------------------------------------------------------------

_INT = re.compile(r"(?<![\w.%#@])-?\d+(?![\w.])")
_SBP = re.compile(r"\b(S\(\d+\)|B|P\((?:sum|max|min)\)|P)(?=[,\]])")
_SHAPE = re.compile(r"tensor<((?:\d+x)*)([a-z]+\d*)>")
# element types, also after a shape's last "x" (tensor<4x8xf32>)
_ELTYPE = re.compile(r"(?<![A-Za-wyz0-9_])(bf16|f16|f32|f64|i1|i8|i32|i64|ui32)\b")
_OPNAME = re.compile(r"\b(stablehlo|chlo|sbp|arith|linalg|func)\.[a-z_]+\b")
_SSA = re.compile(r"%[\w#]+")
_TOKEN = re.compile(r"\s+|\w+|.", re.S)

INTERESTING_INTS = [
    "0",
    "1",
    "-1",
    "2",
    "3",
    "7",
    "64",
    "255",
    "2147483647",
    "2147483648",
    "-2147483649",
    "4294967296",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775809",
    "18446744073709551616",
    "99999999999999999999",
    "1" + "0" * 40,
]
SBPS = ["S(0)", "S(1)", "S(2)", "S(7)", "S(99999999999999999999)", "B", "P", "P(max)"]
ELTYPES = ["f16", "bf16", "f32", "f64", "i1", "i8", "i32", "i64", "ui32", "index"]
JUNK = [
    "\x00",
    "\udcff",
    "\u00e9",
    "{",
    "}",
    "(",
    ")",
    "<",
    ">",
    "[",
    "]",
    ",",
    ":",
    "=",
    '"',
    "#",
    "%",
    "@",
    "^",
    "->",
    "//",
    "0x",
    "1e999",
    "nan",
    "-",
]


def _sub_nth(pattern: re.Pattern[str], text: str, rng: random.Random, repl) -> str:
    """``text`` with one random match of ``pattern`` replaced (``repl(match)``)."""
    matches = list(pattern.finditer(text))
    if not matches:
        return text
    m = rng.choice(matches)
    return text[: m.start()] + repl(m) + text[m.end() :]


def m_int(text: str, rng: random.Random) -> str:
    return _sub_nth(_INT, text, rng, lambda m: rng.choice(INTERESTING_INTS))


def m_sbp(text: str, rng: random.Random) -> str:
    return _sub_nth(_SBP, text, rng, lambda m: rng.choice(SBPS))


def m_nd_length(text: str, rng: random.Random) -> str:
    """An nd_sbp or placement list one entry longer or shorter."""

    def repl(m: re.Match[str]) -> str:
        body = m.group(1)
        items = body.split(", ")
        if rng.random() < 0.5 and len(items) > 1:
            items.pop(rng.randrange(len(items)))
        else:
            items.insert(rng.randrange(len(items) + 1), rng.choice([*SBPS, "0", "9"]))
        return m.group(0).replace(body, ", ".join(items), 1)

    return _sub_nth(re.compile(r"<\[([^\[\]<>]*)\]>"), text, rng, repl)


def m_shape(text: str, rng: random.Random) -> str:
    def repl(m: re.Match[str]) -> str:
        dims = [d for d in m.group(1).split("x") if d]
        choice = rng.random()
        if dims and choice < 0.4:
            dims[rng.randrange(len(dims))] = rng.choice(["0", "1", "3", "5", "?"])
        elif dims and choice < 0.6:
            dims.pop(rng.randrange(len(dims)))
        else:
            dims.insert(rng.randrange(len(dims) + 1), rng.choice(["1", "2", "6"]))
        return "tensor<" + "".join(d + "x" for d in dims) + m.group(2) + ">"

    return _sub_nth(_SHAPE, text, rng, repl)


def m_uneven(text: str, rng: random.Random) -> str:
    """A shape dimension no mesh divides (or an empty one): uneven splits."""

    def repl(m: re.Match[str]) -> str:
        dims = [d for d in m.group(1).split("x") if d]
        if not dims:
            return m.group(0)
        dims[rng.randrange(len(dims))] = rng.choice(["0", "3", "5", "7", "9", "13"])
        return "tensor<" + "".join(d + "x" for d in dims) + m.group(2) + ">"

    return _sub_nth(_SHAPE, text, rng, repl)


_SDY_AXIS = re.compile(r'"(\w+)"=(\d+)')
_SDY_REF = re.compile(r'\{("\w+"(?:, "\w+")*)?(, \?)?\}')


def m_sdy(text: str, rng: random.Random) -> str:
    """A Shardy mesh axis resized or renamed, or a sharding's axes changed."""
    if rng.random() < 0.5:

        def axis(m: re.Match[str]) -> str:
            size = rng.choice(["1", "3", "8", "0", "-2", "1048576", "2147483648"])
            name = m.group(1) if rng.random() < 0.7 else rng.choice(["x", "y", "z"])
            return f'"{name}"={size}'

        return _sub_nth(_SDY_AXIS, text, rng, axis)
    choices = [
        '{"x"}',
        '{"y"}',
        '{"x", "y"}',
        '{"y", "x"}',
        "{}",
        "{?}",
        '{"z"}',
        '{"x"}, {"x"}',
    ]
    return _sub_nth(_SDY_REF, text, rng, lambda m: rng.choice(choices))


_EXPECT = re.compile(r"expected-(error|warning|remark|note)(-re)?\s*(@\S+)?\s*\{\{")


def m_expect(text: str, rng: random.Random) -> str:
    """A ``--verify-diagnostics`` expectation moved, retyped or re-aimed."""

    def repl(m: re.Match[str]) -> str:
        where = rng.choice(["", "@above ", "@below ", "@+1 ", "@-2 ", "@+999 ", "@ "])
        kind = rng.choice(["error", "warning", "note", "error-re"])
        return f"expected-{kind} {where}{{{{"

    return _sub_nth(_EXPECT, text, rng, repl)


def m_eltype(text: str, rng: random.Random) -> str:
    return _sub_nth(_ELTYPE, text, rng, lambda m: rng.choice(ELTYPES))


def m_opname(text: str, rng: random.Random) -> str:
    names = sorted({m.group(0) for m in _OPNAME.finditer(text)})
    if not names:
        return text
    return _sub_nth(_OPNAME, text, rng, lambda m: rng.choice(names))


def m_ssa(text: str, rng: random.Random) -> str:
    names = sorted({m.group(0) for m in _SSA.finditer(text)})
    if not names:
        return text
    return _sub_nth(_SSA, text, rng, lambda m: rng.choice(names))


def m_token(text: str, rng: random.Random) -> str:
    """Delete, duplicate or replace one token (not whitespace)."""
    tokens = _TOKEN.findall(text)
    spots = [i for i, t in enumerate(tokens) if not t.isspace()]
    if not spots:
        return text
    i = rng.choice(spots)
    action = rng.randrange(3)
    if action == 0:
        tokens[i] = ""
    elif action == 1:
        tokens[i] = tokens[i] * 2
    else:
        tokens[i] = rng.choice(JUNK)
    return "".join(tokens)


def m_line(text: str, rng: random.Random) -> str:
    """Delete, duplicate or move one line."""
    lines = text.splitlines(keepends=True)
    if not lines:
        return text
    i = rng.randrange(len(lines))
    action = rng.randrange(3)
    if action == 0:
        del lines[i]
    elif action == 1:
        lines.insert(i, lines[i])
    else:
        lines.insert(rng.randrange(len(lines) + 1), lines.pop(i))
    return "".join(lines)


def m_truncate(text: str, rng: random.Random) -> str:
    return text[: rng.randrange(len(text) + 1)]


def m_nest(text: str, rng: random.Random) -> str:
    """Deep nesting at a random place: brackets, types or modules."""
    depth = rng.choice([50, 140, 400, 2000])
    opener, closer = rng.choice([("[", "]"), ("tensor<", ">"), ("module {\n", "}\n")])
    at = rng.randrange(len(text) + 1)
    return text[:at] + opener * depth + closer * depth + text[at:]


def m_bytes(text: str, rng: random.Random) -> str:
    at = rng.randrange(len(text) + 1)
    junk = "".join(chr(rng.randrange(1, 0x3000)) for _ in range(rng.randrange(1, 8)))
    return text[:at] + junk + text[at:]


MUTATORS: list[Callable[[str, random.Random], str]] = [
    m_int,
    m_int,
    m_sbp,
    m_sbp,
    m_nd_length,
    m_shape,
    m_shape,
    m_uneven,
    m_sdy,
    m_expect,
    m_eltype,
    m_opname,
    m_ssa,
    m_token,
    m_token,
    m_line,
    m_truncate,
    m_nest,
    m_bytes,
]


# Mutations that keep most programs valid (a different but well-formed
# program: its numbers are then checked), drawn one time in three.
MILD = [m_uneven, m_sbp, m_shape, m_sdy, m_nd_length]


def mutate(text: str, rng: random.Random) -> tuple[str, list[str]]:
    """``text`` after one to three mutations (none, one time in five: the
    command line is then what is fuzzed; one mild one, one time in three),
    and their names."""
    if rng.random() < 1 / 5:
        return text, ["none"]
    mild = rng.random() < 1 / 3
    names = []
    for _ in range(1 if mild else rng.choice([1, 1, 1, 2, 3])):
        mutator = rng.choice(MILD if mild else MUTATORS)
        text = mutator(text, rng)
        names.append(mutator.__name__)
    return text, names


# -- running -------------------------------------------------------------------

# A located error (``--verify-diagnostics`` names only the line of a missing
# expectation) or a command-line one.
_LOCATED = re.compile(r"^(?!<unknown>:0:0)(?:\S.*?:\d+(?::\d+)?|sbpc-opt): error: ")


_INTERNAL = re.compile(r"^[\w-]+: internal error: ")


class _Timeout(BaseException):
    """Raised into the driver by SIGPROF/SIGALRM: the input ran too long."""


@dataclass
class Result:
    outcome: str
    seconds: float
    stderr: str
    stdout: str = ""


def classify(status: int, stderr: str, timed_out: bool, leaked: int = 0) -> str:
    """One outcome for a finished run (see the module docstring)."""
    if timed_out:
        return "hang"
    # (at a line's start: an error quotes its source line, which may say
    # anything, "internal error" included)
    lines = stderr.splitlines()
    if any(line.startswith("Traceback (most recent call last)") for line in lines):
        return "traceback"
    if any(_INTERNAL.match(line) for line in lines):
        return "internal"
    if leaked:
        return "warning"
    if status == 0:
        return "success"
    # (a report on stderr may come first)
    if status == 1 and any(_LOCATED.match(line) for line in lines):
        return "diagnostic"
    return "unclassified"


@dataclass
class Bounded:
    """What a call run under the time bound did."""

    value: Any = None
    status: int = 0
    timed_out: bool = False
    seconds: float = 0.0
    stdout: str = ""
    stderr: str = ""
    leaked: list[str] = field(default_factory=list)  # warnings, as shown


def bounded(
    call: Callable[[], Any], time_bound: float, wall_bound: float | None = None
) -> Bounded:
    """``call()`` in this process with its output and warnings captured, ended
    by ``_Timeout`` past ``time_bound`` CPU seconds (or ``wall_bound``,
    default four times it, of wall time); ``SystemExit`` is its status."""
    from xdsl.ir import Attribute

    post_init = Attribute.__post_init__  # --disable-verify replaces it globally
    err, out = io.StringIO(), io.StringIO()
    run = Bounded()

    def alarm(signum, frame):
        run.timed_out = True
        raise _Timeout

    # The bound is CPU time (SIGPROF), so a loaded machine does not turn a
    # slow run into a "hang"; a wall-clock guard of four times it catches a
    # run that blocks without computing.
    previous = {s: signal.signal(s, alarm) for s in (signal.SIGPROF, signal.SIGALRM)}
    signal.setitimer(signal.ITIMER_PROF, time_bound)
    signal.setitimer(signal.ITIMER_REAL, wall_bound or 4 * time_bound)
    started = time.perf_counter()
    try:
        with (
            contextlib.redirect_stderr(err),
            contextlib.redirect_stdout(out),
            warnings.catch_warnings(record=True) as caught,
        ):
            warnings.simplefilter("always")
            run.value = call()
    except SystemExit as e:
        run.status = e.code if isinstance(e.code, int) else 1
    except _Timeout:
        run.status = 1
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.setitimer(signal.ITIMER_REAL, 0)
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        Attribute.__post_init__ = post_init
    run.seconds = time.perf_counter() - started
    run.stdout, run.stderr = out.getvalue(), err.getvalue()
    run.leaked = [
        f"{w.filename}:{w.lineno}: {w.category.__name__}: {w.message}"
        for w in caught
        if _leaks(w)
    ]
    return run


def _leaks(w: warnings.WarningMessage) -> bool:
    """A warning a user would see from sbpc: numpy's floating-point ones, or
    any raised in sbpc's own code."""
    here = str(ROOT)
    in_sbpc = w.filename.startswith(here) and "/.venv/" not in w.filename
    return issubclass(w.category, RuntimeWarning) or in_sbpc


def run_driver(
    argv: Sequence[str], time_bound: float, wall_bound: float | None = None
) -> Result:
    """``sbpc-opt argv`` in this process, its output captured."""
    from sbpc.tools.sbpc_opt import main

    run = bounded(lambda: main(list(argv)), time_bound, wall_bound)
    stderr = run.stderr + "".join(f"\n(leaked) {w}" for w in run.leaked)
    outcome = classify(run.status, run.stderr, run.timed_out, len(run.leaked))
    return Result(outcome, run.seconds, stderr, run.stdout)


@dataclass
class Campaign:
    """Counts per outcome, and the inputs that went wrong."""

    counts: Counter[str] = field(default_factory=Counter)
    failures: list[tuple[str, list[str], str, str]] = field(default_factory=list)
    seconds: float = 0.0
    programs_checked: int = 0  # emitted programs whose numbers were checked
    programs_skipped: int = 0  # too many devices or too large to run here
    api_cases: int = 0
    api_checked: int = 0  # distributed functions compared with jax.jit

    @property
    def runs(self) -> int:
        return sum(self.counts.values())

    @property
    def bad(self) -> int:
        return sum(self.counts[o] for o in BAD)

    def summary(self) -> str:
        parts = [
            f"{o} {self.counts[o]}"
            for o in ("success", "diagnostic", *BAD)
            if o in self.counts or o in BAD
        ]
        return (
            f"{self.runs} inputs in {self.seconds:.0f} s: "
            + ", ".join(parts)
            + f" (numbers of {self.programs_checked} emitted programs checked, "
            f"{self.programs_skipped} skipped; {self.api_cases} distribute calls, "
            f"{self.api_checked} compared with jax.jit)"
        )

    def add(
        self, name: str, argv: list[str], text: str, outcome: str, why: str
    ) -> None:
        self.counts[outcome] += 1
        if outcome in BAD:
            self.failures.append((name, argv, text, why))


def cases(
    seed: int, chunks: list[tuple[str, str]]
) -> Iterator[tuple[str, str, random.Random]]:
    """(name, mutated text, rng for the command line) forever, from ``seed``;
    one in seven joins two or three chunks with ``// -----``."""
    rng = random.Random(seed)
    # Inputs with a placement or a Shardy mesh reach every pass: drawn
    # three times as often.
    weights = [
        3 if "sbp.placement" in text or "sdy.mesh" in text else 1 for _, text in chunks
    ]
    for n in range(1 << 62):
        parts, names = [], []
        for _ in range(rng.choice([2, 3]) if rng.random() < 1 / 7 else 1):
            ((name, text),) = rng.choices(chunks, weights)
            mutated, how = mutate(text, rng)
            parts.append(mutated)
            names.append(f"{name}:{'+'.join(how)}")
        yield (
            f"{n}:{'|'.join(names)}",
            "// -----".join(parts),
            random.Random(rng.random()),
        )


def campaign(
    seed: int,
    count: int,
    time_bound: float = 30.0,
    total_seconds: float | None = None,
    save: Path | None = None,
    progress: Callable[[Campaign], None] | None = None,
) -> Campaign:
    """Run ``count`` mutated inputs (fewer if ``total_seconds`` runs out)."""
    result = Campaign()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="sbpc-fuzz-") as tmp:
        path = os.path.join(tmp, "input.mlir")
        outputs = Outputs(tmp)
        for i, (name, text, rng) in enumerate(cases(seed, corpus())):
            if i >= count:
                break
            if (
                total_seconds is not None
                and time.perf_counter() - started > total_seconds
            ):
                break
            if rng.random() < API_SHARE:
                _api_case(rng, name, time_bound, result)
            else:
                with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
                    f.write(text)
                outputs.prepare()
                argv = random_argv(rng, path, text, tmp)
                run = run_driver(argv, time_bound)
                outcome, why = _judge(run, argv, outputs, time_bound, result)
                result.add(name, argv, text, outcome, why)
                if outcome in BAD and save is not None:
                    _save(save, len(result.failures), name, argv, text, outcome, why)
            result.seconds = time.perf_counter() - started
            if progress is not None:
                progress(result)
            if (i + 1) % 50 == 0:
                _forget_compiled()
    return result


def _judge(
    run: Result, argv: list[str], outputs: Outputs, time_bound: float, c: Campaign
) -> tuple[str, str]:
    """The outcome of a driver run, its output contract and its programs'
    numbers checked; and what to show for it."""
    if run.outcome not in ("success", "diagnostic"):
        return run.outcome, run.stderr
    status = 0 if run.outcome == "success" else 1
    if (broken := outputs.broken(argv, status)) is not None:
        return "output", broken
    if run.outcome != "success" or "jax" not in " ".join(argv):
        return run.outcome, run.stderr
    output = run.stdout
    if "-o" in argv:
        out = argv[argv.index("-o") + 1]
        out = (
            os.path.join(outputs.tmp, "target.txt") if out.endswith("link.txt") else out
        )
        if not os.path.isfile(out):
            return run.outcome, run.stderr
        with open(out, encoding="utf-8", errors="replace") as f:
            output = f.read()
    check = bounded(lambda: check_programs(output), time_bound)
    if check.timed_out:
        return "hang", "the numeric check of the emitted programs ran too long"
    found = check.value
    c.programs_checked += found.checked
    c.programs_skipped += found.skipped
    if found.wrong:
        return "wrong", "\n".join(found.wrong)
    return run.outcome, run.stderr


def _api_case(rng: random.Random, name: str, time_bound: float, c: Campaign) -> None:
    """One ``sbpc.jax.distribute`` call with mutated arguments."""
    case, fn, args = random_case(rng)
    c.api_cases += 1
    run = bounded(lambda: run_case(case, fn, args), time_bound)
    if run.timed_out:
        outcome, why = "hang", "ran past the time bound"
    elif run.leaked:
        outcome, why = "warning", "\n".join(run.leaked)
    else:
        outcome, why = run.value
        c.api_checked += outcome == "success" and not why
    c.add(f"{name.split(':')[0]}:api", ["(api)", case.describe()], "", outcome, why)


def _forget_compiled() -> None:
    """Drop JAX's compiled programs now and then: a campaign compiles
    thousands, each used once."""
    if "jax" in sys.modules:
        sys.modules["jax"].clear_caches()


def _save(
    folder: Path, n: int, name: str, argv: list[str], text: str, outcome: str, why: str
) -> None:
    """The failing input and how to replay it, for a lit test."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{n:04d}.mlir").write_text(text, errors="surrogateescape")
    (folder / f"{n:04d}.txt").write_text(
        f"{name}\n{outcome}\nargv: {argv[1:]}\n\n{why}", errors="surrogateescape"
    )


def main(args: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--time-bound",
        type=float,
        default=30.0,
        help="CPU seconds per input (wall clock: four times that)",
    )
    parser.add_argument("--save", type=Path, help="write failing inputs here")
    opts = parser.parse_args(args)

    def progress(c: Campaign) -> None:
        if c.runs % 100 == 0:
            print(c.summary(), file=sys.stderr, flush=True)

    result = campaign(
        opts.seed, opts.count, opts.time_bound, save=opts.save, progress=progress
    )
    print(result.summary())
    for name, argv, _, stderr in result.failures:
        print(f"\n{name}\nargv: {argv[1:]}\n{stderr.strip()[-2000:]}")
    return 1 if result.bad else 0


if __name__ == "__main__":
    sys.exit(main())
