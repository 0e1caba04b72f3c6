"""IR <-> plain data adapters between xDSL and sbpc's core."""

# Registers the sdy.manual_computation extractor wherever ops are read.
from . import sdy as _sdy  # noqa: F401
