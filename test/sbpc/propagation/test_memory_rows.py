"""``MemoryRows``' bookkeeping: the rows a plan is lowered by when the exact
model holds more than they say, and the size of the rows written out."""

from __future__ import annotations

import pytest

from sbpc.propagation.memory_rows import MemoryRows
from sbpc.testing.synthetic_graphs import transformer_graph


@pytest.fixture(scope="module")
def memory() -> MemoryRows:
    return MemoryRows.of(transformer_graph(2, (2, 4), dense_skips=1))


def test_a_row_is_lowered_by_what_the_exact_model_holds_above_it(memory) -> None:
    """Each half-step over the budget names the row that covers it, lowered
    by the most the exact bytes there exceed the row's estimate."""
    held = [0.0] * (memory.half_steps[-1] + 1)
    estimate = [10.0] * len(memory.half_steps)
    held[memory.half_steps[0]] = 15.0  # row 0: under the budget
    held[memory.half_steps[1]] = 25.0  # row 1: over it
    held[memory.half_steps[2]] = 40.0  # row 2: over it
    assert memory.shortfalls(held, estimate, budget=20.0) == {1: 15.0, 2: 30.0}
    assert memory.shortfalls(held, estimate, budget=40.0) == {}


def test_entries_count_the_rows_written_out(memory) -> None:
    written = sum(len(row) for row in memory.rows)
    boxed = sum(len(boxes) for boxes in memory.row_boxes)
    # a node with several terms in one row is one entry there, so at most
    assert written + boxed <= memory.entries
    assert boxed == memory.entries - len(memory.arguments) * len(
        memory.half_steps
    ) - sum(after - first for _, _, first, after in memory.spans)
