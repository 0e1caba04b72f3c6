"""The plan's peak memory against the compiled program's on every example
(issue 32): ``memory_analysis()`` of sbpc's emitted program, argument +
output - alias + temporary bytes per device, within a tolerance of what the
memory model (``sbpc.propagation.memory``) planned.  ``bench/memory_model.py``
prints the same rows with XLA's own partitioner beside them."""

from __future__ import annotations

import pytest
from models import EXAMPLES, SCHEMES


def compiled_bytes(step, example) -> int:
    """Argument + output - alias + temporary bytes per device of the program."""
    m = step.step.lower(*step.place(*example.args)).compile().memory_analysis()
    return (
        m.argument_size_in_bytes
        + m.output_size_in_bytes
        - m.alias_size_in_bytes
        + m.temp_size_in_bytes
    )


@pytest.mark.parametrize("scheme", sorted(SCHEMES))
@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_planned_peak_is_the_compiled_footprint(name: str, scheme: str) -> None:
    example = EXAMPLES[name]()
    step = example.distribute(scheme, strategy="optimal")
    planned = step.plans[0].plan.peak_memory
    compiled = compiled_bytes(step, example)
    assert planned == pytest.approx(compiled, rel=0.10), (planned, compiled)


def test_donated_parameters_are_counted_once() -> None:
    """A training step that donates its parameters and optimizer state
    writes the new ones into their buffers: planned and compiled both drop
    by the aliased bytes."""
    example = EXAMPLES["mlp_train"]()
    kept = example.distribute("2d", strategy="optimal")
    given = example.distribute("2d", strategy="optimal", donate_argnums=(0, 1))
    memory = given.plans[0].plan.memory
    assert memory.aliased > 0 and kept.plans[0].plan.memory.aliased == 0
    compiled = given.step.lower(*given.place(*example.args)).compile()
    assert memory.aliased == compiled.memory_analysis().alias_size_in_bytes
    assert memory.peak == pytest.approx(compiled_bytes(given, example), rel=0.10)
