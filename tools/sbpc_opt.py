"""``sbpc-opt``: xDSL's optimizer driver with sbpc's dialects, passes and targets.

On top of ``xdsl-opt`` it gives what users of ``mlir-opt`` expect:

- every op remembers where it was parsed (a ``FileLineColLoc``), so verifier
  and pass errors are reported as ``file:line:col: error: message``;
- ``--verify-diagnostics`` checks produced diagnostics against
  ``// expected-error {{...}}`` (and ``-warning``, ``-remark``, ``-note``, with
  ``@above``, ``@below``, ``@+N``, ``@-N``) as mlir-opt does;
- any failure exits with status 1 and no Python traceback (set
  ``SBPC_TRACEBACK=1`` to see one for an internal error).
"""

from __future__ import annotations

import argparse
import contextlib
import inspect
import math
import re
import struct
import sys
from bisect import bisect_right
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from functools import lru_cache
from typing import IO, NoReturn

from xdsl.dialects.builtin import (
    FileLineColLoc,
    FunctionType,
    IntAttr,
    ModuleOp,
    StringAttr,
    TensorType,
    UnknownLoc,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.parser.core import ForwardDeclaredValue
from xdsl.passes import ModulePass
from xdsl.utils.arg_spec import parse_spec
from xdsl.utils.exceptions import (
    ArgSpecParseError,
    DiagnosticException,
    ParseError,
    VerifyException,
)
from xdsl.utils.lexer import Span
from xdsl.xdsl_opt_main import xDSLOptMain

from sbpc.algebra.tensor_type import MAX_DENSE_ELEMENTS, size_error
from sbpc.collector import collector_paused
from sbpc.dialects.diagnostics import (
    Diagnostic,
    LocatedError,
    make_diagnostic,
    set_sink,
)
from sbpc.dialects.fast_parser import FastParser
from sbpc.dialects.module_verify import VerifyMemo
from sbpc.dialects.ssa_order import verify_ssa_order
from sbpc.output import Output, open_output
from sbpc.propagation import progress
from sbpc.propagation.progress import Progress, reporting
from sbpc.timing import Timer, phase

from .cli import run_and_exit
from .opt_help import HelpAllAction, shorten_options, with_sbpc_epilog
from .pipeline_text import quote_paths


class LocatingParser(FastParser):
    """A parser that records where each operation and SSA use appears.

    It lexes and parses types through ``FastParser`` (same IR, same
    diagnostics, a few times faster on big modules).
    """

    def __init__(self, ctx, text: str | bytes, name: str, line_offset: int = 0) -> None:
        super().__init__(ctx, text, name)
        self._line_offset = line_offset
        self._first_use: dict[str, Span] = {}
        # A value used before its definition, by name; and whether any such
        # use was resolved (``_stale_forward``).
        self._forward_names: dict[ForwardDeclaredValue, str] = {}
        self._resolved_forward = False
        self._line_starts: list[int] | None = None

    def _loc(self, span: Span) -> FileLineColLoc:
        # Span.get_location counts newlines from the start of the input on
        # every call (quadratic in a module of thousands of ops): look the
        # line up in an index of line starts made once instead.
        if self._line_starts is None:
            content = span.input.content
            newline = span.input.newline
            starts = [0]
            at = content.find(newline)
            while at >= 0:
                starts.append(at + 1)
                at = content.find(newline, at + 1)
            self._line_starts = starts
        line = bisect_right(self._line_starts, span.start)
        col = span.start - self._line_starts[line - 1] + 1
        return FileLineColLoc(
            StringAttr(span.input.name),
            IntAttr(line + span.line_offset + self._line_offset),
            IntAttr(col),
        )

    def parse_operation(self) -> Operation:
        span = self._current_token.span
        try:
            op = super().parse_operation()
        except _VALUE_FAULTS as e:
            # An attribute xDSL cannot build (an integer out of its type's
            # range, ...): the user's input, reported at the op holding it.
            self.raise_error(_fault_message(e), span)
        if isinstance(op.location, UnknownLoc):
            op.location = self._loc(span)
        for t in _types_of(op):
            if (why := _too_large(t)) is not None:
                self.raise_error(f"{t} is too large for sbpc: {why}", span)
        return op

    def _parse_dense_literal_type(self):  # type: ignore[no-untyped-def]
        # xDSL expands a dense literal (a splat included) element by element
        # once it has read the type: bound the count before it does.
        start = self._current_token.span.start
        t = super()._parse_dense_literal_type()
        n = math.prod(t.get_shape())
        if n > MAX_DENSE_ELEMENTS:
            self.raise_error(
                f"a dense literal of {n} elements is more than sbpc reads "
                f"({MAX_DENSE_ELEMENTS}; it would be expanded element by element)",
                start,
                self._current_token.span.start,
            )
        return t

    def resolve_operand(self, operand, type: Attribute) -> SSAValue:  # type: ignore[override]
        if operand.operand_name not in self.ssa_values:
            self._first_use.setdefault(operand.operand_name, operand.span)
        value = super().resolve_operand(operand, type)
        if isinstance(value, ForwardDeclaredValue):
            self._forward_names[value] = operand.operand_name
        return value

    def _register_ssa_definition(
        self, name: str, values: Sequence[SSAValue], span: Span
    ) -> None:
        if name in self.forward_ssa_references:
            self._resolved_forward = True
        super()._register_ssa_definition(name, values, span)

    def _stale_forward(self, module: ModuleOp) -> None:
        """Fail on an operand still a forward reference after the parse.

        xDSL resolves a forward reference by replacing its uses, but an op's
        operands are read before its regions are parsed and the op is built
        after: ``stablehlo.while(%x = %x)`` takes the region's own block
        argument ``%x`` as its operand's definition and keeps the forward
        placeholder (MLIR: a use of an undeclared value).  Walked only when
        some forward reference was resolved, none in JAX's output."""
        if not self._resolved_forward:
            return
        for op in module.walk():
            for operand in op.operands:
                if isinstance(operand, ForwardDeclaredValue):
                    name = self._forward_names.get(operand, "?")
                    self.raise_error(
                        f"use of undeclared SSA value %{name}",
                        self._first_use.get(name),
                    )

    def parse_module(self, allow_implicit_module: bool = True) -> ModuleOp:
        if self._current_token.kind.name == "EOF":
            self.raise_error("empty input: expected an operation or a module")
        try:
            module = super().parse_module(allow_implicit_module)
            if isinstance(module.location, UnknownLoc):  # an implicit module
                module.location = self._loc(Span(0, 0, self.lexer.input))
            self._stale_forward(module)
            return module
        except RecursionError:
            # The stack is unwound here; the token reached is where it got deep.
            self.raise_error(
                "input nested too deeply (brackets, types or regions)",
                self._current_token.span,
            )
        except _VALUE_FAULTS as e:
            self.raise_error(_fault_message(e), self._current_token.span)
        except ParseError as e:
            # xDSL reports undefined values at the end of input; MLIR at the use.
            if self.forward_ssa_references and e.msg.startswith("values used but"):
                name = next(iter(self.forward_ssa_references))
                self.raise_error(
                    f"use of undeclared SSA value %{name}", self._first_use.get(name)
                )
            raise


def _types_of(op: Operation) -> list[Attribute]:
    """The types an op holds: its results', operands' and, for a function,
    its signature's (an unused argument is read by the passes too)."""
    types = [*op.result_types, *op.operand_types]
    # (read as a property: a generic-form op may lack it, unverified yet)
    function_type = op.properties.get("function_type")
    if isinstance(function_type, FunctionType):
        types += [*function_type.inputs, *function_type.outputs]
    return types


@lru_cache(maxsize=4096)
def _too_large(t: Attribute) -> str | None:
    """Why a tensor type is too large for sbpc (``size_error``), or None."""
    if not isinstance(t, TensorType):
        return None
    shape = tuple(t.get_shape())
    return size_error(tuple(max(d, 0) for d in shape), str(t.element_type))


# What xDSL raises, while parsing, for values it cannot represent.
_VALUE_FAULTS = (ValueError, OverflowError, struct.error, VerifyException)


def _fault_message(e: BaseException) -> str:
    message = str(e).strip() or type(e).__name__
    if isinstance(e, struct.error):  # numbers packed into a fixed-width array
        message = f"integer out of range for its type ({message})"
    return message


@dataclass(frozen=True)
class Expectation:
    severity: str
    line: int
    text: str
    regex: bool
    comment_line: int


_EXPECT_RE = re.compile(
    r"expected-(error|warning|remark|note)\s*(?:@(above|below|[+-]\d+))?\s*\{\{(.*?)\}\}"
)
_EXPECT_RE_REGEX = re.compile(
    r"expected-(error|warning|remark|note)-re\s*(?:@(above|below|[+-]\d+))?\s*\{\{(.*?)\}\}"
)


def parse_expectations(text: str, line_offset: int) -> list[Expectation]:
    """The ``// expected-*`` comments of a chunk, with the line each targets."""
    out: list[Expectation] = []
    for index, line in enumerate(text.splitlines(), start=1):
        if "//" not in line:
            continue
        comment = line[line.index("//") :]
        number = index + line_offset
        for regex, pattern in ((False, _EXPECT_RE), (True, _EXPECT_RE_REGEX)):
            for m in pattern.finditer(comment):
                severity, where, body = m.groups()
                target = number
                if where == "above":
                    target = number - 1
                elif where == "below":
                    target = number + 1
                elif where:
                    target = number + int(where)
                out.append(Expectation(severity, target, body, regex, number))
    return out


def _matches(exp: Expectation, diag: Diagnostic) -> bool:
    if exp.severity != diag.severity or exp.line != diag.line:
        return False
    if exp.regex:
        return re.search(exp.text, diag.message) is not None
    return exp.text in diag.message


DESCRIPTION = """\
Distribute a single-device tensor program (StableHLO, linalg) with SBP
layouts: propagate them, lower every layout change to collectives, emit a
JAX shard_map module."""


class SbpcOptMain(xDSLOptMain):
    """The driver behind ``sbpc-opt``."""

    def __init__(self, args: Sequence[str] | None = None) -> None:
        self._line_offset = 0
        self._chunk_text = ""
        try:
            super().__init__(description=DESCRIPTION, args=args)
        except ArgSpecParseError as e:  # a -t spec xDSL cannot lex
            raise _UsageError(f"bad target (-t): {str(e).rstrip()}") from None

    version_format = "sbpc-opt built from xdsl version {xdsl_version}"

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        super().register_all_arguments(arg_parser)
        arg_parser.error = _usage_error  # type: ignore[method-assign]
        arg_parser.formatter_class = argparse.RawDescriptionHelpFormatter
        arg_parser.format_help = with_sbpc_epilog(arg_parser)  # type: ignore[method-assign]
        arg_parser.add_argument(
            "--help-all",
            action=HelpAllAction,
            universe=lambda: (self.available_passes, self.available_targets),
            hidden=shorten_options(arg_parser),
            help="this help, then xDSL's own passes and targets",
        )
        arg_parser.add_argument(
            "--no-sbp-verify",
            default=False,
            action="store_true",
            help="skip verifying sbp annotations (placements, nd_sbp, sig) after parsing",
        )
        arg_parser.add_argument(
            "--quiet",
            default=False,
            action="store_true",
            help="no progress lines on a terminal (never shown when stderr is not one)",
        )
        arg_parser.add_argument(
            "--timing",
            default=False,
            action="store_true",
            help="print wall time per phase (parse, each pass, emit, print) to "
            "stderr, as mlir-opt -mlir-timing",
        )

    def register_all_frontends(self) -> None:
        def parse_mlir(io: IO[bytes]) -> ModuleOp:
            text = io.read().decode("utf-8", errors="replace")
            self._chunk_text = text
            parser = LocatingParser(
                self.ctx, text, self.get_input_name(), self._line_offset
            )
            return parser.parse_module(not self.args.no_implicit_module)

        self.available_frontends["mlir"] = parse_mlir

    def get_input_name(self) -> str:
        return (
            self.args.input_file
            if self.args.input_file not in (None, "-")
            else "<stdin>"
        )

    def get_input_stream(self) -> tuple[IO[bytes], str]:
        if self.args.input_file in (None, "-"):
            return sys.stdin.buffer, "mlir"
        try:
            return open(self.args.input_file, "rb"), "mlir"
        except OSError as e:
            raise _UsageError(
                f"cannot open input file '{self.args.input_file}': {e.strerror}"
            ) from None

    def setup_pipeline(self) -> None:
        if self.args.passes:  # report=plan.html, as mlir-opt takes it
            self.args.passes = quote_paths(self.args.passes)
        try:
            super().setup_pipeline()
            self._check_target()
        # Unknown pass, bad option, or a pipeline xDSL cannot lex (its error
        # is a BaseException): the user's, said without a traceback.
        except (Exception, ArgSpecParseError) as e:
            message = str(e).rstrip()
            if message.startswith("Incompatible types"):
                with contextlib.suppress(Exception, ArgSpecParseError):
                    message = self._which_option(message)
            if "Unknown token" in message:
                message += (
                    "\n(quote option values that hold characters other than "
                    "letters, digits, '_', '-' and '.', e.g. report=\"/tmp/plan.txt\")"
                )
            raise _UsageError(message) from e

    def _which_option(self, message: str) -> str:
        """xDSL's "Incompatible types: given (1,), expected str" names no
        option; find the one whose value does not convert."""
        import dataclasses
        from typing import get_type_hints

        from xdsl.utils.arg_spec import _convert_arg_to_type, parse_pipeline

        for spec in parse_pipeline(self.args.passes):
            factory = self.available_passes.get(spec.name)
            if factory is None:
                continue
            cls = factory()
            hints = get_type_hints(cls)
            fields = {f.name for f in dataclasses.fields(cls)}
            for name, value in spec.normalize_parameter_names().parameters.items():
                if name not in fields:
                    continue
                try:
                    _convert_arg_to_type(value, hints[name])
                except ValueError:
                    shown = " ".join(map(str, value)) if value else "(nothing)"
                    return (
                        f"{spec.name}: bad value for option {name}: {shown} ({message})"
                    )
        return message

    def _check_target(self) -> None:
        """Build the target once, so a bad target option fails before any pass runs."""
        spec = parse_spec(self.args.target)
        factory = self.available_targets.get(spec.name)
        if factory is not None and not inspect.signature(factory).parameters:
            factory().from_spec(spec)

    # -- running -----------------------------------------------------------

    def parse_chunk(self, chunk: IO[bytes], file_extension: str, start_offset: int = 0):
        self._line_offset = start_offset
        return super().parse_chunk(chunk, file_extension, start_offset)

    def apply_passes(self, prog: ModuleOp) -> None:
        # Even unverified IR must be acyclic: the passes walk def-use chains.
        verify_ssa_order(prog)
        # The input is verified even under --disable-verify, which skips the
        # checks after each pass (mlir-opt's parser always verifies): sbpc's
        # passes read what the verifiers guarantee (a generic func.func
        # without its signature was an internal KeyError).
        with phase("verify"):
            self.verify_module(prog, always=True)
        for p in self.pipeline.passes:
            with phase(p.name), progress.current().phase(p.name):
                p.apply(self.ctx, prog)
            if not self.args.disable_verify:
                with phase("verify"):
                    self.verify_module(prog, after=p)

    def verify_module(
        self, module: ModuleOp, after: ModulePass | None = None, always: bool = False
    ) -> None:
        """Verify op by op, so the error names the op (and so its location);
        under --disable-verify only when ``always`` (the input)."""
        if self.args.disable_verify and not always:
            return
        memo = VerifyMemo()  # each distinct plain op once (module_verify)
        for op in module.walk():
            key = memo.key(op)
            if memo.covered(op, key):
                continue
            try:
                op.verify(verify_nested_ops=False)
                memo.passed(key)
            except LocatedError:
                raise
            except VerifyException as e:
                prefix = f"after {after.name}: " if after is not None else ""
                raise LocatedError(op, prefix + str(e).strip()) from e
        if not self.args.no_sbp_verify:
            for check in module_verifiers():
                check(module)

    def run_chunks(self) -> int:
        """Process every chunk; returns the exit status."""
        chunks, file_extension = self.prepare_input()
        try:
            output = self.prepare_output()
        except BaseException:
            for chunk, _ in chunks:  # not read: closed here
                chunk.close()
            raise
        status = 1
        timer = Timer() if self.args.timing else None
        try:
            with timer.activate() if timer else nullcontext(), collector_paused():
                status = self._run_all(chunks, file_extension, output)
        finally:
            try:
                output.finish(keep=status == 0)
            finally:
                if timer is not None:
                    timer.stop()
                    print(timer.format(), file=sys.stderr)
        return status

    def prepare_output(self) -> Output:  # type: ignore[override]
        """stdout, or the ``-o`` file as a temporary one renamed on success,
        so a failed run leaves an existing file as it was (as mlir-opt);
        either way a write that fails is an ``OutputError`` (``sbpc.output``)."""
        return open_output(self.args.output_file)

    def _run_all(
        self,
        chunks: list[tuple[IO[bytes], int]],
        file_extension: str,
        output: Output,
    ) -> int:
        status = 0
        for i, (chunk, offset) in enumerate(chunks):
            if i > 0:
                output.write("// -----\n")
            raw = chunk.read()
            chunk.close()
            text = raw.decode("utf-8", errors="replace")
            if self.args.verify_diagnostics:
                status |= self._run_verified(text, offset, file_extension, output)
            else:
                status |= self._run_plain(text, offset, file_extension, output)
            output.flush()
        return status

    def _process(self, text: str, offset: int, ext: str) -> str:
        from io import BytesIO

        with phase("parse"):
            module = self.parse_chunk(BytesIO(text.encode()), ext, offset)
        self.apply_passes(module)
        target = parse_spec(self.args.target).name
        with (
            phase("print" if target == "mlir" else f"emit ({target})"),
            progress.current().phase(f"-t {self.args.target}"),
        ):
            return self.output_resulting_program(module)

    def _run_plain(self, text: str, offset: int, ext: str, output: Output) -> int:
        try:
            output.write(self._process(text, offset, ext))
            return 0
        except (ParseError, DiagnosticException) as e:
            print(format_error(e, offset), file=sys.stderr)
            return 1

    def _run_verified(self, text: str, offset: int, ext: str, output: Output) -> int:
        produced: list[Diagnostic] = []
        old = set_sink(produced.append)
        try:
            output.write(self._process(text, offset, ext))
        except ParseError as e:
            produced.append(parse_error_diagnostic(e, offset))
        except DiagnosticException as e:
            produced.append(exception_diagnostic(e))
        finally:
            set_sink(old)
        expected = parse_expectations(text, offset)
        failures: list[str] = []
        unmatched = list(produced)
        for exp in expected:
            hit = next((d for d in unmatched if _matches(exp, d)), None)
            if hit is None:
                failures.append(
                    f"{self.get_input_name()}:{exp.comment_line}: error: expected "
                    f'{exp.severity} "{exp.text}" on line {exp.line} was not produced'
                )
            else:
                unmatched.remove(hit)
        for d in unmatched:
            failures.append(
                f"{d.file}:{d.line}:{d.col}: error: unexpected {d.severity}: {d.message}"
            )
        for f in failures:
            print(f, file=sys.stderr)
        return 1 if failures else 0


class _UsageError(Exception):
    pass


def _usage_error(message: str) -> NoReturn:
    """A bad command line: ``sbpc-opt: error: ...`` and status 1, as every
    other user error (argparse's own handler exits 2 after a usage text)."""
    raise _UsageError(message)


def module_verifiers() -> list[Callable[[ModuleOp], None]]:
    """Whole-module checks run after parsing and after every pass."""
    checks: list[Callable[[ModuleOp], None]] = []
    try:
        from sbpc.dialects.sbp import verify_sbp_annotations
    except ImportError:  # the sbp dialect is not built yet
        return checks
    checks.append(verify_sbp_annotations)
    from sbpc.dialects.sdy import verify_sdy_shardings

    checks.append(verify_sdy_shardings)
    return checks


def parse_error_diagnostic(e: ParseError, offset: int) -> Diagnostic:
    loc = e.span.get_location()
    message = e.msg.strip()
    rest = e.span.input.content[e.span.start :]
    if not str(rest).strip():
        message = (
            f"unexpected end of input ({message})"
            if message
            else ("unexpected end of input")
        )
    return Diagnostic("error", message, loc.file, loc.line + offset, loc.col)


def exception_diagnostic(e: DiagnosticException) -> Diagnostic:
    if isinstance(e, LocatedError):
        return make_diagnostic("error", e.op, e.message)
    return make_diagnostic(
        "error",
        None,
        str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__,
    )


def format_error(e: ParseError | DiagnosticException, offset: int) -> str:
    """An MLIR-style error line; for parse errors, the source line and a caret."""
    if not isinstance(e, ParseError):
        return str(exception_diagnostic(e))
    diag = parse_error_diagnostic(e, offset)
    content = e.span.input.content
    content = (
        content.decode("utf-8", "replace") if isinstance(content, bytes) else content
    )
    start = min(e.span.start, len(content))
    line_start = content.rfind("\n", 0, start) + 1
    line_end = content.find("\n", start)
    source = content[line_start : line_end if line_end >= 0 else len(content)]
    caret = " " * (start - line_start) + "^"
    return "\n".join([str(diag), source, caret]) if source.strip() else str(diag)


def main(argv: Sequence[str] | None = None) -> None:
    def run() -> int:
        opt = SbpcOptMain(args=argv)
        with reporting(Progress.for_terminal(opt.args.quiet)):
            return opt.run_chunks()

    run_and_exit("sbpc-opt", run, (_UsageError,))


if __name__ == "__main__":
    main()
