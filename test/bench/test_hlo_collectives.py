"""Collectives read from compiled HLO: hand-written forms, then real JAX programs."""

from __future__ import annotations

import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

from hlo_collectives import (  # noqa: E402
    Collective,
    HloCollectiveError,
    Shape,
    iota_groups,
    main,
    parse_collectives,
    parse_shape,
    summarize,
)

ADD = """
%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}
"""


def module(body: str, header: str = "num_partitions=8", extra: str = "") -> str:
    """An HLO module: the ADD reducer, ``extra`` computations, then ENTRY."""
    return (
        f"HloModule m, is_scheduled=true, {header}\n{ADD}{extra}\n"
        "ENTRY %main (p: f32[8,16]) -> f32[8,16] {\n"
        "  %p = f32[8,16]{1,0} parameter(0)\n"
        "  %q = bf16[16]{0} parameter(1)\n"
        f"{body}\n}}\n"
    )


def one(text: str, **kw: int) -> Collective:
    (c,) = parse_collectives(text, **kw)
    return c


# ---------------------------------------------------------------- shapes


def test_shapes_scalars_tuples_layouts_and_dtypes() -> None:
    assert parse_shape("f32[8,16]{1,0}") == (Shape("f32", (8, 16)),)
    assert parse_shape("f32[]") == (Shape("f32", ()),)
    assert parse_shape("(f32[8,16]{1,0}, (bf16[16]{0}, /*index=2*/s8[3]))") == (
        Shape("f32", (8, 16)),
        Shape("bf16", (16,)),
        Shape("s8", (3,)),
    )
    sizes = {
        "pred": 1,
        "s8": 1,
        "u8": 1,
        "s16": 2,
        "u16": 2,
        "bf16": 2,
        "f16": 2,
        "s32": 4,
        "u32": 4,
        "f32": 4,
        "s64": 8,
        "u64": 8,
        "f64": 8,
        "c64": 8,
        "c128": 16,
        "f8e4m3fn": 1,
    }
    for dtype, size in sizes.items():
        assert parse_shape(f"{dtype}[3,2]{{1,0}}")[0].nbytes == 6 * size, dtype
    assert parse_shape("s4[3]")[0].nbytes == Fraction(3, 2)
    with pytest.raises(HloCollectiveError, match="element type"):
        _ = parse_shape("q7[2]")[0].nbytes


def test_iota_groups_with_and_without_transpose() -> None:
    assert iota_groups("[2,4]<=[8]") == [[0, 1, 2, 3], [4, 5, 6, 7]]
    assert iota_groups("[4,2]<=[2,4]T(1,0)") == [[0, 4], [1, 5], [2, 6], [3, 7]]
    assert iota_groups("[2,4]<=[2,2,2]T(2,1,0)") == [[0, 4, 2, 6], [1, 5, 3, 7]]
    with pytest.raises(HloCollectiveError):
        iota_groups("[3,2]<=[8]")


# ---------------------------------------------------------------- each kind


def test_each_kind_with_explicit_groups_and_exact_bytes() -> None:
    text = module(
        "  %ag = f32[32,16]{1,0} all-gather(%p), channel_id=1, "
        "replica_groups={{0,1,2,3},{4,5,6,7}}, dimensions={0}, use_global_device_ids=true\n"
        "  %ar = f32[8,16]{1,0} all-reduce(%p), channel_id=2, "
        "replica_groups={{0,1},{2,3},{4,5},{6,7}}, use_global_device_ids=true, to_apply=%add\n"
        "  %rs = f32[1,16]{1,0} reduce-scatter(%p), channel_id=3, "
        "replica_groups={{0,1,2,3,4,5,6,7}}, dimensions={0}, use_global_device_ids=true, to_apply=%add\n"
        "  %aa = f32[8,16]{1,0} all-to-all(%p), channel_id=4, "
        "replica_groups={{0,1,2,3},{4,5,6,7}}, dimensions={0}\n"
        "  ROOT %cp = f32[8,16]{1,0} collective-permute(%p), channel_id=5, "
        "source_target_pairs={{0,1},{1,0},{2,2}}"
    )
    ag, ar, rs, aa, cp = parse_collectives(text)
    assert [c.kind for c in (ag, ar, rs, aa, cp)] == [
        "all-gather",
        "all-reduce",
        "reduce-scatter",
        "all-to-all",
        "collective-permute",
    ]
    # p is 512 bytes; all-gather prices its 2048-byte result.
    assert (ag.group_size, ag.num_groups, ag.tensor_bytes) == (4, 2, 2048)
    assert ag.bytes_per_device == 1536
    assert ag.result_shapes == (Shape("f32", (32, 16)),)
    assert (ar.group_size, ar.num_groups, ar.bytes_per_device) == (2, 4, 512)
    assert (rs.group_size, rs.num_groups, rs.bytes_per_device) == (8, 1, 448)
    assert (aa.group_size, aa.num_groups, aa.bytes_per_device) == (4, 2, 384)
    # {2,2} stays home: two moving pairs, each source sends its operand once.
    assert (cp.group_size, cp.num_groups, cp.bytes_per_device) == (2, 2, 512)
    s = summarize([ag, ar, rs, aa, cp])
    assert s.total == 5 and s.trivial == 0
    assert s.bytes_per_device == 1536 + 512 + 448 + 384 + 512
    assert all(v == 1 for v in s.counts.values())


