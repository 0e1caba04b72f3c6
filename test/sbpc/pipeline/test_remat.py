"""``sbpc.pipeline.remat``: a training step's repeated layers and the
activations their backward reads, on a hand-made two-layer step."""

from __future__ import annotations

from sbpc.algebra.tensor_type import TensorType
from sbpc.ops.spec import OpSpec
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
    f = step()
    first, second = layers(f)
    assert (first.index, first.nodes, first.saved) == (0, (0, 1), (5, 6))
    whole = first.cone(f)
    assert whole is not None and whole.kept == ()
    assert (whole.ops, whole.inputs, whole.first_use) == ((0, 1), (0, 1), 7)
    # layer 1 ends where y (no layer's argument) is first used
    assert (second.nodes, second.saved) == ((2, 3), (8,))
    whole = second.cone(f)
    assert whole is not None
    assert (whole.ops, whole.inputs, whole.first_use) == ((2, 3), (6, 2), 6)
    assert first.saved_bytes(lambda v: f.types[v].nbytes) == 2 * 16 * 4 * 4


def dot(lhs: TensorType, rhs: TensorType, out: TensorType, batch=()) -> OpSpec:
    """A ``dot_general`` contracting lhs's last dim, with ``batch`` dims."""
    return OpSpec(
        "stablehlo.dot_general",
        (lhs, rhs),
        (out,),
        {"lhs_batching_dimensions": batch, "rhs_batching_dimensions": batch},
    )


def test_the_dots_policy_keeps_weight_products_and_recomputes_the_rest() -> None:
    """Layer 0's product with its weight is kept (an input of the cone,
    read from the forward), its tanh recomputed from it; a product with a
    batch dimension (attention's scores) is recomputed."""
    f = step()
    nodes = list(f.nodes)
    nodes[0] = Node(dot(ACT, W, ACT), (0, 1), (5,), "dot")
    f = Function(f.args, nodes, f.returns, f.types)
    first = layers(f)[0]
    fine = first.cone(f, "dots")
    assert fine is not None
    assert (fine.kept, fine.recomputed, fine.ops, fine.inputs) == (
        (5,),
        (6,),
        (1,),
        (5,),
    )
    # the backward's first reader of the recomputed tanh, not of the product
    assert fine.first_use == 7
    nodes[0] = Node(dot(ACT, W, ACT, batch=(0,)), (0, 1), (5,), "dot")
    f = Function(f.args, nodes, f.returns, f.types)
    scores = layers(f)[0].cone(f, "dots")
    assert scores is not None and scores.kept == () and scores.ops == (0, 1)


def test_a_layer_whose_saved_values_are_all_kept_has_no_cone() -> None:
    f = step()
    nodes = list(f.nodes)
    nodes[1] = Node(dot(ACT, W, ACT), (5, 1), (6,), "dot")  # tanh -> a product
    nodes[0] = Node(dot(ACT, W, ACT), (0, 1), (5,), "dot")
    f = Function(f.args, nodes, f.returns, f.types)
    first = layers(f)[0]
    assert first.cone(f, "dots") is None and first.cone(f, "full") is not None


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
