"""``sbpc-import``: a JAX function as an annotated ``.mlir`` module for sbpc-opt.

    sbpc-import examples/models/mlp.py:forward --shapes f32[64,128] ... \\
        --mesh 2x4 --layout 'args[1]=[S(0), B]' -o mlp.mlir
    sbpc-opt mlp.mlir -p sbp-inline,sbp-propagate,sbp-lower-boxing -t jax

The function is ``MODULE:NAME`` (a dotted module on ``sys.path``, or a
``.py`` file).  Its example arguments come from ``--shapes`` (one per
argument, ``f32[8,16]``, ``i32[]``; for functions of plain arrays) or from
``--args MODULE:NAME`` (a tuple, or a function returning one: any pytrees of
arrays or ``jax.ShapeDtypeStruct``\\ s).  ``--list`` prints every flat
argument and result with the path ``--layout``/``--result-layout`` accept:
a leaf's path (``args[0]['wte']``), a prefix of paths (``args[0]`` sets
every leaf under it), or a flat index.  The output is JAX's StableHLO with
``sbp.placement`` on the module and ``sbp.nd_sbp`` on the annotated
arguments and results.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sbpc.output import write_file

from .cli import run_and_exit

_SHAPE_RE = re.compile(r"^\s*([a-z]+[0-9]*)\s*\[\s*([0-9,\s]*)\]\s*$")
_DTYPES = {
    "f16": "float16",
    "bf16": "bfloat16",
    "f32": "float32",
    "f64": "float64",
    "i1": "bool",
    "pred": "bool",
    "i8": "int8",
    "i16": "int16",
    "i32": "int32",
    "i64": "int64",
    "u8": "uint8",
    "u16": "uint16",
    "u32": "uint32",
    "u64": "uint64",
}


class SbpcImportError(Exception):
    """A usage or input error: printed as one line, exit status 1."""


def parse_shape(text: str) -> Any:
    """``f32[8,16]`` -> ``jax.ShapeDtypeStruct((8, 16), float32)``."""
    import jax
    import jax.numpy as jnp

    match = _SHAPE_RE.match(text)
    if match is None or match.group(1) not in _DTYPES:
        raise SbpcImportError(
            f"bad shape '{text}': expected DTYPE[d0,d1,...] with DTYPE one of "
            + ", ".join(_DTYPES)
        )
    dims = [d.strip() for d in match.group(2).split(",") if d.strip()]
    return jax.ShapeDtypeStruct(
        tuple(int(d) for d in dims), jnp.dtype(_DTYPES[match.group(1)])
    )


def load_object(spec: str) -> Any:
    """``pkg.module:name`` or ``path/file.py:name``."""
    if ":" not in spec:
        raise SbpcImportError(f"expected MODULE:NAME, got '{spec}'")
    module_name, _, attr = spec.rpartition(":")
    try:
        if module_name.endswith(".py"):
            path = Path(module_name)
            if not path.is_file():
                raise SbpcImportError(f"no such file: {module_name}")
            sys.path.insert(0, str(path.resolve().parent))
            loaded = importlib.util.spec_from_file_location(path.stem, path)
            assert loaded is not None and loaded.loader is not None
            module = importlib.util.module_from_spec(loaded)
            sys.modules[path.stem] = module
            loaded.loader.exec_module(module)
        else:
            sys.path.insert(0, os.getcwd())
            module = importlib.import_module(module_name)
    except SbpcImportError:
        raise
    except Exception as e:
        raise SbpcImportError(
            f"cannot import {module_name}: {type(e).__name__}: {e}"
        ) from e
    obj = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise SbpcImportError(f"{module_name} has no attribute '{attr}'")
        obj = getattr(obj, part)
    return obj


def _assignments(items: Sequence[str], paths: list[str], what: str) -> dict[int, str]:
    """``KEY=LAYOUT`` options -> {flat index: layout}; later options win."""
    out: dict[int, str] = {}
    for item in items:
        key, sep, layout = item.partition("=")
        key = key.strip()
        if not sep or not key or not layout.strip():
            raise SbpcImportError(f"bad {what} '{item}': expected KEY=LAYOUT")
        if key.isdigit():
            index = int(key)
            if index >= len(paths):
                raise SbpcImportError(
                    f"{what} '{item}': index {index} out of range ({len(paths)} leaves)"
                )
            matched = [index]
        else:
            matched = [
                i
                for i, p in enumerate(paths)
                if p == key or (p.startswith(key) and p[len(key)] in "[.")
            ]
            if not matched:
                raise SbpcImportError(
                    f"{what} '{item}': no leaf has path '{key}' (see --list)"
                )
        for i in matched:
            out[i] = layout.strip()
    return out


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sbpc-import",
        description="Write a JAX function as an sbp-annotated StableHLO module.",
    )
    parser.add_argument("function", help="MODULE:NAME or FILE.py:NAME")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--shapes", nargs="+", metavar="SHAPE", help="e.g. f32[8,16]")
    source.add_argument("--args", metavar="MODULE:NAME", help="example arguments")
    parser.add_argument("--mesh", required=True, help="device hierarchy, e.g. 8 or 2x4")
    parser.add_argument(
        "--layout", action="append", default=[], metavar="KEY=LAYOUT",
        help="an argument layout, e.g. 'args[0]=[S(0), B]' (repeatable)",
    )  # fmt: skip
    parser.add_argument(
        "--result-layout", action="append", default=[], metavar="KEY=LAYOUT",
        help="a result layout, e.g. 'out[0]=[B, B]' (repeatable)",
    )  # fmt: skip
    parser.add_argument("--list", action="store_true", help="list the flat leaves")
    parser.add_argument("-o", "--output", default="-", help="output file (- = stdout)")
    return parser


def run(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    import jax

    from sbpc import jax as sbpc_jax

    fn = load_object(args.function)
    if not callable(fn):
        raise SbpcImportError(f"{args.function} is not callable")
    if args.shapes:
        example = tuple(parse_shape(s) for s in args.shapes)
    else:
        example = load_object(args.args)
        if callable(example):
            example = example()
        if not isinstance(example, tuple):
            raise SbpcImportError(
                f"{args.args} must be (or return) a tuple of arguments"
            )
    placement = sbpc_jax.parse_mesh(args.mesh)
    annotated = sbpc_jax.annotate(fn, *example, mesh=placement)
    if args.list:
        leaves = jax.tree_util.tree_leaves(example)
        for i, (path, leaf) in enumerate(zip(annotated.in_paths, leaves, strict=True)):
            print(f"arg {i}: {path}  {jax.ShapeDtypeStruct(leaf.shape, leaf.dtype)}")
        for i, path in enumerate(annotated.out_paths):
            print(f"result {i}: {path}")
        return 0
    in_layouts = _assignments(args.layout, annotated.in_paths, "--layout")
    out_layouts = _assignments(
        args.result_layout, annotated.out_paths, "--result-layout"
    )
    annotated = sbpc_jax.annotate(
        fn,
        *example,
        mesh=placement,
        in_layouts=_prefix(in_layouts, annotated.in_paths, example),
        out_layouts=_flat_prefix(
            out_layouts, len(annotated.out_paths), annotated.out_tree
        ),
    )
    write_file(args.output, annotated.mlir() + "\n")
    return 0


def _prefix(layouts: dict[int, str], paths: list[str], example: tuple[Any, ...]) -> Any:
    """Per-leaf layouts as a full pytree over the example arguments."""
    import jax

    leaves, tree = jax.tree_util.tree_flatten(example)
    flat = [layouts.get(i) for i in range(len(leaves))]
    return _unflatten_layouts(tree, flat)


def _flat_prefix(layouts: dict[int, str], n: int, out_tree: Any) -> Any:
    return _unflatten_layouts(out_tree, [layouts.get(i) for i in range(n)])


def _unflatten_layouts(tree: Any, flat: list[str | None]) -> Any:
    """A pytree of layouts with ``tree``'s structure; free leaves are None.

    ``None`` is an empty pytree to jax, so unflatten placeholders first and
    map them to layouts with None kept as a leaf.
    """
    import jax

    skeleton = jax.tree_util.tree_unflatten(tree, list(range(len(flat))))
    return jax.tree_util.tree_map(lambda i: flat[i], skeleton)


def main(argv: Sequence[str] | None = None) -> None:
    from sbpc.jax import SbpcError

    run_and_exit("sbpc-import", lambda: run(argv), (SbpcImportError, SbpcError))


if __name__ == "__main__":
    main()
