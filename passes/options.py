"""Pass option values, checked where they are parsed.

xDSL's pipeline parser types an option by its text (``1e30`` is not a
number to it, ``-5`` is); a pass then takes what it got.  These checks turn
each value into what the pass means by it, or a message naming the option,
so a bad value is an error before any work is done, never a different plan.
A pass converts its values once, when it is built, and every consumer (the
solve, the reports) reads the converted value, never the option's text.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence

from sbpc.boxing.cost_model import CostModel, CostModelError


class OptionError(ValueError):
    """An option value the pass cannot use; the message names the option."""


def positive_number(
    name: str, value: int | float | str | None, unit: str
) -> float | None:
    """``value`` as a positive finite number (None: the option is unset).

    Strings are accepted because ``1e30`` reaches a pass as text.
    """
    if value is None:
        return None
    if isinstance(value, bool):
        raise OptionError(f"{name} must be a positive number of {unit}, not {value}")
    number: float
    if isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            raise OptionError(
                f"{name} must be a positive number of {unit}, not '{value}'"
            ) from None
    else:
        number = float(value)
    if not math.isfinite(number) or number <= 0:
        raise OptionError(f"{name} must be a positive number of {unit}, not {value}")
    return number


def writable_file(name: str, path: str) -> str:
    """``path`` if a file can be written there (``-`` and ``""`` pass through).

    Checked before the pass works, so a plan is not computed for nothing;
    a symbolic link is checked where it points.
    """
    if path in ("", "-"):
        return path
    target = os.path.realpath(path)  # a link's target is what gets written
    if os.path.isdir(target):
        raise OptionError(f"{name}: '{path}' is a directory, not a file")
    directory = os.path.dirname(target)
    if not os.path.isdir(directory):
        raise OptionError(f"{name}: directory '{directory}' does not exist")
    if not os.access(directory, os.W_OK) or (
        os.path.exists(target) and not os.access(target, os.W_OK)
    ):
        raise OptionError(f"{name}: '{path}' is not writable")
    return path


def one_of(name: str, value: str, choices: Sequence[str]) -> str:
    """``value`` if it is one of ``choices`` (the message lists them)."""
    if value not in choices:
        raise OptionError(
            f"unknown {name} '{value}', expected one of " + ", ".join(choices)
        )
    return value


def count(name: str, value: int) -> int:
    """``value`` if it is a whole number, at least 0."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise OptionError(f"{name} must be at least 0, not {value}")
    return value


def parse_cost_model(text: str) -> CostModel:
    """The cost model an option's text describes (``CostModel.parse``)."""
    try:
        return CostModel.parse(text)
    except CostModelError as e:
        raise OptionError(f"bad cost_model option: {e}") from e
