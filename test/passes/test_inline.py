"""``sbp-inline`` visits calls alone, callees first, and erases what is dead."""

from __future__ import annotations

from xdsl.dialects import func

from sbpc.passes.inline import callees_first
from sbpc.passes.pipeline import parse_module, run_passes

# A chain of helpers declared callers first, a declaration (never inlined)
# called only by a dead helper, and a private function that calls itself.
CHAIN = """
module {
  func.func public @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %0 = call @outer(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %1 = call @outer(%0) : (tensor<4xf32>) -> tensor<4xf32>
    return %1 : tensor<4xf32>
  }
  func.func private @outer(%a: tensor<4xf32>) -> tensor<4xf32> {
    %0 = call @middle(%a) : (tensor<4xf32>) -> tensor<4xf32>
    %1 = stablehlo.multiply %0, %a : tensor<4xf32>
    return %1 : tensor<4xf32>
  }
  func.func private @middle(%a: tensor<4xf32>) -> tensor<4xf32> {
    %0 = call @inner(%a, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
  func.func private @inner(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.add %a, %b : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
  func.func private @dead(%a: tensor<4xf32>) -> tensor<4xf32> {
    %0 = call @only_from_dead(%a) : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
  func.func private @only_from_dead(%a: tensor<4xf32>) -> tensor<4xf32>
  func.func private @loops(%a: tensor<4xf32>) -> tensor<4xf32> {
    %0 = call @loops(%a) : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
"""


def test_callees_come_before_their_callers() -> None:
    graph = {
        "main": {"outer"},
        "outer": {"middle", "external"},
        "middle": {"inner"},
        "inner": set(),
        "loops": {"loops"},
        "a": {"b"},
        "b": {"a"},
    }
    order = callees_first(graph)
    assert sorted(order) == sorted(graph)  # each once; names not defined skipped
    at = {name: i for i, name in enumerate(order)}
    for caller, called in graph.items():
        for callee in called & graph.keys():
            if not _on_cycle(graph, caller, callee):
                assert at[callee] < at[caller], (caller, callee)


def _on_cycle(graph: dict[str, set[str]], a: str, b: str) -> bool:
    """Whether ``b`` reaches ``a`` (so ``a`` calling ``b`` closes a cycle)."""
    stack, seen = [b], set()
    while stack:
        name = stack.pop()
        if name == a:
            return True
        if name not in seen:
            seen.add(name)
            stack.extend(graph.get(name, ()))
    return False


def test_a_chain_is_inlined_whole_and_the_dead_are_erased() -> None:
    module = parse_module(CHAIN)
    run_passes(module, "sbp-inline")
    names = [f.sym_name.data for f in module.ops if isinstance(f, func.FuncOp)]
    # Helpers inlined or unreferenced are gone (a dead one's callee too);
    # a private function that calls itself is kept.
    assert names == ["main", "loops"]
    main = next(f for f in module.ops if isinstance(f, func.FuncOp))
    kinds = [op.name for op in main.walk() if op is not main]
    assert "func.call" not in kinds
    # twice (outer (middle (inner))): an add and a multiply per call of outer.
    assert kinds.count("stablehlo.add") == 2
    assert kinds.count("stablehlo.multiply") == 2
