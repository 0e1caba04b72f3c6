"""Padded bytes of uneven layouts (plan report, memory model)."""

from __future__ import annotations

from sbpc.algebra.sbp import B, S
from sbpc.algebra.tensor_type import TensorType
from sbpc.propagation.memory import local_bytes
from sbpc.propagation.report.padding import padded_bytes


def test_padded_bytes_count_the_largest_piece_everywhere():
    t = TensorType((10, 3), "f32")
    assert padded_bytes(t, (S(0),), (4,)) == 4 * 3 * 3 * 4  # pieces 3, 3, 2, 2
    assert padded_bytes(t, (S(0), S(0)), (2, 4)) == 8 * 2 * 3 * 4  # 5 -> 2, 1, 1, 1
    assert padded_bytes(t, (B,), (4,)) == t.nbytes
    assert padded_bytes(TensorType((8, 3), "f32"), (S(0),), (4,)) == 8 * 3 * 4


def test_memory_model_holds_the_largest_piece():
    t = TensorType((6, 5), "f32")
    assert local_bytes(t, (S(0),), (4,)) == 2 * 5 * 4
    assert local_bytes(TensorType((8, 5), "f32"), (S(0),), (4,)) == 2 * 5 * 4