def test_tuple_shaped_all_reduce_sums_its_elements() -> None:
    c = one(
        module(
            "  ROOT %ar = (f32[8,16]{1,0}, bf16[16]{0}) all-reduce(%p, %q), "
            "channel_id=1, replica_groups={{0,1,2,3},{4,5,6,7}}, "
            "use_global_device_ids=true, to_apply=%add"
        )
    )
    assert c.operand_shapes == (Shape("f32", (8, 16)), Shape("bf16", (16,)))
    assert c.element_type == "f32,bf16"
    assert c.tensor_bytes == 512 + 32
    assert c.bytes_per_device == Fraction(2 * 3, 4) * 544


def test_all_to_all_tuple_form_and_scalar_all_reduce() -> None:
    text = module(
        "  %s0 = f32[2,16]{1,0} slice(%p), slice={[0:2], [0:16]}\n"
        "  %s1 = f32[2,16]{1,0} slice(%p), slice={[2:4], [0:16]}\n"
        "  %aa = (f32[2,16]{1,0}, f32[2,16]{1,0}) all-to-all(%s0, %s1), "
        "channel_id=1, replica_groups={{0,1},{2,3},{4,5},{6,7}}\n"
        "  %z = f32[] constant(0)\n"
        "  ROOT %ar = f32[] all-reduce(%z), channel_id=2, replica_groups=[1,8]<=[8], "
        "use_global_device_ids=true, to_apply=%add"
    )
    aa, ar = parse_collectives(text)
    assert aa.bytes_per_device == Fraction(1, 2) * 256
    assert (ar.group_size, ar.num_groups, ar.bytes_per_device) == (8, 1, 7)


# ---------------------------------------------------------------- group forms


@pytest.mark.parametrize(
    ("groups", "size", "count"),
    [
        ("[2,4]<=[8]", 4, 2),
        ("[4,2]<=[2,4]T(1,0)", 2, 4),
        ("mesh['x'=2,'y'=4] {'y'}", 4, 2),
        ("mesh['x'=2,'y'=4] {'x','y'}", 8, 1),
        ("mesh['a'=4,'b'=2], device_ids=([2,2,2]T(0,2,1)) {'a':(2)2}", 2, 4),
        ("mesh[x=8] {x:(1)2}", 2, 4),
        ("{}", 8, 1),
    ],
)
def test_replica_group_forms(groups: str, size: int, count: int) -> None:
    c = one(
        module(
            f"  ROOT %ar = f32[8,16]{{1,0}} all-reduce(%p), channel_id=1, "
            f"replica_groups={groups}, use_global_device_ids=true, to_apply=%add"
        )
    )
    assert (c.group_size, c.num_groups) == (size, count)
    assert c.bytes_per_device == 2 * Fraction(size - 1, size) * 512


