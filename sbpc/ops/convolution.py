"""SBP rules, local op and reference of ``stablehlo.convolution``.

Attributes (``OpSpec.attrs``, StableHLO's names, plain values):
``input_batch_dimension``, ``input_feature_dimension``,
``input_spatial_dimensions``, ``kernel_input_feature_dimension``,
``kernel_output_feature_dimension``, ``kernel_spatial_dimensions``,
``output_batch_dimension``, ``output_feature_dimension``,
``output_spatial_dimensions``; ``window_strides``, ``padding`` ((low, high)
per spatial dim), ``lhs_dilation``, ``rhs_dilation``, ``window_reversal``
(bools), ``feature_group_count``, ``batch_group_count``; ``precision`` (per
operand, optional).

Rules are factors of the convolution's loops (``sbpc.ops.derive``):

* batch: input batch = output batch (kernel ``B``), unless batch groups;
* output feature: kernel output feature = output feature (input ``B``),
  without groups;
* input feature: input feature = kernel input feature, a *reduction*: the
  result is ``P(sum)`` (without feature groups);
* groups: with ``feature_group_count = G`` and one input feature per group
  (depthwise), input feature = kernel output feature = output feature split
  together: a device holding some channels convolves exactly their groups
  (``local_op`` sets its ``feature_group_count``).  Likewise with
  ``batch_group_count = G`` and an input batch of G (the weight gradient of
  a depthwise convolution): input batch = kernel output feature = output
  feature;
* a spatial dimension whose windows tile the input without overlap (window
  <= stride, no padding or dilation, input = stride x output: a patch
  embedding, a 1x1 convolution) splits input and output alike.

Plus linearity in each operand (``(P, B) -> P``, ``(B, P) -> P``).
Spatial splits of overlapping windows trade halo rows first
(``sbpc.ops.halo``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from sbpc.algebra.placement import Coord
from sbpc.algebra.signature import Signature
from sbpc.ops.derive import Factor, factor_signatures, linear_each
from sbpc.ops.halo import halo_local, halo_spatial_dims, halos
from sbpc.ops.kind import OpKinds
from sbpc.ops.spec import OpSpec, is_bool

BUILTINS = OpKinds()

NAME = "stablehlo.convolution"


def _ints(op: OpSpec, key: str) -> tuple[int, ...]:
    value = op.attr(key)
    return () if value is None else tuple(int(v) for v in value)


def _int(op: OpSpec, key: str, default: int = 1) -> int:
    return int(op.attr(key, default))


def _padding(op: OpSpec) -> tuple[tuple[int, int], ...]:
    pad = op.attr("padding")
    k = len(_ints(op, "input_spatial_dimensions"))
    if pad is None:
        return ((0, 0),) * k
    return tuple((int(lo), int(hi)) for lo, hi in pad)


def _window(op: OpSpec, key: str) -> tuple[int, ...]:
    k = len(_ints(op, "input_spatial_dimensions"))
    return _ints(op, key) or (1,) * k


def tiled_spatial_dims(op: OpSpec) -> list[tuple[int, int]]:
    """(input dim, output dim) of spatial dims whose windows tile the input.

    Window ``w <= stride s``, no padding, no dilation, input ``= s * output``:
    output element y reads input elements ``[y*s, y*s + w)`` only, so input
    blocks of ``s * out/n`` elements hold exactly the windows of output
    blocks of ``out/n``.
    """
    lhs, rhs, out = op.operands[0].shape, op.operands[1].shape, op.results[0].shape
    pairs = []
    for k, (ld, kd, od) in enumerate(
        zip(
            _ints(op, "input_spatial_dimensions"),
            _ints(op, "kernel_spatial_dimensions"),
            _ints(op, "output_spatial_dimensions"),
            strict=True,
        )
    ):
        s = _window(op, "window_strides")[k]
        if (
            rhs[kd] <= s
            and _padding(op)[k] == (0, 0)
            and _window(op, "lhs_dilation")[k] == 1
            and _window(op, "rhs_dilation")[k] == 1
            and lhs[ld] == s * out[od]
        ):
            pairs.append((ld, od))
    return pairs


def convolution_factors(op: OpSpec) -> list[Factor]:
    lhs = op.operands[0].shape
    ib, if_ = _int(op, "input_batch_dimension"), _int(op, "input_feature_dimension")
    ki = _int(op, "kernel_input_feature_dimension")
    ko = _int(op, "kernel_output_feature_dimension")
    ob, of = _int(op, "output_batch_dimension"), _int(op, "output_feature_dimension")
    g, bg = _int(op, "feature_group_count"), _int(op, "batch_group_count")
    factors = []
    if bg == 1:
        factors.append(Factor((ib, None), (ob,)))
    if g == 1 and bg == 1:
        factors.append(Factor((None, ko), (of,)))
    if g == 1:
        factors.append(Factor((if_, ki), (None,), "sum"))
    if g > 1 and lhs[if_] == g:
        factors.append(Factor((if_, ko), (of,)))
    if bg > 1 and lhs[ib] == bg:
        factors.append(Factor((ib, ko), (of,)))
    spatial = dict.fromkeys(tiled_spatial_dims(op))
    spatial.update(dict.fromkeys((ld, od) for _, ld, od, _, _ in halo_spatial_dims(op)))
    factors += [Factor((ld, None), (od,)) for ld, od in spatial]
    return factors


@BUILTINS.rule(NAME)
def convolution_rule(op: OpSpec) -> list[Signature]:
    sigs = factor_signatures(convolution_factors(op))
    if not is_bool(op.results[0].element):
        sigs += linear_each(2, 1, (0, 1))
    return sigs


@BUILTINS.local(NAME)
def convolution_local(
    op: OpSpec, local: OpSpec, sig: Signature, hierarchy: Sequence[int], coord: Coord
) -> OpSpec:
    """A device holding 1/n of the groups runs a convolution of G/n groups;
    a spatial split with a halo runs unpadded on the extended piece."""
    local = halo_local(op, local, halos(op, sig, hierarchy))
    g, bg = _int(op, "feature_group_count"), _int(op, "batch_group_count")
    if g > 1:
        d = _int(op, "input_feature_dimension")
        pieces = op.operands[0].shape[d] // local.operands[0].shape[d]
        return local.replace(feature_group_count=g // pieces)
    if bg > 1:
        d = _int(op, "input_batch_dimension")
        pieces = op.operands[0].shape[d] // local.operands[0].shape[d]
        return local.replace(batch_group_count=bg // pieces)
    return local


def dilate_axis(
    x: np.ndarray, axis: int, factor: int, fill: float | np.ndarray
) -> np.ndarray:
    """Insert ``factor - 1`` fill elements between neighbours along ``axis``."""
    if factor == 1 or x.shape[axis] == 0:
        return x
    shape = list(x.shape)
    shape[axis] = (x.shape[axis] - 1) * factor + 1
    out = np.full(shape, fill, dtype=x.dtype)
    index = [slice(None)] * x.ndim
    index[axis] = slice(None, None, factor)
    out[tuple(index)] = x
    return out


def pad_axis(
    x: np.ndarray, axis: int, low: int, high: int, fill: float | np.ndarray
) -> np.ndarray:
    """Pad (positive) or crop (negative) ``axis`` at both ends."""
    index = [slice(None)] * x.ndim
    index[axis] = slice(max(-low, 0), x.shape[axis] - max(-high, 0))
    x = x[tuple(index)]
    widths = [(0, 0)] * x.ndim
    widths[axis] = (max(low, 0), max(high, 0))
    return np.pad(x, widths, constant_values=fill)


def convolve(op: OpSpec, lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """StableHLO's convolution in numpy (float64 or int64 accumulation)."""
    spatial = _ints(op, "input_spatial_dimensions")
    k = len(spatial)
    acc = np.float64 if np.issubdtype(lhs.dtype, np.inexact) else np.int64
    x = np.transpose(
        lhs,
        (
            _int(op, "input_batch_dimension"),
            _int(op, "input_feature_dimension"),
            *spatial,
        ),
    ).astype(acc)
    w = np.transpose(
        rhs,
        (
            _int(op, "kernel_output_feature_dimension"),
            _int(op, "kernel_input_feature_dimension"),
            *_ints(op, "kernel_spatial_dimensions"),
        ),
    ).astype(acc)
    reversal = op.attr("window_reversal") or (False,) * k
    flips = [2 + j for j in range(k) if reversal[j]]
    if flips:
        w = np.flip(w, axis=flips)
    strides = _window(op, "window_strides")
    for j, (lo, hi) in enumerate(_padding(op)):
        x = dilate_axis(x, 2 + j, _window(op, "lhs_dilation")[j], 0)
        x = pad_axis(x, 2 + j, lo, hi, 0)
        w = dilate_axis(w, 2 + j, _window(op, "rhs_dilation")[j], 0)
    windows = sliding_window_view(x, w.shape[2:], axis=tuple(range(2, 2 + k)))
    windows = windows[
        (slice(None), slice(None), *(slice(None, None, s) for s in strides))
    ]
    g, bg = _int(op, "feature_group_count"), _int(op, "batch_group_count")
    n, c = x.shape[:2]
    o = w.shape[0]
    sp = "".join(chr(ord("p") + j) for j in range(k))  # output positions
    kk = "".join(chr(ord("h") + j) for j in range(k))  # kernel positions
    if bg > 1:
        xs = windows.reshape(bg, n // bg, c, *windows.shape[2:])
        ws = w.reshape(bg, o // bg, *w.shape[1:])
        out = np.einsum(f"gnc{sp}{kk},goc{kk}->ngo{sp}", xs, ws)
    else:
        xs = windows.reshape(n, g, c // g, *windows.shape[2:])
        ws = w.reshape(g, o // g, *w.shape[1:])
        out = np.einsum(f"ngc{sp}{kk},goc{kk}->ngo{sp}", xs, ws)
    out = out.reshape(out.shape[0], o, *out.shape[3:])
    order = (
        _int(op, "output_batch_dimension"),
        _int(op, "output_feature_dimension"),
        *_ints(op, "output_spatial_dimensions"),
    )
    return np.transpose(out, np.argsort(order))


@BUILTINS.evaluator(NAME)
def _convolution(op: OpSpec, xs: list[np.ndarray]) -> list[np.ndarray]:
    return [convolve(op, xs[0], xs[1])]
