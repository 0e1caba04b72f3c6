"""The emitted program's text is compiled once: the same text gives the
same code object, other text is compiled anew, and errors stay errors."""

from __future__ import annotations

import pytest

from sbpc.jax_backend.program_code import forget, load, program_code


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


DEFERRED = '''import functools

x = 1


@functools.lru_cache
def later(a):
    """Compiled when first called."""
    return a + x + 1


def after():
    raise ValueError("after")
'''


def _span(source: str) -> tuple[int, int]:
    start = source.index("@functools")
    return start, source.index("\n\n\ndef after")


def test_a_deferred_definition_is_compiled_when_first_called() -> None:
    source = DEFERRED
    code = program_code(source, "<deferred>", _span(source))
    # Its text is in no constant of the code: only the stub was compiled.
    assert "Compiled when first called." not in repr(code.co_consts)
    scope: dict[str, object] = {}
    load(source, "<deferred>", scope)
    stub = scope["later"]
    assert getattr(stub, "cache_info", None) is None  # not the real one yet
    assert stub(40) == 42  # type: ignore[operator]
    real = scope["later"]  # the definition replaced the stub, decorator too
    assert real is not stub and real.cache_info().misses == 1  # type: ignore[attr-defined]
    assert real(40) == 42 and real.cache_info().hits == 1  # type: ignore[attr-defined]


def test_lines_keep_their_numbers_around_a_deferred_definition() -> None:
    source = DEFERRED + "\n"  # a text not compiled before
    program_code(source, "<lines>", _span(source))
    scope: dict[str, object] = {}
    load(source, "<lines>", scope)
    want = source.splitlines().index('    raise ValueError("after")') + 1
    with pytest.raises(ValueError) as after:
        scope["after"]()  # type: ignore[operator]
    assert after.traceback[-1].lineno + 1 == want
    bad = source.replace("return a + x + 1", "return a + missing")
    program_code(bad, "<bad-later>", _span(bad))
    scope = {}
    load(bad, "<bad-later>", scope)
    want = bad.splitlines().index("    return a + missing") + 1
    with pytest.raises(NameError) as error:
        scope["later"](1)  # type: ignore[operator]
    assert error.traceback[-1].lineno + 1 == want


def test_a_span_without_a_definition_is_refused() -> None:
    with pytest.raises(ValueError, match="function definition"):
        program_code("x = 1\ny = 2\n", "<no-def>", (0, 5))


def test_forgotten_code_is_compiled_anew() -> None:
    source = "z = 3\n"
    first = program_code(source, "<a>")
    forget()
    assert program_code(source, "<a>") is not first