def test_empty_groups_follow_xla_group_modes() -> None:
    def size(attrs: str, header: str, **kw: int) -> int:
        body = f"  ROOT %ar = f32[8,16]{{1,0}} all-reduce(%p), {attrs}, to_apply=%add"
        return one(module(body, header), **kw).group_size

    hdr = "num_partitions=4, replica_count=2"
    assert size("replica_groups={}", hdr) == 2  # cross-replica
    assert size("channel_id=1, replica_groups={}, use_global_device_ids=true", hdr) == 8
    # channel_id without use_global_device_ids: replica ids, each group x partitions
    assert size("channel_id=1, replica_groups={}", hdr) == 8
    assert size("channel_id=1, replica_groups={{0}}", "num_partitions=4") == 4
    assert size("replica_groups={}", hdr, num_devices=16) == 16
    # all-to-all has no use_global_device_ids: with a channel, partition ids
    c = one(
        module(
            "  ROOT %aa = f32[8,16]{1,0} all-to-all(%p), channel_id=1, "
            "replica_groups={}, dimensions={0}",
            hdr,
        )
    )
    assert c.group_size == 4


def test_trivial_groups_are_listed_but_not_summed() -> None:
    text = module(
        "  %ar = f32[8,16]{1,0} all-reduce(%p), channel_id=1, "
        "replica_groups={{0},{1},{2},{3},{4},{5},{6},{7}}, use_global_device_ids=true, to_apply=%add\n"
        "  %cp = f32[8,16]{1,0} collective-permute(%ar), channel_id=2, "
        "source_target_pairs={{0,0},{1,1}}\n"
        "  ROOT %ag = f32[16,16]{1,0} all-gather(%cp), channel_id=3, "
        "replica_groups=[4,2]<=[8], dimensions={0}, use_global_device_ids=true"
    )
    ar, cp, ag = parse_collectives(text)
    assert ar.trivial and cp.trivial and not ag.trivial
    assert ar.bytes_per_device == 0 and cp.bytes_per_device == 0
    s = summarize([ar, cp, ag])
    assert (s.total, s.trivial, s.counts["all-gather"]) == (1, 2, 1)
    assert s.bytes_per_device == 512


# ---------------------------------------------------------------- async, calls


def test_async_pairs_count_once() -> None:
    wrapped = """
%a2a_body (w: f32[8,16]) -> f32[8,16] {
  %w = f32[8,16]{1,0} parameter(0)
  ROOT %inner = f32[8,16]{1,0} all-to-all(%w), channel_id=9, replica_groups={{0,1,2,3,4,5,6,7}}, dimensions={0}
}
"""
    text = module(
        "  %ags = (f32[8,16]{1,0}, f32[16,16]{1,0}) all-gather-start(%p), channel_id=1, "
        "replica_groups={{0,1},{2,3},{4,5},{6,7}}, dimensions={0}, use_global_device_ids=true\n"
        "  %agd = f32[16,16]{1,0} all-gather-done(%ags)\n"
        "  %ars = f32[8,16]{1,0} all-reduce-start(%p), channel_id=2, "
        "replica_groups=[2,4]<=[8], use_global_device_ids=true, to_apply=%add\n"
        "  %ard = f32[8,16]{1,0} all-reduce-done(%ars)\n"
        "  %cps = (f32[8,16]{1,0}, f32[8,16]{1,0}, u32[], u32[]) collective-permute-start(%p), "
        "channel_id=3, source_target_pairs={{0,1},{1,2}}\n"
        "  %cpd = f32[8,16]{1,0} collective-permute-done(%cps)\n"
        "  %rss = ((f32[8,16]{1,0}), f32[4,16]{1,0}) reduce-scatter-start(%p), channel_id=4, "
        "replica_groups={{0,1},{2,3},{4,5},{6,7}}, dimensions={0}, "
        "use_global_device_ids=true, to_apply=%add\n"
        "  %rsu = ((f32[8,16]{1,0}), f32[4,16]{1,0}) reduce-scatter-update(%rss)\n"
        "  %rsd = f32[4,16]{1,0} reduce-scatter-done(%rsu)\n"
        "  %as = ((f32[8,16]{1,0}), f32[8,16]{1,0}, s32[]) async-start(%p), calls=%a2a_body\n"
        "  ROOT %ad = f32[8,16]{1,0} async-done(%as), calls=%a2a_body",
        extra=wrapped,
    )
    cs = parse_collectives(text)
    assert [c.kind for c in cs] == [
        "all-gather",
        "all-reduce",
        "collective-permute",
        "reduce-scatter",
        "all-to-all",
    ]
    assert all(c.is_async and c.executions == 1 for c in cs)
    ag, ar, cp, rs, aa = cs
    assert ag.result_shapes == (Shape("f32", (16, 16)),)
    assert ag.bytes_per_device == 512  # (2-1)/2 * 1024
    assert ar.bytes_per_device == 768
    assert cp.result_shapes == (Shape("f32", (8, 16)),) and cp.bytes_per_device == 512
    assert rs.result_shapes == (Shape("f32", (4, 16)),) and rs.bytes_per_device == 256
    assert aa.computation == "a2a_body" and aa.bytes_per_device == 448
    assert summarize(cs).total == 5


