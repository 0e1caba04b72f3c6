"""The graph the propagation strategies search: ops, arguments, results, values.

Plain data, no IR.  A pass builds one from a function: every tensor op becomes
an ``OpNode`` with its candidate signatures (already filtered by shape, by
the op-rule registry), every function argument a ``SourceNode`` (a given
nd_sbp, or free with candidate layouts), every function result a
``SinkNode`` (the layouts the caller accepts back).  Edges are the *uses* of
values: a value produced by one node is consumed by operand ``k`` of another;
each use is priced on its own (``edge_cost(src_nd, dst_nd, tensor)``), as in
OneFlow and Alpa, so a value that two consumers want in the same new layout
is counted twice.

Every node offers *options*, and every strategy picks one option index per
node: an op's options are its candidate signatures left after its user
constraints, a source's are nd_sbps, a sink's the nd_sbps it accepts.  This
one shape lets greedy, BFS and the ILP share the graph without special cases.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Generic, NamedTuple, TypeAlias, TypeVar

from sbpc.algebra.sbp import B, NdSbp, format_nd_sbp
from sbpc.algebra.signature import Signature
from sbpc.algebra.tensor_type import TensorType

NodeId: TypeAlias = int
ValueId: TypeAlias = int

# Modeled time (seconds, or any unit used consistently) of changing a tensor's
# layout src_nd -> dst_nd; ``math.inf`` means the change is impossible.
EdgeCost: TypeAlias = Callable[[NdSbp, NdSbp, TensorType], float]
_T = TypeVar("_T")
# The layout constraints of an unconstrained op: one shared, read-only mapping.
_NO_LAYOUTS: Mapping[int, NdSbp] = MappingProxyType({})


class GraphError(ValueError):
    """A graph that cannot be searched (bad arity, cycle, empty options)."""


class PropagationError(ValueError):
    """No plan can be made (every option infeasible, memory budget too small)."""


class Edge(NamedTuple):
    """One use: ``value`` leaves ``src`` (result ``src_index``), enters operand
    ``dst_index`` of ``dst``.

    ``weight``: how many times the layout change runs (a use inside a loop
    body runs every iteration); ``tied``: the two ends must agree (a loop's
    carried value and the body's yield of it), any change is impossible.
    A named tuple, not a frozen dataclass: a big model has tens of thousands
    of edges, and a tuple is built three times faster.
    """

    id: int
    value: ValueId
    src: NodeId
    src_index: int
    dst: NodeId
    dst_index: int
    weight: float = 1.0
    tied: bool = False


class _computed_once(Generic[_T]):
    """``functools.cached_property`` without its lock: Python 3.11 takes one
    on the first read of every node's options (a fifth of a greedy walk
    under cProfile)."""

    def __init__(self, compute: Callable[[Any], _T]) -> None:
        self.compute = compute
        self.name = compute.__name__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:  # read on the class
            return self
        value = obj.__dict__[self.name] = self.compute(obj)
        return value


@dataclass(frozen=True)
class EdgeTensor(TensorType):
    """The tensor of a weighted or tied edge, as the strategies price it:
    ``EdgeCosts`` multiplies by ``weight`` and makes a tied change infinite,
    so every strategy handles regions without knowing about them."""

    weight: float = 1.0
    tied: bool = False

    @property
    def plain(self) -> TensorType:
        return TensorType(self.shape, self.element)


@dataclass(slots=True)
class Value:
    id: ValueId
    name: str
    tensor: TensorType
    producer: NodeId
    index: int
    uses: list[int] = field(default_factory=list)  # edge ids


@dataclass
class OpNode:
    """A tensor op.  ``fixed`` (a user ``sbp.sig``) replaces the candidates;
    ``operand_layouts`` / ``result_layouts`` keep only candidates that agree
    (OneFlow's nd_sbp constraints).  ``compute_costs`` parallels
    ``candidates`` (modeled time of the op under each signature); ``kind``
    is the op's name, for the memory model."""

    id: NodeId
    name: str
    operands: tuple[ValueId, ...]
    results: tuple[ValueId, ...]
    candidates: tuple[Signature, ...]
    fixed: Signature | None = None
    operand_layouts: Mapping[int, NdSbp] = field(default_factory=dict)
    result_layouts: Mapping[int, NdSbp] = field(default_factory=dict)
    compute_costs: tuple[float, ...] | None = None
    in_edges: list[int] = field(default_factory=list)  # one per operand
    out_edges: list[int] = field(default_factory=list)
    # The op's name (``stablehlo.add``): what the memory model reads to know
    # which results the compiler stores (``sbpc.ops.fusion``); "" unknown.
    kind: str = ""

    @property
    def constrained(self) -> bool:
        """Whether the user said anything about this op's layouts."""
        return self.fixed is not None or bool(
            self.operand_layouts or self.result_layouts
        )

    @_computed_once
    def _allowed(self) -> tuple[tuple[Signature, ...], tuple[float, ...]]:
        if self.fixed is not None:
            cost = 0.0
            if self.compute_costs is not None and self.fixed in self.candidates:
                cost = self.compute_costs[self.candidates.index(self.fixed)]
            return (self.fixed,), (cost,)
        if not (self.operand_layouts or self.result_layouts):
            # The very candidates tuple: nodes sharing one list share its
            # identity, which lets the optimal strategy memoize per list.
            costs = self.compute_costs or (0.0,) * len(self.candidates)
            return self.candidates, costs
        sigs, kept = [], []
        for i, sig in enumerate(self.candidates):
            if all(
                sig.inputs[k] == nd for k, nd in self.operand_layouts.items()
            ) and all(sig.outputs[r] == nd for r, nd in self.result_layouts.items()):
                sigs.append(sig)
                kept.append(self.compute_costs[i] if self.compute_costs else 0.0)
        return tuple(sigs), tuple(kept)

    @property
    def options(self) -> tuple[Signature, ...]:
        return self._allowed[0]

    @property
    def option_costs(self) -> tuple[float, ...]:
        return self._allowed[1]

    def out_layout(self, option: int, index: int) -> NdSbp:
        return self.options[option].outputs[index]

    def in_layout(self, option: int, index: int) -> NdSbp | None:
        return self.options[option].inputs[index]


@dataclass
class SourceNode:
    """A function argument: ``layout`` given, or free among ``candidates``
    (empty: broadcast on every hierarchy dimension only, OneFlow's variable
    default).  ``donated``: the caller gives its buffer to the program
    (``jax.jit``'s ``donate_argnums``), which may write a result into it."""

    id: NodeId
    name: str
    result: ValueId
    layout: NdSbp | None
    candidates: tuple[NdSbp, ...]
    ndim: int
    out_edges: list[int] = field(default_factory=list)
    donated: bool = False

    @property
    def fixed(self) -> bool:
        return self.layout is not None

    @_computed_once
    def options(self) -> tuple[NdSbp, ...]:
        if self.layout is not None:
            return (self.layout,)
        return self.candidates or ((B,) * self.ndim,)

    @property
    def option_costs(self) -> tuple[float, ...]:
        return (0.0,) * len(self.options)

    def greedy_option(self) -> int:
        """OneFlow's default for a free variable: ``B`` on every dimension."""
        all_b = (B,) * self.ndim
        return self.options.index(all_b) if all_b in self.options else 0

    def out_layout(self, option: int, index: int) -> NdSbp:
        return self.options[option]

    def in_layout(self, option: int, index: int) -> NdSbp | None:
        raise GraphError("a source has no operands")


@dataclass
class SinkNode:
    """A function result: the layouts the caller accepts (``None``: any, free).

    ``tied_to``: the source whose layout the result must come back in (state
    that is the next call's argument); its value is the sink's operand 1,
    over a tied edge, so every strategy sees the tie as an infinite price
    on any other choice.
    """

    id: NodeId
    name: str
    operand: ValueId
    wanted: tuple[NdSbp, ...] | None
    in_edges: list[int] = field(default_factory=list)
    tied_to: NodeId | None = None

    @_computed_once
    def options(self) -> tuple[NdSbp | None, ...]:
        return self.wanted or (None,)

    @property
    def option_costs(self) -> tuple[float, ...]:
        return (0.0,) * len(self.options)

    def out_layout(self, option: int, index: int) -> NdSbp:
        raise GraphError("a sink has no results")

    def in_layout(self, option: int, index: int) -> NdSbp | None:
        return self.options[option]


Node: TypeAlias = OpNode | SourceNode | SinkNode


class SbpGraph:
    """Nodes in insertion order (node id = index), values, and use edges."""

    def __init__(self, hierarchy: Sequence[int]) -> None:
        self.hierarchy: tuple[int, ...] = tuple(hierarchy)
        if not self.hierarchy or any(n <= 0 for n in self.hierarchy):
            raise GraphError(f"bad hierarchy {list(self.hierarchy)}")
        self.nodes: list[Node] = []
        self.values: list[Value] = []
        self.edges: list[Edge] = []
        # Arguments gathered per use (FSDP): each op reading one in a larger
        # layout than it is stored in reads a gather of its own, made just
        # before it (``memory.per_use_copies``); the planner sets it under a
        # binding memory budget (``driver.propagate``).
        self.gathered_per_use: frozenset[ValueId] = frozenset()
        # Candidate tuples already checked, by identity (kept alive here): a
        # model passes the same memoized tuple for thousands of equal ops
        # (and of weights of one type).
        self._checked: dict[
            tuple[int, int, int], tuple[Signature, ...] | tuple[NdSbp, ...]
        ] = {}

    # -- building -----------------------------------------------------------

    @property
    def ndim(self) -> int:
        return len(self.hierarchy)

    @property
    def is_single_device(self) -> bool:
        return all(n == 1 for n in self.hierarchy)

    def _new_value(
        self, name: str, tensor: TensorType, producer: int, index: int
    ) -> int:
        value = Value(len(self.values), name, tensor, producer, index)
        self.values.append(value)
        return value.id

    def _check_nd(self, nd: NdSbp, what: str) -> None:
        if len(nd) != self.ndim:
            raise GraphError(
                f"{what}: nd_sbp {format_nd_sbp(nd)} has {len(nd)} entries, "
                f"the hierarchy has {self.ndim} dimensions"
            )

    def _check_value(self, value: ValueId) -> None:
        if not 0 <= value < len(self.values):
            raise GraphError(f"unknown value {value}")

    def _use(
        self,
        value: ValueId,
        dst: NodeId,
        dst_index: int,
        weight: float = 1.0,
        tied: bool = False,
    ) -> int:
        v = self.values[value]
        edge = Edge(
            len(self.edges), value, v.producer, v.index, dst, dst_index, weight, tied
        )
        self.edges.append(edge)
        v.uses.append(edge.id)
        src = self.nodes[v.producer]
        assert not isinstance(src, SinkNode)
        src.out_edges.append(edge.id)
        return edge.id

    def add_argument(
        self,
        name: str,
        tensor: TensorType,
        layout: NdSbp | None = None,
        candidates: Sequence[NdSbp] = (),
        donated: bool = False,
    ) -> ValueId:
        """A function argument; returns its value.  ``donated``: its buffer
        may hold a result (``SourceNode.donated``)."""
        candidates = tuple(candidates)
        checked = (id(candidates), -1, -1)  # a layout list: no signature arity
        fresh = () if self._checked.get(checked) is candidates else candidates
        for nd in (layout, *fresh):
            if nd is not None:
                self._check_nd(nd, f"argument '{name}'")
        self._checked[checked] = candidates
        node_id = len(self.nodes)
        value = self._new_value(name, tensor, node_id, 0)
        self.nodes.append(
            SourceNode(
                node_id, name, value, layout, candidates, self.ndim, donated=donated
            )
        )
        return value

    def add_op(
        self,
        name: str,
        operands: Sequence[ValueId],
        result_types: Sequence[TensorType],
        candidates: Sequence[Signature],
        *,
        fixed: Signature | None = None,
        operand_layouts: Mapping[int, NdSbp] | None = None,
        result_layouts: Mapping[int, NdSbp] | None = None,
        compute_costs: Sequence[float] | None = None,
        result_names: Sequence[str] | None = None,
        edge_weights: Sequence[float] | None = None,
        tied: Sequence[int] = (),
        kind: str = "",
    ) -> tuple[ValueId, ...]:
        """A tensor op; returns its results' values.

        ``edge_weights``: per operand, how often its layout change runs;
        ``tied``: operands whose layout must equal their producer's;
        ``kind``: the op's name (``stablehlo.add``), which tells the memory
        model whether the compiler stores its results (``sbpc.ops.fusion``).
        """
        n_values = len(self.values)
        for v in operands:
            if not 0 <= v < n_values:
                raise GraphError(f"unknown value {v}")
        node_id = len(self.nodes)
        n_in, n_out = len(operands), len(result_types)
        sigs = candidates if type(candidates) is tuple else tuple(candidates)
        checked = (id(sigs), n_in, n_out)
        to_check = () if self._checked.get(checked) is sigs else sigs
        for sig in (*to_check, fixed) if fixed is not None else to_check:
            if len(sig.inputs) != n_in or len(sig.outputs) != n_out:
                raise GraphError(
                    f"op '{name}': signature {sig} does not have {n_in} operand "
                    f"and {n_out} result layouts"
                )
            for nd in (*sig.inputs, *sig.outputs):
                self._check_nd(nd, f"op '{name}'")
        if compute_costs is not None and len(compute_costs) != len(sigs):
            raise GraphError(f"op '{name}': one compute cost per candidate expected")
        self._checked[checked] = sigs
        in_layouts = dict(operand_layouts) if operand_layouts else _NO_LAYOUTS
        out_layouts = dict(result_layouts) if result_layouts else _NO_LAYOUTS
        if fixed is None and not (
            any(
                all(sig.inputs[k] == nd for k, nd in in_layouts.items())
                and all(sig.outputs[r] == nd for r, nd in out_layouts.items())
                for sig in sigs
            )
            if in_layouts or out_layouts
            else sigs
        ):
            raise GraphError(
                f"op '{name}': no candidate signature meets its constraints"
            )
        names = result_names or (
            [name] if n_out == 1 else [f"{name}#{r}" for r in range(n_out)]
        )
        values = self.values
        results = tuple(range(n_values, n_values + n_out))
        for r, t in enumerate(result_types):
            values.append(Value(n_values + r, names[r], t, node_id, r, []))
        node = OpNode(
            node_id,
            name,
            tuple(operands),
            results,
            sigs,
            fixed,
            in_layouts,
            out_layouts,
            None if compute_costs is None else tuple(compute_costs),
            self._uses(node_id, operands, edge_weights, tied),
            kind=kind,
        )
        self.nodes.append(node)
        return results

    def _uses(
        self,
        dst: NodeId,
        operands: Sequence[ValueId],
        weights: Sequence[float] | None,
        tied: Sequence[int],
    ) -> list[int]:
        """An edge into each operand of ``dst`` (``_use``, in one loop)."""
        edges, values, nodes = self.edges, self.values, self.nodes
        n_weights = len(weights) if weights is not None else 0
        out = []
        for k, v in enumerate(operands):
            value = values[v]
            edge_id = len(edges)
            weight = weights[k] if weights is not None and k < n_weights else 1.0
            edges.append(
                Edge(
                    edge_id,
                    v,
                    value.producer,
                    value.index,
                    dst,
                    k,
                    weight,
                    k in tied,
                )
            )
            value.uses.append(edge_id)
            src = nodes[value.producer]
            assert not isinstance(src, SinkNode)
            src.out_edges.append(edge_id)
            out.append(edge_id)
        return out

    def add_result(
        self,
        name: str,
        value: ValueId,
        wanted: NdSbp | Sequence[NdSbp] | None = None,
        tied_to: ValueId | None = None,
    ) -> NodeId:
        """A function result; ``wanted`` is one nd_sbp, several accepted, or any.

        ``tied_to``: an argument's value whose layout the result must come
        back in (the argument is the next call's state): the result accepts
        only the argument's options (and ``wanted``, when given), and a tied
        edge from the argument makes any other pair infinite.
        """
        self._check_value(value)
        if wanted is not None and len(wanted) and not isinstance(wanted[0], tuple):
            wanted = (tuple(wanted),)  # one nd_sbp given
        accepted = tuple(tuple(nd) for nd in wanted) if wanted else None
        for nd in accepted or ():
            self._check_nd(nd, f"result '{name}'")
        source = None
        if tied_to is not None:
            self._check_value(tied_to)
            source = self.nodes[self.values[tied_to].producer]
            if not isinstance(source, SourceNode):
                raise GraphError(f"result '{name}': tied to a value of no argument")
            if self.values[tied_to].tensor != self.values[value].tensor:
                raise GraphError(
                    f"result '{name}' ({self.values[value].tensor}) is tied to "
                    f"argument '{source.name}' of another type "
                    f"({self.values[tied_to].tensor})"
                )
            keep = source.options
            accepted = tuple(nd for nd in accepted or keep if nd in keep)
            if not accepted:
                raise GraphError(
                    f"result '{name}' is tied to argument '{source.name}', but "
                    "no layout it accepts is one the argument may take"
                )
        node_id = len(self.nodes)
        node = SinkNode(node_id, name, value, accepted)
        self.nodes.append(node)
        node.in_edges = [self._use(value, node_id, 0)]
        if source is not None and tied_to is not None:
            node.tied_to = source.id
            node.in_edges.append(self._use(tied_to, node_id, 1, tied=True))
        return node_id

    # -- reading ------------------------------------------------------------

    def ops(self) -> Iterator[OpNode]:
        return (n for n in self.nodes if isinstance(n, OpNode))

    def sources(self) -> Iterator[SourceNode]:
        return (n for n in self.nodes if isinstance(n, SourceNode))

    def sinks(self) -> Iterator[SinkNode]:
        return (n for n in self.nodes if isinstance(n, SinkNode))

    def in_edges(self, node: NodeId) -> list[int]:
        n = self.nodes[node]
        return [] if isinstance(n, SourceNode) else n.in_edges

    def out_edges(self, node: NodeId) -> list[int]:
        n = self.nodes[node]
        return [] if isinstance(n, SinkNode) else n.out_edges

    def edge_src_layout(self, edge: Edge, option: int) -> NdSbp:
        """Layout ``edge``'s value has when its producer takes ``option``."""
        return self.nodes[edge.src].out_layout(option, edge.src_index)

    def edge_dst_layout(self, edge: Edge, option: int) -> NdSbp | None:
        """Layout ``edge``'s consumer wants under ``option`` (None: any)."""
        return self.nodes[edge.dst].in_layout(option, edge.dst_index)

    def tensor(self, edge: Edge) -> TensorType:
        """The edge's tensor as priced (an ``EdgeTensor`` when weighted or tied)."""
        tensor = self.values[edge.value].tensor
        if edge.weight == 1.0 and not edge.tied:
            return tensor
        return EdgeTensor(tensor.shape, tensor.element, edge.weight, edge.tied)

    def topological_order(self) -> list[NodeId]:
        """Node ids in insertion order.

        The builder only accepts operands that already exist, so insertion
        order is a topological order, and it is the program order the pass
        walks: greedy then decides ops exactly as OneFlow does, op by op.
        """
        return list(range(len(self.nodes)))

    def __len__(self) -> int:
        return len(self.nodes)
