"""What an example model gives the runner and the benchmark: a function,
example arguments, and per-argument *roles* from which each parallelism
scheme derives layouts.

A role is ``"data"`` (split along the batch by data parallelism), or an SBP
for the tensor-parallel mesh axis (``"S(1)"``, ``"S(0)"``, ``"B"``).  Schemes:

=======  =====  ======================  =========================
scheme   mesh   ``"data"``              tensor-parallel role ``r``
=======  =====  ======================  =========================
dp       8      ``[S(0)]``              ``[B]``
tp       8      ``[B]``                 ``[r]``
2d       2x4    ``[S(0), B]``           ``[B, r]``
=======  =====  ======================  =========================
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jax

import sbpc.jax

from .optim import adam_init, opt_roles

DATA = "data"
REPLICATED = "B"
SCHEMES: dict[str, tuple[int, ...]] = {"dp": (8,), "tp": (8,), "2d": (2, 4)}


@dataclass(frozen=True)
class Example:
    fn: Callable[..., Any]
    args: tuple[Any, ...]
    in_roles: Any  # a pytree prefix of args
    out_roles: Any = None  # a pytree prefix of the results; None: free

    def mesh(self, scheme: str) -> tuple[int, ...]:
        return SCHEMES[scheme]

    def in_layouts(self, scheme: str) -> Any:
        return layouts(self.in_roles, scheme)

    def out_layouts(self, scheme: str) -> Any:
        return layouts(self.out_roles, scheme)

    def distribute(self, scheme: str, **options: Any) -> sbpc.jax.Distributed:
        """``sbpc.jax.distribute`` of the example under ``scheme``'s mesh and layouts."""
        return sbpc.jax.distribute(
            self.fn,
            *self.args,
            mesh=self.mesh(scheme),
            in_layouts=self.in_layouts(scheme),
            out_layouts=self.out_layouts(scheme),
            **options,
        )


@dataclass(frozen=True)
class PinnedExample(Example):
    """An example whose input layouts are written out per scheme: expert
    parallelism splits the experts and the tokens over ``dp``'s one axis,
    which a role (data or tensor-parallel) cannot say."""

    pinned: Callable[[str], Any] | None = None  # scheme -> in_layouts

    def in_layouts(self, scheme: str) -> Any:
        assert self.pinned is not None
        return self.pinned(scheme)


@dataclass(frozen=True)
class Model:
    """A model module's parts, from which its two examples are made."""

    forward: Callable[..., Any]  # (params, inputs) -> outputs
    train_step: Callable[..., Any]  # (params, opt, inputs, labels) -> loss, params, opt
    init_params: Callable[[], Any]
    batch: Callable[[], tuple[Any, Any]]  # (inputs, labels)
    param_roles: Callable[[], Any]

    def forward_example(self) -> Example:
        return Example(
            self.forward,
            (self.init_params(), self.batch()[0]),
            (self.param_roles(), DATA),
        )

    def train_example(self) -> Example:
        params, roles = self.init_params(), self.param_roles()
        return Example(
            self.train_step,
            (params, adam_init(params), *self.batch()),
            (roles, opt_roles(roles), DATA, DATA),
            (REPLICATED, roles, opt_roles(roles)),
        )

    def forward_args(self) -> tuple[Any, ...]:
        """Example arguments of ``forward`` (for ``sbpc-import --args``)."""
        return self.forward_example().args

    def train_args(self) -> tuple[Any, ...]:
        """Example arguments of ``train_step`` (for ``sbpc-import --args``)."""
        return self.train_example().args


def layout(role: str, scheme: str) -> str:
    """The nd_sbp string of one role under ``scheme``."""
    data = role == DATA
    if scheme == "dp":
        return "[S(0)]" if data else "[B]"
    if scheme == "tp":
        return "[B]" if data else f"[{role}]"
    if scheme == "2d":
        return "[S(0), B]" if data else f"[B, {role}]"
    raise ValueError(f"unknown scheme '{scheme}' (one of {', '.join(SCHEMES)})")


def layouts(roles: Any, scheme: str) -> Any:
    """A pytree of roles mapped to layouts (None stays free)."""
    return jax.tree.map(lambda r: layout(r, scheme), roles)


def stacked_role(role: str) -> str:
    """The role of a stack of tensors of ``role`` along a new leading axis
    (``lax.scan``'s layer axis, kept whole): a split moves one dim up,
    ``"S(1)"`` becomes ``"S(2)"``; a replicated role stays."""
    split = re.fullmatch(r"S\((\d+)\)", role)
    if split:
        return f"S({int(split[1]) + 1})"
    if role == DATA:
        raise ValueError("a stack of batches has no role (its batch is dim 1)")
    return role