def test_while_trip_counts_multiply_and_unknown_ones_are_marked() -> None:
    comps = """
%fused (f: f32[8,16]) -> f32[8,16] {
  %f = f32[8,16]{1,0} parameter(0)
  ROOT %far = f32[8,16]{1,0} all-reduce(%f), channel_id=1, replica_groups={{0,1,2,3,4,5,6,7}}, use_global_device_ids=true, to_apply=%add
}

%inner_body (ib: (s32[], f32[8,16])) -> (s32[], f32[8,16]) {
  %ib = (s32[], f32[8,16]{1,0}) parameter(0)
  %ix = f32[8,16]{1,0} get-tuple-element(%ib), index=1
  %fu = f32[8,16]{1,0} fusion(%ix), kind=kLoop, calls=%fused
  %ii = s32[] get-tuple-element(%ib), index=0
  ROOT %it = (s32[], f32[8,16]{1,0}) tuple(%ii, %fu)
}

%cond (c: (s32[], f32[8,16])) -> pred[] {
  %c = (s32[], f32[8,16]{1,0}) parameter(0)
  ROOT %t = pred[] constant(true)
}

%outer_body (ob: (s32[], f32[8,16])) -> (s32[], f32[8,16]) {
  %ob = (s32[], f32[8,16]{1,0}) parameter(0)
  ROOT %w2 = (s32[], f32[8,16]{1,0}) while(%ob), condition=%cond, body=%inner_body, backend_config={"known_trip_count":{"n":"3"}}
}

%unknown_body (ub: (s32[], f32[8,16])) -> (s32[], f32[8,16]) {
  %ub = (s32[], f32[8,16]{1,0}) parameter(0)
  %ux = f32[8,16]{1,0} get-tuple-element(%ub), index=1
  %uag = f32[64,16]{1,0} all-gather(%ux), channel_id=2, replica_groups=[1,8]<=[8], dimensions={0}, use_global_device_ids=true
  ROOT %ut = (s32[], f32[8,16]{1,0}) tuple(%ux, %ux)
}

%br0 (b0: f32[8,16]) -> f32[8,16] {
  %b0 = f32[8,16]{1,0} parameter(0)
  ROOT %bcp = f32[8,16]{1,0} collective-permute(%b0), channel_id=3, source_target_pairs={{0,1}}
}

%br1 (b1: f32[8,16]) -> f32[8,16] {
  ROOT %b1 = f32[8,16]{1,0} parameter(0)
}
"""
    text = module(
        "  %i0 = s32[] constant(0)\n"
        "  %tup = (s32[], f32[8,16]{1,0}) tuple(%i0, %p)\n"
        '  %w1 = (s32[], f32[8,16]{1,0}) while(%tup), condition=%cond, body=%outer_body, metadata={op_name="x, y"}, '
        'backend_config={"known_trip_count":{"n":"2"}}\n'
        "  %w3 = (s32[], f32[8,16]{1,0}) while(%tup), condition=%cond, body=%unknown_body\n"
        "  %k = s32[] constant(0)\n"
        "  ROOT %cd = f32[8,16]{1,0} conditional(%k, %p, %p), branch_computations={%br0, %br1}",
        extra=comps,
    )
    far, uag, bcp = parse_collectives(text)
    assert (far.computation, far.executions, far.trip_count_known) == ("fused", 6, True)
    assert (uag.executions, uag.trip_count_known) == (1, False)
    assert bcp.in_conditional and bcp.executions == 1
    s = summarize([far, uag, bcp])
    assert s.counts["all-reduce"] == 6 and s.total == 8
    assert s.bytes_per_device == 6 * 896 + 3584 + 512  # gathered 4096 B
    assert s.trip_count_unknown and s.in_conditional


