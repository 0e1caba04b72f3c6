"""sbpc's own fuzzer: grammar-aware mutations of real inputs, run in-process.

Inputs are the ``.mlir`` files of ``examples/`` and ``test/`` (split at
``// -----``), mutated the way a user or a tool gets MLIR wrong: numbers out
of range, shapes and layouts that disagree, ops and types swapped, SSA names
crossed, text truncated or nested deep, bytes that are not text.  Each one
runs through ``sbpc-opt``'s real ``main`` with a random pipeline, target and
flags (option values themselves mutated), and ends in one ``Outcome``:

- ``success``: exit 0;
- ``diagnostic``: exit 1 and every error line a located
  ``file:line:col: error:`` or ``sbpc-opt: error:`` (what users should see);
- ``traceback`` / ``internal``: a Python traceback, or the driver's
  ``internal error`` (a bug in sbpc);
- ``hang``: the input ran past the per-input bound (CPU seconds, or four
  times that in wall-clock seconds);
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
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BAD = ("traceback", "internal", "hang", "unclassified")

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


def mutate(text: str, rng: random.Random) -> tuple[str, list[str]]:
    """``text`` after one to three mutations (none, one time in ten: the
    command line is then what is fuzzed), and their names."""
    if rng.random() < 0.1:
        return text, ["none"]
    names = []
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        mutator = rng.choice(MUTATORS)
        text = mutator(text, rng)
        names.append(mutator.__name__)
    return text, names


# -- command lines -------------------------------------------------------------

# Per option: values that work, then values that must be refused.
OPTION_VALUES = {
    "strategy": (["greedy", "bfs", "optimal"], ["nosuch", '""', "1"]),
    "memory_budget": (
        ["1000", "30000", "1e30", "1.5e5", '"1e9"'],
        ["1", "-5", "0", "abc", "true"],
    ),
    "time_limit": (["1", "2.5"], ["0", "-1", "x"]),
    "cost_model": (
        ["default", '"bw=1e11"', '"bw=1e11:1e9,lat=1e-6"', '"flops=1e12"'],
        ['"bw=0"', '"bw=-1"', '"zzz"', '"bw=1e11 lat=1"', "bw=0", '"bw=nan"'],
    ),
    "report": (
        ["-", '"{tmp}/plan.txt"', '""'],
        ['"{tmp}"', '"{tmp}/no/plan.txt"', "{tmp}/plan.txt"],
    ),
    "report_format": (["text", "json"], ["yaml", "1"]),
}


def _value(rng: random.Random, key: str) -> str:
    good, bad = OPTION_VALUES[key]
    return rng.choice(bad if rng.random() < 0.15 else good)


def random_propagate(rng: random.Random, tmp: str) -> str:
    keys = rng.sample(sorted(OPTION_VALUES), rng.randrange(0, 4))
    if rng.random() < 0.7:  # keep the optimal strategy bounded, mostly
        keys = [k for k in keys if k != "time_limit"]
        options = [f"time_limit={rng.choice(['1', '2'])}"]
    else:
        options = []
    options += [f"{k}={_value(rng, k).format(tmp=tmp)}" for k in keys]
    if rng.random() < 0.05:
        options.append(rng.choice(["nosuch=1", "strategy", "=", "report=/x y"]))
    return "sbp-propagate" + ("{" + " ".join(options) + "}" if options else "")


def random_argv(rng: random.Random, path: str, tmp: str) -> list[str]:
    """A command line: pipeline, target, flags, maybe ``-o``."""
    passes = []
    if rng.random() < 0.6:
        passes.append("sbp-inline")
    if rng.random() < 0.8:
        passes.append(random_propagate(rng, tmp))
    if rng.random() < 0.6:
        passes.append("sbp-lower-boxing")
    if rng.random() < 0.03:
        passes.insert(rng.randrange(len(passes) + 1), rng.choice(["", "no-such", "{"]))
    argv = [path]
    if passes:
        argv += ["-p", ",".join(passes)]
    if rng.random() < 0.3:
        targets = ["jax", "mlir"] * 8 + ["jax{combine-bytes=0}"] * 2
        targets += ["jax{", "nosuch", "jax{combine-bytes=-1}", "jax{nosuch=1}"]
        argv += ["-t", rng.choice(targets)]
    for flag in ("--split-input-file", "--verify-diagnostics", "--no-sbp-verify"):
        if rng.random() < 0.15:
            argv.append(flag)
    if rng.random() < 0.15:
        argv += ["-o", rng.choice([f"{tmp}/out.txt"] * 4 + [tmp, f"{tmp}/no/out.txt"])]
    return argv


# -- running -------------------------------------------------------------------

# A located error (``--verify-diagnostics`` names only the line of a missing
# expectation) or a command-line one.
_LOCATED = re.compile(r"^(?!<unknown>:0:0)(?:\S.*?:\d+(?::\d+)?|sbpc-opt): error: ")


class _Timeout(BaseException):
    """Raised into the driver by SIGPROF/SIGALRM: the input ran too long."""


@dataclass
class Result:
    outcome: str
    seconds: float
    stderr: str


def classify(status: int, stderr: str, timed_out: bool) -> str:
    """One outcome for a finished run (see the module docstring)."""
    if timed_out:
        return "hang"
    if "Traceback (most recent call last)" in stderr:
        return "traceback"
    if "internal error" in stderr:
        return "internal"
    if status == 0:
        return "success"
    # (a report on stderr may come first)
    if status == 1 and any(_LOCATED.match(line) for line in stderr.splitlines()):
        return "diagnostic"
    return "unclassified"


def run_driver(
    argv: Sequence[str], time_bound: float, wall_bound: float | None = None
) -> Result:
    """``sbpc-opt argv`` in this process, its output captured."""
    from xdsl.ir import Attribute

    from sbpc.tools.sbpc_opt import main

    post_init = Attribute.__post_init__  # --disable-verify replaces it globally
    err, out = io.StringIO(), io.StringIO()
    timed_out = False

    def alarm(signum, frame):
        nonlocal timed_out
        timed_out = True
        raise _Timeout

    # The bound is CPU time (SIGPROF), so a loaded machine does not turn a
    # slow run into a "hang"; a wall-clock guard of four times it catches a
    # run that blocks without computing.
    previous = {s: signal.signal(s, alarm) for s in (signal.SIGPROF, signal.SIGALRM)}
    signal.setitimer(signal.ITIMER_PROF, time_bound)
    signal.setitimer(signal.ITIMER_REAL, wall_bound or 4 * time_bound)
    started = time.perf_counter()
    status = 0
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
            main(list(argv))
    except SystemExit as e:
        status = e.code if isinstance(e.code, int) else 1
    except _Timeout:
        status = 1
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.setitimer(signal.ITIMER_REAL, 0)
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        Attribute.__post_init__ = post_init
    seconds = time.perf_counter() - started
    return Result(classify(status, err.getvalue(), timed_out), seconds, err.getvalue())


@dataclass
class Campaign:
    """Counts per outcome, and the inputs that went wrong."""

    counts: Counter[str] = field(default_factory=Counter)
    failures: list[tuple[str, list[str], str, str]] = field(default_factory=list)
    seconds: float = 0.0

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
        return f"{self.runs} inputs in {self.seconds:.0f} s: " + ", ".join(parts)


def cases(
    seed: int, chunks: list[tuple[str, str]]
) -> Iterator[tuple[str, str, random.Random]]:
    """(name, mutated text, rng for the command line) forever, from ``seed``."""
    rng = random.Random(seed)
    # Inputs with a placement reach every pass: drawn three times as often.
    weights = [3 if "sbp.placement" in text else 1 for _, text in chunks]
    for n in range(1 << 62):
        ((name, text),) = rng.choices(chunks, weights)
        mutated, how = mutate(text, rng)
        yield f"{n}:{name}:{'+'.join(how)}", mutated, random.Random(rng.random())


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
        for i, (name, text, rng) in enumerate(cases(seed, corpus())):
            if i >= count:
                break
            if (
                total_seconds is not None
                and time.perf_counter() - started > total_seconds
            ):
                break
            with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
                f.write(text)
            argv = random_argv(rng, path, tmp)
            run = run_driver(argv, time_bound)
            result.counts[run.outcome] += 1
            if run.outcome in BAD:
                result.failures.append((name, argv, text, run.stderr))
                if save is not None:
                    _save(save, len(result.failures), name, argv, text, run)
            result.seconds = time.perf_counter() - started
            if progress is not None:
                progress(result)
    return result


def _save(
    folder: Path, n: int, name: str, argv: list[str], text: str, run: Result
) -> None:
    """The failing input and how to replay it, for a lit test."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{n:04d}.mlir").write_text(text, errors="surrogateescape")
    (folder / f"{n:04d}.txt").write_text(
        f"{name}\n{run.outcome} after {run.seconds:.1f} s\nargv: {argv[1:]}\n\n{run.stderr}"
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
