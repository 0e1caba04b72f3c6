"""Combining independent collectives: groups are independent, schedules valid."""

from __future__ import annotations

import random
from dataclasses import dataclass

import pytest

from sbpc.jax_backend.combine import Combined, Grouping, combine_groups


@dataclass(frozen=True)
class N:
    """A node: name, values used and defined, collective key (None: an op), bytes."""

    name: str
    uses: tuple[str, ...]
    defs: tuple[str, ...]
    key: str | None = None
    size: int = 4


def schedule(nodes: list[N], max_bytes: int = 1 << 30) -> list[N | Combined[N]]:
    return grouped(nodes, max_bytes).schedule()


def grouped(nodes: list[N], max_bytes: int = 1 << 30) -> Grouping[N]:
    return combine_groups(
        nodes,
        operands=lambda n: n.uses,
        results=lambda n: n.defs,
        key=lambda n: n.key,
        nbytes=lambda n: n.size,
        max_bytes=max_bytes,
    )


def op(name: str, *uses: str) -> N:
    return N(name, uses, (name,))


def coll(name: str, x: str, key: str = "ag", size: int = 4) -> N:
    return N(name, (x,), (name,), key, size)


def flat(order: list[N | Combined[N]]) -> list[list[N]]:
    return [list(u.members) if isinstance(u, Combined) else [u] for u in order]


def names(order: list[N | Combined[N]]) -> list[list[str]]:
    return [[n.name for n in unit] for unit in flat(order)]


def ancestors(nodes: list[N]) -> dict[str, set[str]]:
    by_value = {v: n for n in nodes for v in n.defs}
    anc: dict[str, set[str]] = {}
    for n in nodes:
        a: set[str] = set()
        for v in n.uses:
            if v in by_value:
                p = by_value[v]
                a |= {p.name} | anc[p.name]
        anc[n.name] = a
    return anc


def check_valid(nodes: list[N], order: list[N | Combined[N]], max_bytes: int) -> None:
    """Every node once; uses after defs; a group: one key, independent, fits."""
    units = flat(order)
    assert sorted(n.name for u in units for n in u) == sorted(n.name for n in nodes)
    anc = ancestors(nodes)
    defined = {v for n in nodes for v in n.uses} - {v for n in nodes for v in n.defs}
    for unit in units:
        for n in unit:
            missing = set(n.uses) - defined
            assert not missing, f"{n.name} uses {missing} before they are defined"
        if len(unit) > 1:
            assert len({n.key for n in unit}) == 1 and unit[0].key is not None
            assert sum(n.size for n in unit) <= max_bytes
            member_names = {n.name for n in unit}
            for n in unit:
                assert not anc[n.name] & member_names, f"{n.name} depends on its group"
        for n in unit:
            defined |= set(n.defs)


def test_independent_collectives_of_one_key_become_one() -> None:
    nodes = [
        op("a", "x"),
        coll("ga", "a"),
        op("b", "y"),
        coll("gb", "b"),
        op("c", "ga", "gb"),
    ]
    assert names(schedule(nodes)) == [["a"], ["b"], ["ga", "gb"], ["c"]]


def test_dependent_collectives_and_other_keys_stay_apart() -> None:
    nodes = [
        coll("g1", "x"),
        coll("g2", "g1"),  # depends on g1
        coll("r1", "y", key="rs"),  # other key
        op("out", "g2", "r1"),
    ]
    order = schedule(nodes)
    assert all(len(u) == 1 for u in flat(order))
    check_valid(nodes, order, 1 << 30)


def test_a_chunk_holds_at_most_max_bytes() -> None:
    nodes = [coll(f"g{i}", f"x{i}", size=10) for i in range(5)]
    order = schedule(nodes, max_bytes=25)
    assert names(order) == [["g0", "g1"], ["g2", "g3"], ["g4"]]
    # A collective larger than the threshold runs alone.
    assert names(schedule([coll("big", "x", size=99)], max_bytes=25)) == [["big"]]


def test_gradient_reductions_wait_for_each_other() -> None:
    """Backward: each layer's reduction is independent of the chain's collectives
    after it; as late as possible they form one group with the last one."""
    nodes = [
        coll("c0", "x"),  # a collective on the backward chain
        op("h1", "c0"),
        coll("grad0", "x", key="rs"),  # layer 0's gradient: needed only at the end
        coll("c1", "h1"),
        op("h2", "c1"),
        coll("grad1", "h1", key="rs"),
        coll("grad2", "h2", key="rs"),
        op("upd", "grad0", "grad1", "grad2"),
    ]
    order = schedule(nodes)
    check_valid(nodes, order, 1 << 30)
    assert ["grad0", "grad1", "grad2"] in names(order)
    assert len(order) == 6


def test_as_soon_as_possible_when_it_groups_as_well() -> None:
    nodes = [coll("g0", "x"), coll("g1", "y"), op("a", "g0"), op("b", "g1")]
    assert names(schedule(nodes)) == [["g0", "g1"], ["a"], ["b"]]


def test_empty_and_malformed_programs() -> None:
    assert schedule([]) == []
    with pytest.raises(ValueError, match="node 0 uses a value defined at or after"):
        schedule([op("a", "b"), op("b", "x")])


def random_program(rng: random.Random, n: int) -> list[N]:
    values = ["in0", "in1", "in2"]
    nodes = []
    for i in range(n):
        if rng.random() < 0.5:
            uses = tuple(rng.sample(values, rng.randint(1, min(3, len(values)))))
            nodes.append(N(f"n{i}", uses, (f"n{i}",)))
        else:
            nodes.append(
                coll(f"n{i}", rng.choice(values), rng.choice("ab"), rng.randint(1, 9))
            )
        values.append(f"n{i}")
    return nodes


@pytest.mark.parametrize("seed", range(200))
def test_random_programs_get_valid_schedules(seed: int) -> None:
    rng = random.Random(seed)
    nodes = random_program(rng, rng.randint(1, 40))
    max_bytes = rng.choice([5, 12, 1 << 30])
    order = schedule(nodes, max_bytes)
    check_valid(nodes, order, max_bytes)
    # Never more units than nodes, and never more collectives than before.
    collectives = [u for u in flat(order) if u[0].key is not None]
    assert len(collectives) <= sum(n.key is not None for n in nodes)


@pytest.mark.parametrize("seed", range(100))
def test_groups_are_the_schedules_units(seed: int) -> None:
    """``Grouping.units`` (what the search prices) gives the units the
    schedule runs: the same groups, members in program order."""
    rng = random.Random(seed)
    nodes = random_program(rng, rng.randint(1, 40))
    max_bytes = rng.choice([5, 12, 1 << 30])
    groups = grouped(nodes, max_bytes).units()
    want = sorted(names(schedule(nodes, max_bytes)))
    assert sorted([n.name for n in unit] for unit in groups) == want
    assert grouped([]).units() == [] and grouped([]).schedule() == []
