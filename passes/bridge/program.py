"""A boxed function as a plain ``sbpc.program.Program``.

The simulator and the JAX emitter consume ``Program``; this adapter reads it
off the IR after ``sbp-lower-boxing`` (every op carries ``sbp.sig``, every
layout change is an sbp collective).  Anything else is a located error.
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue

from sbpc.boxing.collective_kind import CollectiveKind
from sbpc.dialects import sbp as sbp_dialect
from sbpc.dialects.diagnostics import LocatedError, location_of
from sbpc.dialects.stablehlo import CaseOp, IfOp, WhileOp
from sbpc.dialects.stablehlo import ReturnOp as StablehloReturnOp
from sbpc.program import (
    Arg,
    Block,
    CaseInstr,
    CollectiveInstr,
    LoopInstr,
    OpInstr,
    Program,
    Result,
)

from .legal import check_legal
from .ops import UnsupportedTypeError, is_tensor_op, op_spec_of, plain_type
from .sdy import mesh_axes, placement_names

_KIND_OF: dict[type, CollectiveKind] = {
    sbp_dialect.AllGatherOp: CollectiveKind.ALL_GATHER,
    sbp_dialect.AllReduceOp: CollectiveKind.ALL_REDUCE,
    sbp_dialect.ReduceScatterOp: CollectiveKind.REDUCE_SCATTER,
    sbp_dialect.AllToAllOp: CollectiveKind.ALL_TO_ALL,
    sbp_dialect.LocalSliceOp: CollectiveKind.LOCAL_SLICE,
    sbp_dialect.LocalToPartialOp: CollectiveKind.LOCAL_TO_PARTIAL,
}


def main_function(module: ModuleOp, name: str | None = None) -> func.FuncOp:
    """The function to run: ``name``, else ``main``, else the only public one."""
    funcs = [
        f for f in module.ops if isinstance(f, func.FuncOp) and not f.is_declaration
    ]
    if name is not None:
        for f in funcs:
            if f.sym_name.data == name:
                return f
        raise LocatedError(module, f"no function @{name} in the module")
    for f in funcs:
        if f.sym_name.data == "main":
            return f
    public = [
        f
        for f in funcs
        if f.sym_visibility is None or f.sym_visibility.data == "public"
    ]
    if len(public) == 1:
        return public[0]
    raise LocatedError(module, "cannot tell which function to run: name one @main")


def _label(op: Operation) -> str:
    """The op's name and source position: shown in emitted code and errors."""
    file, line, col = location_of(op)
    return f"{op.name} at {file}:{line}:{col}" if line else op.name


def program_of(
    module: ModuleOp, f: func.FuncOp, origins: dict[str, Operation] | None = None
) -> Program:
    """Read the boxed function ``f`` of ``module`` as plain data.

    ``origins``, if given, receives each instruction's label -> its IR op, so
    errors about an instruction can be reported at the op.
    """
    default = sbp_dialect.module_placement(module)
    if default is None:
        raise LocatedError(f, sbp_dialect.NO_PLACEMENT)
    placements = sbp_dialect.placement_map(module)
    ids: dict[SSAValue, int] = {}
    program = Program(
        f.sym_name.data,
        default,
        axis_names=mesh_axes(module),
        placement_names=placement_names(module),
    )

    def new(value: SSAValue, op) -> int:
        try:
            program.types[len(ids)] = plain_type(value.type)
        except UnsupportedTypeError as e:
            raise LocatedError(op, str(e)) from e
        ids[value] = len(ids)
        return ids[value]

    for i, arg in enumerate(f.args):
        layout = sbp_dialect.get_nd_sbp_arg_attr(f, i)
        if layout is None:
            raise LocatedError(f, f"argument #{i} has no sbp.nd_sbp: run sbp-propagate")
        program.args.append(Arg(new(arg, f), layout, placements.get(arg, default)))

    def read(ops, body: list) -> None:
        for op in ops:
            if isinstance(op, func.ReturnOp):
                returned(op)
                continue
            if isinstance(op, StablehloReturnOp):
                continue  # a region's yield: read by the region op
            body.append(instruction(op))

    def returned(op: func.ReturnOp) -> None:
        for i, v in enumerate(op.arguments):
            layout = sbp_dialect.get_nd_sbp_res_attr(f, i) or sbp_dialect.value_layout(
                v
            )
            if layout is None:
                raise LocatedError(op, f"result #{i} has no layout")
            program.results.append(Result(ids[v], layout, placements.get(v, default)))

    def block_of(region, args: list[int] | None = None) -> Block:
        block = region.block
        bound = tuple(new(a, block.parent_op()) for a in block.args)
        instrs: list = []
        read(block.ops, instrs)
        ret = block.last_op
        return Block(bound, tuple(instrs), tuple(ids[v] for v in ret.operands))

    def instruction(op: Operation):
        if isinstance(op, sbp_dialect.CastOp):
            raise LocatedError(op, "sbp.cast left in the program: run sbp-lower-boxing")
        if isinstance(op, sbp_dialect.TransferOp):
            operand = ids[op.operands[0]]
            return CollectiveInstr(
                CollectiveKind.TRANSFER,
                (),
                op.from_sbp.nd_sbp,
                op.to_sbp.nd_sbp,
                operand,
                new(op.results[0], op),
                op.from_placement.placement,
                op.to_placement.placement,
            )
        if isinstance(op, sbp_dialect.CollectiveOp):
            placement = (
                op.placement.placement
                if op.placement is not None
                else placements.get(op.operands[0], default)
            )
            operand = ids[op.operands[0]]
            return CollectiveInstr(
                _KIND_OF[type(op)],  # type: ignore[arg-type]
                tuple(int(d) for d in op.dims.get_values()),
                op.from_sbp.nd_sbp,
                op.to_sbp.nd_sbp,
                operand,
                new(op.results[0], op),
                placement,
            )
        sig = sbp_dialect.get_signature(op)
        if sig is None:
            raise LocatedError(op, f"'{op.name}' has no sbp.sig: run sbp-propagate")
        placement = placements.get(op.results[0], default) if op.results else default
        label = _label(op)
        if origins is not None:
            origins[label] = op
        if isinstance(op, WhileOp):
            operands = tuple(ids[v] for v in op.operands)
            cond, body = block_of(op.cond), block_of(op.body)
            results = tuple(new(r, op) for r in op.results)
            return LoopInstr(
                operands, results, sig.outputs, cond, body, placement, label
            )
        if isinstance(op, CaseOp | IfOp):
            index = ids[op.operands[0]]
            branches = tuple(block_of(r) for r in op.branches)
            results = tuple(new(r, op) for r in op.results)
            return CaseInstr(index, results, sig.outputs, branches, placement, label)
        try:
            spec = op_spec_of(op)
        except UnsupportedTypeError as e:
            raise LocatedError(op, str(e)) from e
        if is_tensor_op(op):  # -t jax may run without sbp-lower-boxing
            check_legal(op, sig, placement)
        operands = tuple(ids[v] for v in op.operands)
        results = tuple(new(r, op) for r in op.results)
        return OpInstr(spec, sig, operands, results, placement, label)

    body: list = []
    read(f.body.ops, body)
    program.body.extend(body)
    return program
