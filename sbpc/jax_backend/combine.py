"""The emitter's view of collective combining (``sbpc.boxing.combine_schedule``).

The schedule itself lives in the boxing layer so that the propagation search
prices a plan with the very grouping the emitter will use.
"""

from sbpc.boxing.combine_schedule import (
    DEFAULT_MAX_BYTES,
    Combined,
    Grouping,
    combine_groups,
    combine_key,
)

__all__ = [
    "DEFAULT_MAX_BYTES",
    "Combined",
    "Grouping",
    "combine_groups",
    "combine_key",
]
