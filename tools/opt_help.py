"""What ``sbpc-opt --help`` says: sbpc's own passes and targets, on one screen.

``sbpc-opt`` is xDSL's optimizer driver underneath, so every pass and target
of the xDSL universe stays runnable (``-p canonicalize`` works), but the help
speaks of the tool it is, as ``mlir-opt --help`` does: sbpc's passes with one
line each and the ``mlir`` and ``jax`` targets. ``--help-all`` adds the rest
of xDSL's passes and targets.
"""

from __future__ import annotations

import argparse
import textwrap
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from sbpc.passes.universe import SBPC_UNIVERSE

#: The targets sbpc is for; the others come with xDSL.
SBPC_TARGETS = {
    "mlir": "the module as MLIR text (the default)",
    "jax": "a standalone JAX shard_map module (options: -t 'jax{function=NAME}')",
}

#: Short help for xDSL's generic options whose own text is long or, for
#: sbpc-opt, no longer true.
OPTION_HELP = {
    "passes": "comma-separated pass pipeline, e.g. "
    "'sbp-inline,sbp-propagate{strategy=optimal},sbp-lower-boxing' "
    "(passes below; --help-all lists xDSL's too)",
    "target": "output format (default mlir; targets below)",
    "verify_diagnostics": "check the diagnostics against the input's "
    "'// expected-error {{...}}' comments, as mlir-opt does",
    "parsing_diagnostics": "print a parse error and exit with status 0",
    "disable_verify": "do not verify the IR after each pass (the input still is)",
}


def summary(factory: Callable[[], type]) -> str:
    """The first line of a pass's docstring: what it does, in one line."""
    doc = (factory().__doc__ or "").strip()
    return doc.splitlines()[0] if doc else ""


def listing(title: str, rows: Iterable[tuple[str, str]]) -> str:
    """``title:`` then one ``  name  description`` row per entry."""
    rows = list(rows)
    width = max((len(name) for name, _ in rows), default=0) + 2
    lines = [f"{title}:"]
    for name, text in rows:
        body = textwrap.wrap(text, 78 - width - 2) or [""]
        lines.append(f"  {name.ljust(width)}{body[0]}")
        lines += [" " * (width + 2) + more for more in body[1:]]
    return "\n".join(lines)


def sbpc_epilog() -> str:
    """The passes and targets that ``--help`` lists."""
    passes = [(name, summary(f)) for name, f in SBPC_UNIVERSE.all_passes.items()]
    return "\n\n".join(
        [
            listing("sbpc passes (-p)", passes),
            listing("targets (-t)", SBPC_TARGETS.items()),
            textwrap.fill(
                "docs/passes.md describes every pass option; --help-all lists "
                "xDSL's passes, and xdsl-opt runs sbpc's passes next to them.",
                78,
            ),
        ]
    )


def with_sbpc_epilog(parser: argparse.ArgumentParser) -> Callable[[], str]:
    """``parser.format_help`` that first sets its epilog (``sbpc_epilog``).

    The epilog reads each pass's docstring, which imports every pass module
    (about 0.3 s of a 1 s start): only a run that prints the help makes it."""
    plain = parser.format_help

    def format_help() -> str:
        if parser.epilog is None:
            parser.epilog = sbpc_epilog()
        return plain()

    return format_help


def xdsl_epilog(passes: Mapping[str, Any], targets: Mapping[str, Any]) -> str:
    """The rest of the universe, for ``--help-all``."""
    ours = set(SBPC_UNIVERSE.all_passes) | set(SBPC_TARGETS)
    other_passes = ", ".join(sorted(p for p in passes if p not in ours))
    other_targets = ", ".join(sorted(t for t in targets if t not in ours))
    fill = textwrap.TextWrapper(78, initial_indent="  ", subsequent_indent="  ")
    return (
        f"xDSL's passes (also runnable here):\n{fill.fill(other_passes)}\n\n"
        f"xDSL's targets:\n{fill.fill(other_targets)}"
    )


#: xDSL's options that concern xDSL's own work (reducing test cases, printing
#: for other tools): shown by ``--help-all`` only.
XDSL_ONLY = (
    "frontend",
    "no_implicit_module",
    "print_no_properties",
    "print_debuginfo",
    "syntax_highlight",
    "shrink",
    "time_passes",
)


def shorten_options(parser: argparse.ArgumentParser) -> dict[str, str | None]:
    """Give xDSL's generic options the short help of ``OPTION_HELP`` and hide
    ``XDSL_ONLY``; returns the hidden options' own help for ``--help-all``."""
    hidden: dict[str, str | None] = {}
    parser.usage = "sbpc-opt [options] [input_file]"
    for action in parser._actions:
        if action.dest in OPTION_HELP:
            action.help = OPTION_HELP[action.dest]
        elif action.dest in XDSL_ONLY:
            hidden[action.dest] = action.help
            action.help = argparse.SUPPRESS
    return hidden


class HelpAllAction(argparse.Action):
    """``--help-all``: the usual help, then every xDSL pass and target."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: Any) -> None:
        self.universe: Callable[[], tuple[Mapping, Mapping]] = kwargs.pop("universe")
        self.hidden: dict[str, str | None] = kwargs.pop("hidden")
        super().__init__(option_strings, dest, nargs=0, help=kwargs.get("help"))

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        passes, targets = self.universe()
        for action in parser._actions:
            if action.dest in self.hidden:
                action.help = self.hidden[action.dest]
        parser.print_help()
        print("\n" + xdsl_epilog(passes, targets))
        parser.exit()
