"""``sbpc.pipeline.remat``: a training step's repeated layers and the
activations their backward reads, on a hand-made two-layer step."""

from __future__ import annotations

from sbpc.algebra.tensor_type import TensorType
from sbpc.pipeline.function import Function, Node
from sbpc.pipeline.remat import carries_remat, forward_nodes, layers, turn

ACT, W, SCALAR = TensorType((16, 4)), TensorType((4, 4)), TensorType(())
COUNTER = TensorType((), "i32")


def step() -> Function:
    """x @ wA -> tanh -> @ wB -> tanh -> loss; then a backward reading the
    layers' values, and a step counter the optimizer returns.

    values: 0 x, 1 wA, 2 wB, 3 y, 4 counter."""
    nodes = [
        Node(None, (0, 1), (5,), "dot"),  # 0: layer 0
        Node(None, (5,), (6,), "tanh"),  # 1
        Node(None, (6, 2), (7,), "dot"),  # 2: layer 1
        Node(None, (7,), (8,), "tanh"),  # 3
        Node(None, (8, 3), (9,), "subtract"),  # 4
        Node(None, (9,), (10,), "reduce"),  # 5: the loss
        Node(None, (8, 9), (11,), "multiply"),  # 6: backward of layer 1
        Node(None, (11, 6), (12,), "multiply"),  # 7: backward of layer 0
        Node(None, (12, 5), (13,), "multiply"),  # 8
        Node(None, (4,), (14,), "add"),  # 9: the step counter
    ]
    types = {v: ACT for v in range(16)}
    types.update({1: W, 2: W, 10: SCALAR, 4: COUNTER, 14: COUNTER})
    return Function((0, 1, 2, 3, 4), nodes, (10, 13, 14), types)


def test_the_forward_is_what_the_loss_is_computed_from() -> None:
    f = step()
    assert forward_nodes(f) == {0, 1, 2, 3, 4, 5}  # not the counter's add
    assert turn(f) == 6


def test_each_layer_keeps_what_its_backward_reads() -> None:
    first, second = layers(step())
    assert (first.index, first.nodes, first.saved) == (0, (0, 1), (5, 6))
    assert (first.recompute, first.inputs, first.first_use) == ((0, 1), (0, 1), 7)
    # layer 1 ends where y (no layer's argument) is first used
    assert (second.nodes, second.saved) == ((2, 3), (8,))
    assert (second.recompute, second.inputs, second.first_use) == ((2, 3), (6, 2), 6)
    assert first.saved_bytes(lambda v: step().types[v].nbytes) == 2 * 16 * 4 * 4


def test_a_step_without_repeated_layers_has_none() -> None:
    f = step()
    f.types[2] = TensorType((4, 8))  # wB unlike wA: no block repeats
    assert layers(f) == []


def test_a_step_without_a_returned_scalar_has_no_forward() -> None:
    f = step()
    f = Function(f.args, f.nodes, (13,), f.types)
    assert forward_nodes(f) == set() and layers(f) == []


def test_a_barrier_means_the_step_recomputes_already() -> None:
    f = step()
    assert carries_remat(f, lambda n: f.nodes[n].label == "tanh")
    assert not carries_remat(f, lambda n: False)
