"""``sdy.mesh`` and the shardings checked against the mesh they name.

Shardy's verifier rejects a sharding that names an unknown mesh or axis,
uses an axis twice, has a malformed sub-axis, or has not one dimension
sharding per tensor dimension (``check_sharding``).  The ops of ``ops``
and the module-wide ``verifier`` both check shardings here, and a manual
computation's body types follow from ``local_type``.
"""

from __future__ import annotations

from xdsl.dialects.builtin import StringAttr, SymbolRefAttr, TensorType
from xdsl.ir import Attribute, Operation
from xdsl.irdl import IRDLOperation, irdl_op_definition, prop_def, traits_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import SymbolOpInterface
from xdsl.utils.exceptions import VerifyException

from .attrs import MeshAttr, TensorShardingAttr


@irdl_op_definition
class MeshOp(IRDLOperation):
    """``sdy.mesh @name = <["x"=2, ...]>``: a named mesh shardings refer to."""

    name = "sdy.mesh"

    sym_name = prop_def(StringAttr)
    mesh = prop_def(MeshAttr)

    traits = traits_def(SymbolOpInterface())

    def __init__(self, name: str, mesh: MeshAttr) -> None:
        super().__init__(properties={"sym_name": StringAttr(name), "mesh": mesh})

    @classmethod
    def parse(cls, parser: Parser) -> MeshOp:
        name = parser.parse_symbol_name().data
        parser.parse_punctuation("=", " after the mesh's name")
        with parser.in_angle_brackets():
            mesh = MeshAttr.parse_body(parser)
        op = cls(name, mesh)
        op.attributes.update(parser.parse_optional_attr_dict())
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        printer.print_string(" = ")
        self.mesh.print_parameters(printer)
        printer.print_op_attributes(self.attributes)


def mesh_of(op: Operation, sharding: TensorShardingAttr) -> MeshAttr | None:
    """The mesh a sharding names: inline, or the ``sdy.mesh`` it refers to."""
    if isinstance(sharding.mesh, MeshAttr):
        return sharding.mesh
    assert isinstance(sharding.mesh, SymbolRefAttr)
    name = sharding.mesh.root_reference.data
    top = op
    while top.parent_op() is not None:
        top = top.parent_op()  # type: ignore[assignment]
    for region in top.regions:
        for block in region.blocks:
            for o in block.ops:
                if isinstance(o, MeshOp) and o.sym_name.data == name:
                    return o.mesh
    return None


def check_rank(sharding: TensorShardingAttr, t: Attribute, where: str) -> None:
    """A sharding has one dimension sharding per tensor dimension."""
    if isinstance(t, TensorType) and len(sharding.dims.data) != t.get_num_dims():
        raise VerifyException(
            f"{where}: sharding has {len(sharding.dims.data)} dimensions for a "
            f"rank-{t.get_num_dims()} tensor"
        )


def check_sharding(
    op: Operation, sharding: TensorShardingAttr, t: Attribute, where: str
) -> None:
    """``VerifyException`` if ``sharding`` does not fit its mesh or type ``t``."""
    check_rank(sharding, t, where)
    mesh = mesh_of(op, sharding)
    if mesh is None:
        raise VerifyException(f"{where}: unknown mesh @{sharding.mesh_name}")
    sizes = dict(mesh.axes)
    seen: set[str] = set()
    refs = [r for d in sharding.dims.data for r in d.axes.data]
    refs += [*sharding.replicated.data, *sharding.unreduced.data]
    for ref in refs:
        name = ref.axis.data
        if name not in sizes:
            raise VerifyException(f'{where}: unknown axis name "{name}"')
        sub = ref.sub_axis
        if sub is not None:
            pre, size = sub
            if pre < 1 or size <= 1 or sizes[name] % (pre * size):
                raise VerifyException(
                    f"{where}: sub-axis {ref.text()} does not divide axis "
                    f'"{name}" of size {sizes[name]}'
                )
        key = ref.text() if sub is not None else name
        if key in seen or (
            sub is None and any(k.startswith(f'"{name}":') for k in seen)
        ):
            raise VerifyException(f"{where}: axis {ref.text()} is used more than once")
        seen.add(key if sub is not None else name)


def local_type(
    op: Operation, sharding: TensorShardingAttr, t: Attribute, manual: set[str]
) -> TensorType | None:
    """The per-device type of a value of type ``t`` split by ``sharding``'s
    manual axes (None when the mesh is not found or a size does not divide)."""
    mesh = mesh_of(op, sharding)
    if mesh is None or not isinstance(t, TensorType):
        return None
    sizes = dict(mesh.axes)
    shape = list(t.get_shape())
    for d, dim in enumerate(sharding.dims.data):
        for ref in dim.axes.data:
            name = ref.axis.data
            if name not in manual:
                continue
            sub = ref.sub_axis
            n = sub[1] if sub else sizes.get(name, 1)
            if shape[d] % n:
                return None
            shape[d] //= n
    return TensorType(t.element_type, shape)
