"""``bench/hlo_ops.py``, and sbpc's compiled programs against ``jax.jit``'s.

The examples' programs on one device, and their data-parallel programs on 8
(no collectives on either side), compile to the instructions ``jax.jit``
compiles the same function to: no extra copy, convert, transpose, reshape,
no fusion split by a ``shard_map`` boundary.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import jax
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "examples"))

from hlo_ops import (  # noqa: E402
    aliases,
    compare,
    dataflow,
    describe,
    difference,
    explicit_groups,
    op_counts,
    opcode_difference,
)

MODULE = """HloModule m, entry_computation_layout={(f32[4,8]{1,0})->f32[8,4]{1,0}}

%fused (p: f32[4,8]) -> f32[4,8] {
  %p = f32[4,8]{1,0} parameter(0)
  ROOT %n = f32[4,8]{1,0} negate(%p), metadata={op_name="jit(f)/neg"}
}

ENTRY %main (x.1: f32[4,8]) -> f32[8,4] {
  %x.1 = f32[4,8]{1,0} parameter(0), metadata={op_name="x"}
  %f = f32[4,8]{1,0} fusion(%x.1), kind=kLoop, calls=%fused
  ROOT %t = f32[8,4]{1,0} transpose(%f), dimensions={1,0}
}
"""


def test_counts_every_computation_by_opcode_and_shape() -> None:
    counts = op_counts(MODULE)
    assert counts[("parameter", "f32[4,8]{1,0}")] == 2  # entry and fusion body
    assert counts[("negate", "f32[4,8]{1,0}")] == 1
    assert counts[("transpose", "f32[8,4]{1,0}")] == 1
    assert sum(counts.values()) == 5


def test_names_and_metadata_do_not_count_but_an_extra_op_does() -> None:
    renamed = MODULE.replace("%x.1", "%args_0").replace('op_name="x"', 'op_name="a"')
    assert difference(renamed, MODULE) == {} and describe({}) == "same"
    extra = MODULE.replace(
        "  ROOT %t = f32[8,4]{1,0} transpose(%f)",
        "  %c = f32[4,8]{0,1} copy(%f)\n  ROOT %t = f32[8,4]{1,0} transpose(%c)",
    )
    diff = difference(extra, MODULE)
    assert diff == {("copy", "f32[4,8]{0,1}"): 1}
    assert opcode_difference(diff) == {"copy": 1}
    assert describe(diff) == "+1 copy"
    assert describe(difference(MODULE, extra)) == "-1 copy"


def test_the_same_program_under_other_names_and_parameter_order_is_same() -> None:
    other = (
        MODULE.replace("%x.1", "%param.7")
        .replace("x.1:", "param.7:")
        .replace("%fused", "%fused_computation.3")
        .replace("%main", "%main.2_spmd")
        .replace('op_name="x"', 'op_name="args[0]"')
    )
    assert dataflow(other) == dataflow(MODULE)
    assert compare(other, MODULE) == "same"
    # Parameters declared in another order are the same program.
    two = (
        "ENTRY %e (a: f32[2], b: f32[3]) -> f32[2] {\n"
        "  %a = f32[2]{0} parameter(0)\n"
        "  %b = f32[3]{0} parameter(1)\n"
        "  ROOT %n = f32[2]{0} negate(%a)\n}\n"
    )
    swapped = two.replace(
        "  %a = f32[2]{0} parameter(0)\n  %b = f32[3]{0} parameter(1)\n",
        "  %b = f32[3]{0} parameter(1)\n  %a = f32[2]{0} parameter(0)\n",
    )
    assert compare(swapped, two) == "same"
    # ... but not one that reads the other parameter.
    assert compare(two.replace("negate(%a)", "negate(%b)"), two) != "same"


def test_an_attribute_or_an_op_makes_another_program() -> None:
    precise = MODULE.replace("dimensions={1,0}", "dimensions={1,0}, backend_config={}")
    assert compare(precise, MODULE) == "same ops, other attributes"
    assert compare(MODULE.replace("negate", "abs"), MODULE) == "+1 abs -1 negate"
    # a number in an attribute is not a name: another value is another program
    eps = MODULE.replace("dimensions={1,0}", "dimensions={1,0}, epsilon=0.001")
    other_eps = eps.replace("epsilon=0.001", "epsilon=0.002")
    assert compare(eps, eps) == "same"
    assert compare(other_eps, eps) == "same ops, other attributes"


def test_an_instruction_the_parser_cannot_read_still_counts() -> None:
    # no "opcode(" after the shape: the parser skips it, the digest must not
    odd = MODULE.replace(
        "  ROOT %t", "  %odd = f32[4,8]{1,0} custom-thing %f, size=1\n  ROOT %t"
    )
    assert dataflow(odd) == dataflow(odd)
    assert compare(odd.replace("size=1", "size=2"), odd) != "same"
    assert compare(odd, MODULE) != "same"


COLLECTIVES = """\
HloModule m, num_partitions=8

%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}

