"""``-t jax``: emit the boxed module as a standalone JAX ``shard_map`` program.

The module must have been through ``sbp-propagate`` and ``sbp-lower-boxing``
(every op has ``sbp.sig``, every layout change is a collective).  The
function emitted is ``function`` if given, else ``@main``, else the only
public one.  What the emitter cannot express is a located error.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.utils.target import Target

from sbpc.dialects.diagnostics import LocatedError
from sbpc.dialects.sbp.pipeline import pipeline_options
from sbpc.jax_backend.combine import DEFAULT_MAX_BYTES
from sbpc.jax_backend.emit import JaxEmitError, emit_jax
from sbpc.timing import phase

from .bridge.program import main_function, program_of
from .pipeline_target import pipeline_source


def jax_source(
    module: ModuleOp,
    function: str | None = None,
    combine_bytes: int = DEFAULT_MAX_BYTES,
    check: bool = True,
    lazy_reference: bool = False,
) -> str:
    """The Python source of the JAX program for one function of ``module``.

    ``combine_bytes``: the most bytes per device one combined collective
    carries (``sbpc.jax_backend.combine``); 0 runs every boxing step alone.
    ``check``: compile the text to prove it is Python, ``lazy_reference``:
    its reference when first called (``emit_jax``).
    """
    f = main_function(module, function)
    if pipeline_options(f) is not None:
        return pipeline_source(module, f, combine_bytes)
    origins: dict[str, Operation] = {}
    with phase("read program"):
        program = program_of(module, f, origins)
    try:
        with phase("write source"):
            return emit_jax(program, combine_bytes, check, lazy_reference)
    except JaxEmitError as e:
        at = origins.get(e.label, f)
        raise LocatedError(at, f"cannot lower to JAX: {e.message}") from e


@dataclass(frozen=True)
class JaxTarget(Target):
    """``sbpc-opt ... -t jax``; options ``-t 'jax{function=name combine-bytes=N}'``."""

    name = "jax"

    function: str = ""
    combine_bytes: int = DEFAULT_MAX_BYTES

    def __post_init__(self) -> None:
        if self.combine_bytes < 0:
            raise ValueError(
                f"jax target: combine-bytes must be >= 0, not {self.combine_bytes}"
            )

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        output.write(jax_source(module, self.function or None, self.combine_bytes))
