"""The runtime template: a real module cut into the sections every emitted
module is made of."""

from __future__ import annotations

from pathlib import Path

import jax_programs as jp
import numpy as np

from sbpc.algebra.placement import Placement
from sbpc.algebra.sbp import B, Split
from sbpc.algebra.signature import Signature
from sbpc.algebra.tensor_type import TensorType
from sbpc.jax_backend import runtime
from sbpc.jax_backend.emit import emit_jax
from sbpc.ops.spec import OpSpec
from sbpc.program import Program

SECTIONS = [
    "imports",
    "jax",
    "definitions",
    "stand-ins",
    "runtime",
    "combined-collectives",
    "indexed-blocks",
    "main",
]


def test_template_has_every_section_in_order() -> None:
    parts = runtime.sections(runtime.TEMPLATE.read_text())
    assert list(parts) == SECTIONS
    assert runtime.X64_MARK in parts["definitions"]
    assert parts["jax"].index("XLA_FLAGS") < parts["jax"].index("import jax\n")
    assert "def build(" in parts["runtime"]
    assert "def _all_gather_many(" in parts["combined-collectives"]
    assert "def _gather_rows(" in parts["indexed-blocks"]
    assert parts["main"].strip().startswith('if __name__ == "__main__":')


def test_sections_split_on_markers_only() -> None:
    text = '"""doc"""\n# @section a\nx = 1\n# not @section b\n# @section b\ny = 2\n'
    assert runtime.sections(text) == {"a": "x = 1\n# not @section b\n", "b": "y = 2\n"}


def _gathers(n: int) -> Program:
    """``n`` independent all-gathers on one axis: the emitter combines them."""
    b = jp.Builder(Placement.of_size((4,)))
    for _ in range(n):
        b.ret(
            b.step(
                "all_gather", [0], b.arg(TensorType((8, 4), "f32"), (Split(0),)), (B,)
            )
        )
    return b.program


def test_emitted_module_drops_stand_ins_and_ends_with_main(tmp_path: Path) -> None:
    """A module with combined collectives defines its helpers before the
    ``__main__`` self-check runs, so ``python module.py`` works (the helpers
    once came after it and the self-check died on a NameError)."""
    source = emit_jax(_gathers(3))
    assert "_all_gather_many(" in source
    assert "raise NotImplementedError" not in source  # the stand-in _reference
    assert source.rstrip().endswith("sys.exit(self_check())")
    assert source.index("def _all_gather_many(") < source.index('__main__":\n    sys')
    path = tmp_path / "gathers.py"
    path.write_text(source)
    run = jp.run_script(path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "ok" in run.stdout


def test_pipeline_donates_each_argument_to_its_last_reader(tmp_path: Path) -> None:
    """Across placements a donated argument goes to the last stage that reads
    it (an earlier stage would free it too soon), and one returned as it is
    stays the caller's."""
    p0 = Placement("cpu", (4,), (0, 1, 2, 3))
    p1 = Placement("cpu", (4,), (4, 5, 6, 7))
    t = TensorType((8, 4), "f32")
    s0 = (Split(0),)
    neg = OpSpec("stablehlo.negate", [t], [t])
    add = OpSpec("stablehlo.add", [t, t], [t])
    b = jp.Builder(p0)
    x, w = b.arg(t, s0), b.arg(t, s0)
    # Three stages: y on p0, z on p1, then u on p0 again, reading x.
    (y,) = b.op(neg, Signature((s0,), (s0,)), [x])
    moved = b.transfer(y, p1, s0)
    (z,) = b.op(add, Signature((s0, s0), (s0,)), [moved, moved])
    (u,) = b.op(add, Signature((s0, s0), (s0,)), [y, x])
    b.ret(z)
    b.ret(u)
    b.ret(w)
    module = jp.load(b.program, tmp_path, "pipeline_donate")
    pipeline = module.build(donate=(0, 1))
    xs = np.arange(32, dtype=np.float32).reshape(8, 4)
    placed = module.put_args(xs, xs + 1)
    lowered = pipeline.lower(*placed)
    aliased = [low.as_text().count("tf.aliasing_output") for low in lowered]
    assert aliased == [0, 0, 1], aliased  # x, in the stage of its last use
    got = module.logical(pipeline(*placed))
    np.testing.assert_array_equal(got[0], -2 * xs)
    np.testing.assert_array_equal(got[1], np.zeros_like(xs))
    np.testing.assert_array_equal(got[2], xs + 1)
    assert placed[0].is_deleted() and not placed[1].is_deleted()


def _transposes(fn, *args) -> int:
    """Transposes in ``fn``'s jaxpr (shard_map bodies included)."""
    import jax

    return str(jax.make_jaxpr(fn)(*args)).count(" transpose[")


def test_combined_collectives_transpose_each_piece_at_most_once() -> None:
    """``_all_gather_many`` / ``_psum_scatter_many`` on pieces split along
    a dim other than their first equal the separate collectives and
    transpose each such piece once (the blocks into place), not twice: on
    the CPU these transposes cost more than the collective (the MoE 2d
    step's weight all-gathers, docs/performance.md)."""
    import jax
    from jax import lax
    from jax.sharding import Mesh
    from jax.sharding import PartitionSpec as P

    from sbpc.jax_backend import runtime_template as rt

    mesh = Mesh(np.array(jax.devices()[:2]), ("d",))
    rng = np.random.default_rng(0)
    xs = (
        rng.standard_normal((2, 3, 8)).astype(np.float32),
        rng.standard_normal((4, 6)).astype(np.float32),
    )
    dims = (2, 0)

    def per_device(body):
        # Every device's result, stacked along dim 0.
        return jax.jit(
            jax.shard_map(
                body, mesh=mesh, in_specs=(P(), P()), out_specs=(P("d"), P("d"))
            )
        )

    cases = (  # (combined helper, one collective on x along d)
        (rt._all_gather_many, lambda x, d: lax.all_gather(x, "d", axis=d, tiled=True)),
        (
            rt._psum_scatter_many,
            lambda x, d: lax.psum_scatter(x, "d", scatter_dimension=d, tiled=True),
        ),
    )
    for helper, one in cases:
        many = per_device(lambda *xs, helper=helper: helper(xs, "d", dims, 2))
        apart = per_device(
            lambda *xs, one=one: tuple(one(x, d) for x, d in zip(xs, dims, strict=True))
        )
        for g, w in zip(many(*xs), apart(*xs), strict=True):
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6)
        assert _transposes(many, *xs) == 1  # the dim-2 piece only