ENTRY %main (x: f32[8], y: f32[]) -> (f32[8], f32[], f32[]) {
  %x = f32[8]{0} parameter(0)
  %y = f32[] parameter(1)
  %r = f32[8]{0} all-reduce(%x), channel_id=1, replica_groups={{0,1,2,3,4,5,6,7}}, use_global_device_ids=true, to_apply=%add
  %n = f32[] negate(%y)
  %e = f32[] exponential(%y)
  ROOT %t = (f32[8]{0}, f32[], f32[]) tuple(%r, %n, %e)
}
"""


def test_order_channel_ids_and_group_spelling_are_not_the_program() -> None:
    """XLA's partitioner and a shard_map program of the same work differ in
    these only (seen on the MLP training step under tp)."""
    reordered = COLLECTIVES.replace(
        "  %n = f32[] negate(%y)\n  %e = f32[] exponential(%y)\n",
        "  %e = f32[] exponential(%y)\n  %n = f32[] negate(%y)\n",
    )
    respelt = COLLECTIVES.replace("channel_id=1", "channel_id=4").replace(
        "replica_groups={{0,1,2,3,4,5,6,7}}",
        "replica_groups=mesh['axis_0'=1,'axis_1'=8] {'axis_1'}",
    )
    assert reordered != COLLECTIVES and respelt != COLLECTIVES
    assert compare(reordered, COLLECTIVES) == "same"
    assert compare(respelt, COLLECTIVES) == "same"
    # ... but other groups, or the root's values swapped, are another program
    halves = COLLECTIVES.replace("{{0,1,2,3,4,5,6,7}}", "mesh['a'=2,'b'=4] {'b'}")
    assert compare(halves, COLLECTIVES) == "same ops, other attributes"
    swapped = COLLECTIVES.replace("tuple(%r, %n, %e)", "tuple(%r, %e, %n)")
    assert compare(swapped, COLLECTIVES) == "same ops, other attributes"


def test_replica_groups_spelt_three_ways_are_one_list() -> None:
    explicit = "{{0,1,2,3},{4,5,6,7}}"
    assert explicit_groups(explicit) == explicit
    assert explicit_groups("mesh['a'=2,'b'=4] {'b'}") == explicit
    assert explicit_groups("[2,4]<=[8]") == explicit
    # the outer axis grouped: strided groups
    assert explicit_groups("mesh['a'=2,'b'=4] {'a'}") == "{{0,4},{1,5},{2,6},{3,7}}"
    assert explicit_groups("[4,2]<=[2,4]T(1,0)") == "{{0,4},{1,5},{2,6},{3,7}}"
    assert explicit_groups("something else") == "something else"


def test_aliases_are_read_from_the_module_header() -> None:
    header = (
        "HloModule m, input_output_alias={ {0}: (1, {}, may-alias), "
        "{2, 1}: (0, {}, must-alias) }, entry_computation_layout={()->()}\n"
    )
    assert aliases(header) == [("0", 1), ("2,1", 0)]
    assert aliases(MODULE) == []


def _one_device(name: str, **options: Any) -> tuple[Any, Any]:
    """An example and its program on a 1-device mesh (emitter_overhead's)."""
    from models import EXAMPLES

    import sbpc.jax

    example = EXAMPLES[name]()
    dist = sbpc.jax.distribute(
        example.fn,
        *example.args,
        mesh=1,
        in_layouts=jax.tree.map(lambda _: "[B]", example.args),
        strategy="greedy",
        quiet=True,
        **options,
    )
    return example, dist


def _parity(dist, fn, args, in_shardings=None, out_shardings=None) -> dict:
    flat = dist.flatten(*args)
    ours = dist.lower(*args).compile().as_text()
    if in_shardings is None:
        theirs = jax.jit(fn).lower(*args)
    else:  # the same layouts, partitioned by XLA (bench/vs_xla.py's XLA side)
        theirs = jax.jit(
            lambda *leaves: jax.tree.leaves(
                fn(*jax.tree_util.tree_unflatten(dist.in_tree, leaves)[0])
            ),
            in_shardings=tuple(in_shardings),
            out_shardings=list(out_shardings),
        ).lower(*flat)
    return compare(ours, theirs.compile().as_text())


@pytest.mark.parametrize("name", ["mlp", "gpt_train", "mixer"])
def test_one_device_programs_compile_to_what_jax_jit_compiles(name: str) -> None:
    example, dist = _one_device(name)
    args = jax.tree.map(jax.numpy.asarray, example.args)
    assert _parity(dist, example.fn, args) == "same"


@pytest.mark.parametrize("name", ["mlp", "gpt", "mixer"])
def test_data_parallel_programs_compile_to_what_xla_partitions(name: str) -> None:
    """vs_xla.py's dp rows (strategy optimal): no collectives on either side,
    the same program."""
    from models import EXAMPLES

    example = EXAMPLES[name]()
    dist = example.distribute("dp", strategy="optimal", quiet=True)
    ins, outs = dist.shardings()
    placed = jax.tree_util.tree_unflatten(
        dist.in_tree,
        [
            jax.device_put(x, s)
            for x, s in zip(dist.flatten(*example.args), ins, strict=True)
        ],
    )[0]
    assert _parity(dist, example.fn, placed, ins, outs) == "same"


def test_a_donated_training_step_aliases_what_jax_jit_aliases() -> None:
    """Donated parameters and optimizer state hold the new ones in place."""
    example, dist = _one_device("mlp_train", donate_argnums=(0, 1))
    args = jax.tree.map(jax.numpy.asarray, example.args)
    ours = aliases(dist.lower(*args).compile().as_text())
    theirs = jax.jit(example.fn, donate_argnums=(0, 1)).lower(*args).compile()
    assert ours == aliases(theirs.as_text())
    donated = len(jax.tree.leaves(example.args[:2]))
    assert len(ours) == donated
