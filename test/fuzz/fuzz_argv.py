"""The fuzzer's command lines: every pass, option, target, flag and output mode.

``random_argv`` draws a pipeline (``sbp-import-sdy``, ``sbp-inline``,
``sbp-propagate`` with any of its options, ``sbp-lower-boxing``,
``sbp-export-sdy``), a target, flags, and where the output goes: stdout, a
file, a symbolic link (its target must get the output, the link must stay),
a dangling link, a full disk (``/dev/full``), a directory or a missing one.
Option values are drawn from the ones that work and, one time in seven,
from the ones that must be refused (out-of-range cost-model numbers
included).  ``Outputs`` sets the output files up before a run and checks
the output contract after it (``sbpc/output.py``).
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass

# Cost models: what works (the ends of the ranges included), then what must
# be refused (out of range, malformed).
COST_MODELS = (
    [
        "default",
        '"bw=1e11"',
        '"bw=1e11:1e9,lat=1e-6"',
        '"flops=1e12"',
        '"combine=1"',
        '"overhead=3e-5|overhead=7e-5"',
        '"bw=2e9,lat=1.5e-5,flops=1.7e10,hbm=2e9,flops_half=8"',
        '"transfer_bw=1e9,transfer_lat=1e-4"',
        '"bw=1e-3,lat=1e6,overhead=1e6,flops=1e-3,hbm=1e-3"',
        '"bw=1e21,lat=1e-15,flops=1e21"',
    ],
    [
        '"bw=0"',
        '"bw=-1"',
        '"zzz"',
        '"bw=1e11 lat=1"',
        "bw=0",
        '"bw=nan"',
        '"lat=1e308"',
        '"bw=1e-308"',
        '"flops=1e-308"',
        '"overhead=1e308"',
        '"flops_half=1e300"',
        '"combine=2"',
        '"bw=1:2:3,lat=1:2"',
        '"bw=1e9|flops=1"',
        '"|"',
    ],
)

# Per sbp-propagate option: values that work, then values that must be refused.
OPTION_VALUES = {
    "strategy": (["greedy", "bfs", "optimal"], ["nosuch", '""', "1"]),
    "memory_budget": (
        ["1000", "30000", "1e30", "1.5e5", '"1e9"', "1e308"],
        ["1", "-5", "0", "abc", "true", "nan"],
    ),
    "time_limit": (["0.5", "1", "2.5", "1e3"], ["0", "-1", "x", "inf"]),
    "cost_model": COST_MODELS,
    "report": (
        ["-", '"{tmp}/plan.txt"', '""', '"{tmp}/report-link.txt"'],
        ['"{tmp}"', '"{tmp}/no/plan.txt"', "{tmp}/plan.txt", '"/dev/full"'],
    ),
    "report_format": (["text", "json", "text", "json", "html", "dot"], ["yaml", "1"]),
    "trip_count": (["0", "1", "5"], ["-1", "x"]),
    "cluster": (["0", "1"], ["-1", "x"]),
}

TARGETS = (
    ["jax"] * 10
    + ["mlir"] * 4
    + ["jax{function=main}", "jax{combine-bytes=0}", "jax{combine-bytes=1048576}"]
    + ["jax{", "nosuch", "jax{combine-bytes=-1}", "jax{nosuch=1}"]
    + ["jax{function=nosuch}"]
)
FLAGS = (
    "--split-input-file",
    "--verify-diagnostics",
    "--no-sbp-verify",
    "--timing",
    "--quiet",
    "--no-implicit-module",
    "--print-op-generic",
    "--disable-verify",
)


def _value(rng: random.Random, key: str) -> str:
    good, bad = OPTION_VALUES[key]
    return rng.choice(bad if rng.random() < 0.15 else good)


def random_propagate(rng: random.Random, tmp: str) -> str:
    keys = rng.sample(sorted(OPTION_VALUES), rng.randrange(0, 5))
    if rng.random() < 0.7:  # keep the optimal strategy bounded, mostly
        keys = [k for k in keys if k != "time_limit"]
        options = [f"time_limit={rng.choice(['0.5', '1', '2'])}"]
    else:
        options = []
    options += [f"{k}={_value(rng, k).format(tmp=tmp)}" for k in keys]
    if rng.random() < 0.05:
        options.append(rng.choice(["nosuch=1", "strategy", "=", "report=/x y"]))
    return "sbp-propagate" + ("{" + " ".join(options) + "}" if options else "")


def random_passes(rng: random.Random, text: str, tmp: str) -> list[str]:
    """A pipeline, in the order the passes are meant to run (mostly)."""
    passes = []
    if rng.random() < (0.8 if "sdy." in text else 0.1):
        passes.append("sbp-import-sdy")
    if rng.random() < 0.6:
        passes.append("sbp-inline")
    if rng.random() < 0.8:
        passes.append(random_propagate(rng, tmp))
    if rng.random() < 0.6:
        lower = "sbp-lower-boxing"
        if rng.random() < 0.2:
            good, bad = COST_MODELS
            lower += (
                "{cost_model=" + rng.choice(bad if rng.random() < 0.3 else good) + "}"
            )
        passes.append(lower)
    if rng.random() < 0.08:
        passes.append(rng.choice(["sbp-export-sdy", "sbp-export-sdy{keep_sbp=true}"]))
    if rng.random() < 0.1 and len(passes) > 1:
        i = rng.randrange(len(passes) - 1)
        passes[i], passes[i + 1] = passes[i + 1], passes[i]
    if rng.random() < 0.03:
        passes.insert(rng.randrange(len(passes) + 1), rng.choice(["", "no-such", "{"]))
    return passes


def random_argv(rng: random.Random, path: str, text: str, tmp: str) -> list[str]:
    """A command line: pipeline, target, flags, and where the output goes;
    half the time the whole pipeline to ``-t jax`` (its program's numbers
    are then checked)."""
    argv = [path]
    if rng.random() < 0.5:
        passes = ["sbp-import-sdy"] if "sdy." in text else []
        passes += ["sbp-inline", random_propagate(rng, tmp), "sbp-lower-boxing"]
        argv += ["-p", ",".join(passes), "-t", "jax"]
    else:
        passes = random_passes(rng, text, tmp)
        if passes:
            argv += ["-p", ",".join(passes)]
        if rng.random() < 0.45:
            argv += ["-t", rng.choice(TARGETS)]
    for flag in FLAGS:
        if rng.random() < (0.15 if flag in FLAGS[:3] else 0.04):
            argv.append(flag)
    if rng.random() < 0.2:
        argv += ["-o", rng.choice(OUTPUTS).format(tmp=tmp)]
    return argv


# Where -o sends the output: a new file, a link onto ``target.txt``, a link
# to a missing directory, a full disk, a directory, a missing directory.
OUTPUTS = [
    "{tmp}/out.txt",
    "{tmp}/out.txt",
    "{tmp}/link.txt",
    "{tmp}/link.txt",
    "{tmp}/dangling.txt",
    "/dev/full",
    "{tmp}",
    "{tmp}/no/out.txt",
]
OLD = "old contents\n"


@dataclass
class Outputs:
    """The output files of one run: set up before it, checked after it."""

    tmp: str

    def prepare(self) -> None:
        """``target.txt`` with old contents, links onto it (``link.txt``,
        ``report-link.txt``), a dangling link, no other file but the input."""
        for name in os.listdir(self.tmp):
            if name != "input.mlir":
                path = os.path.join(self.tmp, name)
                if os.path.isdir(path) and not os.path.islink(path):
                    continue
                os.unlink(path)
        for name in ("target.txt", "report-target.txt"):
            with open(os.path.join(self.tmp, name), "w") as f:
                f.write(OLD)
        os.symlink("target.txt", os.path.join(self.tmp, "link.txt"))
        os.symlink("report-target.txt", os.path.join(self.tmp, "report-link.txt"))
        os.symlink("missing/out.txt", os.path.join(self.tmp, "dangling.txt"))

    def broken(self, argv: list[str], status: int) -> str | None:
        """How the run broke the output contract (None: it kept it): links
        stay links and their targets get the output (or keep theirs on a
        failure), a full disk is an error, no temporary file is left."""
        for link in ("link.txt", "report-link.txt", "dangling.txt"):
            if not os.path.islink(os.path.join(self.tmp, link)):
                return f"{link} is no longer a symbolic link"
        left = [n for n in os.listdir(self.tmp) if n.endswith(".tmp")]
        if left:
            return f"temporary files left behind: {left}"
        out = argv[argv.index("-o") + 1] if "-o" in argv else None
        # (with --verify-diagnostics every chunk may end in an expected
        # error: success with nothing written)
        wrote = status == 0 and "--verify-diagnostics" not in argv
        if out == "/dev/full" and wrote:
            return "-o /dev/full succeeded"
        if out is not None and out.endswith("/link.txt"):
            got = self._read("target.txt")
            if wrote and got == OLD:
                return "the link's target did not get the output"
            if status != 0 and got != OLD:
                return "a failed run changed the link's target"
        pipeline = " ".join(argv)
        if 'report="/dev/full"' in pipeline and wrote:
            return "a report onto /dev/full succeeded"
        linked = "report-link.txt" in pipeline and wrote
        if linked and self._read("report-target.txt") == OLD:
            return "the report link's target did not get the report"
        return None

    def _read(self, name: str) -> str:
        with open(os.path.join(self.tmp, name)) as f:
            return f.read()
