"""The combined collectives' buffers in the memory model, on tiny graphs
with their numbers worked out (``collective_memory``)."""

from __future__ import annotations

from sbpc.algebra.placement import Placement
from sbpc.algebra.sbp import B, S
from sbpc.algebra.signature import Signature
from sbpc.algebra.tensor_type import TensorType
from sbpc.boxing.cost_model import DEFAULT_COST_MODEL
from sbpc.propagation.collective_memory import combined_collectives
from sbpc.propagation.graph import SbpGraph
from sbpc.propagation.memory import plan_memory

PLACEMENT = Placement("cpu", (4,), (0, 1, 2, 3))
T = TensorType((8, 8))  # 256 B whole, 64 B a piece of S(0) over 4
WANT_B = Signature(((B,),), ((B,),))


def two_gathered_arguments() -> SbpGraph:
    """``x`` and ``y`` split over 4 devices, each read whole by an op: two
    independent all-gathers of one key, which the emitter runs as one."""
    g = SbpGraph((4,))
    x = g.add_argument("x", T, layout=(S(0),))
    y = g.add_argument("y", T, layout=(S(0),))
    (a,) = g.add_op("a", [x], [T], [WANT_B])  # step 0
    (b,) = g.add_op("b", [y], [T], [WANT_B])  # step 1
    g.add_result("a", a, (B,))
    g.add_result("b", b, (B,))
    return g


def test_independent_gathers_hold_one_combined_buffer() -> None:
    g = two_gathered_arguments()
    options = [0] * len(g.nodes)
    combined = combined_collectives(g, options, PLACEMENT, DEFAULT_COST_MODEL, 1 << 20)
    # One group of both gathers, at the start (arguments): its whole result
    # is both copies (2 x 256 B), and it makes both copies then.
    assert [(b.nbytes, b.start, b.end) for b in combined.buffers] == [(512, 0, 0)]
    assert set(combined.made.values()) == {0}
    alone = plan_memory(g, options)
    together = plan_memory(g, options, collectives=combined)
    # x, y 64 B each; the outputs a, b 256 B each; both copies (256 B each)
    # from the start until their readers, a's in b's output allocation (b is
    # written at half-step 2); the group's 512 B at the start, in none.
    assert alone.peak == 128 + 512 + 256
    assert together.peak == alone.peak + 512


def test_nothing_is_combined_without_a_byte_limit_or_a_partner() -> None:
    g = two_gathered_arguments()
    options = [0] * len(g.nodes)
    model = DEFAULT_COST_MODEL
    assert not combined_collectives(g, options, PLACEMENT, model, 0).buffers
    # A limit below the two copies together keeps each gather alone.
    assert not combined_collectives(g, options, PLACEMENT, model, 300).buffers
