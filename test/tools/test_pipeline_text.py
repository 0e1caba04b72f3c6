"""Unquoted paths in pass options, as mlir-opt users write them."""

from __future__ import annotations

import pytest
from xdsl.utils.arg_spec import parse_pipeline

from sbpc.tools.pipeline_text import quote_paths


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "sbp-propagate{strategy=optimal report=plan.html report_format=html}",
            'sbp-propagate{strategy=optimal report="plan.html" report_format=html}',
        ),
        ("p{report=/tmp/a-b/plan.json}", 'p{report="/tmp/a-b/plan.json"}'),
        # what xDSL lexes already stays as it is
        ("p{a=1 b=-2.5e3 c=word_1-x d=1,2,3}", "p{a=1 b=-2.5e3 c=word_1-x d=1,2,3}"),
        ('p{report="/tmp/x y.txt"}', 'p{report="/tmp/x y.txt"}'),
        ('p{report="a\\"b.txt" x=a.b}', 'p{report="a\\"b.txt" x="a.b"}'),
        ("[x{y=a.b}],p{r=c.d}", '[x{y=a.b}],p{r="c.d"}'),
        ("a,b{c=./d},e", 'a,b{c="./d"},e'),
        ("", ""),
    ],
)
def test_quote_paths(text: str, expected: str) -> None:
    assert quote_paths(text) == expected


def test_xdsl_parses_the_result() -> None:
    text = "sbp-inline,sbp-propagate{strategy=optimal report=out/plan.html},x"
    (_, propagate, _) = parse_pipeline(quote_paths(text))
    assert list(propagate.parameters["report"]) == ["out/plan.html"]