def test_multi_line_instructions_and_unprefixed_names() -> None:
    text = """HloModule m, num_partitions=2

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY main {
  p1 = f32[2] parameter(0)
  ROOT rs = ((f32[2]), f32[1]) reduce-scatter-start(f32[2] p1), to_apply=add,
      dimensions={0}, channel_id=1, replica_groups={{0,1}},
      use_global_device_ids=true
}
"""
    c = one(text)
    assert (c.kind, c.group_size, c.bytes_per_device) == ("reduce-scatter", 2, 4)


# ---------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            "  ROOT %ar = f32[8,16]{1,0} all-reduce(%p), replica_groups=garbage, to_apply=%add",
            "replica groups",
        ),
        (
            "  ROOT %ar = f32[8,16]{1,0} all-reduce(%p), channel_id=1, "
            "replica_groups=mesh['x'=8] {'z'}, to_apply=%add",
            "mesh axis",
        ),
        (
            "  ROOT %ar = f32[8,16]{1,0} all-reduce(%nowhere), replica_groups={}, to_apply=%add",
            "not defined",
        ),
        (
            "  ROOT %ar = f32[8,16]{1,0} all-reduce(%p), replica_groups={{}}, to_apply=%add",
            "empty replica group",
        ),
        (
            "  ROOT %cp = f32[8,16]{1,0} collective-permute(%p), channel_id=1",
            "source_target",
        ),
        (
            "  ROOT %ag = f32[8,16]{1,0} all-gather-start(%p), dimensions={0}",
            "not a tuple",
        ),
        (
            "  %t = token[] after-all()\n  ROOT %s = (f32[8,16], u32[], token[]) send(%p, %t), channel_id=1",
            "does not price",
        ),
    ],
)
def test_unreadable_collectives_raise(body: str, message: str) -> None:
    with pytest.raises(HloCollectiveError, match=message):
        parse_collectives(module(body))


def test_unknown_non_collective_lines_are_ignored_but_collectives_are_not() -> None:
    text = module(
        "  %odd = f32[8,16]{1,0} custom-call(%p), weird={[(}\n"
        "  ROOT %ar = f32[8,16]{1,0} all-reduce(%p), replica_groups={{0,1}}, to_apply=%add"
    )
    assert one(text).group_size == 2
    with pytest.raises(HloCollectiveError, match="cannot read"):
        parse_collectives(module("  ROOT %ar = ?? all-reduce(%p), replica_groups={}"))
    with pytest.raises(HloCollectiveError, match="cannot parse shape"):
        parse_collectives(
            module("  ROOT %ar = f32[8 all-reduce(%p), replica_groups={}")
        )


def test_no_entry_raises() -> None:
    with pytest.raises(HloCollectiveError, match="ENTRY"):
        parse_collectives("HloModule m\n")


# ---------------------------------------------------------------- command line


