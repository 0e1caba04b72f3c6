"""Seconds and bytes as the pipeline's reports print them."""

from __future__ import annotations


def seconds(value: float) -> str:
    """``1.23 ms``, ``45.6 us``, ``2.1 s``, ``30 ns``."""
    if value >= 1.0:
        return f"{value:.3g} s"
    if value >= 1e-3:
        return f"{value * 1e3:.3g} ms"
    if value >= 1e-6 or value == 0:
        return f"{value * 1e6:.3g} us"
    return f"{value * 1e9:.3g} ns"


def nbytes(value: float) -> str:
    """``1.5 GiB``, ``300 KiB``, ``12 B``."""
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if value >= size:
            return f"{value / size:.3g} {unit}"
    return f"{value:.0f} B"
