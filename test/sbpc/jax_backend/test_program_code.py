"""The emitted program's text is compiled once: the same text gives the
same code object, other text is compiled anew, and errors stay errors."""

from __future__ import annotations

import pytest

from sbpc.jax_backend.program_code import program_code


def test_same_text_reuses_the_code_and_runs_as_compiled() -> None:
    source = "x = 6 * 7\n"
    first = program_code(source, "<a>")
    again = program_code("".join(["x = 6 ", "* 7\n"]), "<b>")  # equal, not identical
    assert again is first
    scope: dict[str, object] = {}
    exec(again, scope)
    assert scope["x"] == 42


def test_other_text_is_compiled_anew() -> None:
    first = program_code("y = 1\n", "<a>")
    other = program_code("y = 2\n", "<a>")
    assert other is not first
    scope: dict[str, object] = {}
    exec(other, scope)
    assert scope["y"] == 2


def test_a_syntax_error_is_raised_every_time() -> None:
    for _ in range(2):
        with pytest.raises(SyntaxError):
            program_code("def (:\n", "<bad>")