def test_cli_prints_a_table(tmp_path, capsys) -> None:
    f = tmp_path / "m.hlo"
    f.write_text(
        module(
            "  ROOT %ar = f32[8,16]{1,0} all-reduce(%p), channel_id=1, "
            "replica_groups=[2,4]<=[8], use_global_device_ids=true, to_apply=%add"
        )
    )
    assert main([str(f)]) == 0
    out = capsys.readouterr().out
    assert "all-reduce" in out and "768" in out
    assert "total: 1 collectives (all-reduce 1), 768 bytes per device, 0 trivial" in out
    run = subprocess.run(
        [sys.executable, str(BENCH / "hlo_collectives.py"), str(f)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert run.stdout == out
    bad = tmp_path / "bad.hlo"
    bad.write_text(
        module("  ROOT %ar = f32[8,16]{1,0} all-reduce(%p), replica_groups=?")
    )
    assert main([str(bad)]) == 1
    assert "error:" in capsys.readouterr().err


# ---------------------------------------------------------------- real JAX programs

jax = pytest.importorskip("jax")


def _mesh(shape: tuple[int, ...], names: tuple[str, ...]):
    if len(jax.devices()) < 8:
        pytest.skip("needs 8 (simulated) devices")
    axis = jax.sharding.AxisType.Auto
    return jax.make_mesh(shape, names, axis_types=(axis,) * len(names))


def test_shard_map_collectives_on_a_2x4_mesh() -> None:
    from jax.sharding import PartitionSpec as P

    mesh = _mesh((2, 4), ("x", "y"))

    def f(a):
        s = jax.lax.psum(a, "y")
        g = jax.lax.all_gather(a, "x", tiled=True)
        r = jax.lax.psum_scatter(a, "y", scatter_dimension=0, tiled=True)
        t = jax.lax.all_to_all(a, "y", 0, 1, tiled=True)
        p = jax.lax.ppermute(a, "y", [(i, (i + 1) % 4) for i in range(4)])
        return s, g, r, t, p

    sm = jax.shard_map(
        f, mesh=mesh, in_specs=P(), out_specs=(P(),) * 5, check_vma=False
    )
    a = jax.numpy.ones((8, 16), jax.numpy.float32)  # 512 bytes on every device
    cs = parse_collectives(jax.jit(sm).lower(a).compile().as_text())
    by_kind = {c.kind: c for c in cs}
    assert len(cs) == 5 and set(by_kind) == {
        "all-reduce",
        "all-gather",
        "reduce-scatter",
        "all-to-all",
        "collective-permute",
    }
    ar, ag = by_kind["all-reduce"], by_kind["all-gather"]
    rs, aa, cp = (
        by_kind["reduce-scatter"],
        by_kind["all-to-all"],
        by_kind["collective-permute"],
    )
    assert (ar.group_size, ar.num_groups, ar.bytes_per_device) == (4, 2, 768)
    assert (ag.group_size, ag.num_groups, ag.bytes_per_device) == (2, 4, 512)
    assert ag.result_shapes == (Shape("f32", (16, 16)),)
    assert (rs.group_size, rs.num_groups, rs.bytes_per_device) == (4, 2, 384)
    assert (aa.group_size, aa.num_groups, aa.bytes_per_device) == (4, 2, 384)
    assert (cp.num_groups, cp.bytes_per_device) == (8, 512)
    s = summarize(cs)
    assert (s.total, s.trivial, s.bytes_per_device) == (
        5,
        0,
        768 + 512 + 384 + 384 + 512,
    )


def test_psum_in_fori_loop_counts_every_iteration() -> None:
    from jax.sharding import PartitionSpec as P

    mesh = _mesh((2, 4), ("x", "y"))

    def h(x):
        return jax.lax.fori_loop(0, 5, lambda i, c: jax.lax.psum(c, "x") * 0.5, x)

    sm = jax.shard_map(h, mesh=mesh, in_specs=P(), out_specs=P(), check_vma=False)
    a = jax.numpy.ones((8, 16), jax.numpy.float32)
    (c,) = parse_collectives(jax.jit(sm).lower(a).compile().as_text())
    assert (c.kind, c.group_size, c.executions, c.trip_count_known) == (
        "all-reduce",
        2,
        5,
        True,
    )
    assert summarize([c]).bytes_per_device == 5 * 512


def test_jit_matmul_split_on_the_contracting_dim_is_one_all_reduce() -> None:
    from jax.sharding import NamedSharding
    from jax.sharding import PartitionSpec as P

    mesh = _mesh((8,), ("d",))
    x = jax.numpy.ones((4, 64), jax.numpy.float32)
    w = jax.numpy.ones((64, 32), jax.numpy.float32)
    compiled = (
        jax.jit(
            lambda x, w: x @ w,
            in_shardings=(
                NamedSharding(mesh, P(None, "d")),
                NamedSharding(mesh, P("d")),
            ),
            out_shardings=NamedSharding(mesh, P()),
        )
        .lower(x, w)
        .compile()
    )
    (c,) = parse_collectives(compiled.as_text())
    assert c.kind == "all-reduce" and c.operand_shapes == (Shape("f32", (4, 32)),)
    assert (c.group_size, c.num_groups) == (8, 1)
    assert c.bytes_per_device == 2 * Fraction(7, 8) * 512  # 896
