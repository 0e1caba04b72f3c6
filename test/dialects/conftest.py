"""Fixtures shared by the fast parser tests (a fixture, not a helper module,
because pytest runs with ``--import-mode=importlib``)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from xdsl.parser import Parser

from sbpc.passes.pipeline import default_context


def _outcome(parser_type: type[Parser], text: str) -> str:
    """The printed module, or the error (message and place) parsing stopped at."""
    try:
        return str(parser_type(default_context(), text, "t.mlir").parse_module())
    except RecursionError:  # where the stack runs out depends on frame sizes
        return "RecursionError"
    except Exception as e:  # the error itself is what is compared
        return f"{type(e).__name__}: {e}"


@pytest.fixture(scope="session")
def outcome() -> Callable[[type[Parser], str], str]:
    """``outcome(parser_type, text)``: what parsing ``text`` gives, as a string."""
    return _outcome
