"""sbpc: OneFlow's SBP layouts for MLIR programs, built on xDSL.

The installed package maps the repository's top-level folders onto one
namespace (``dialects/`` -> ``sbpc.dialects`` and so on, see pyproject.toml).
When Python imports ``sbpc`` straight from a source checkout (a script run
from the repository root), the sub-packages live beside this folder rather
than inside it; extending ``__path__`` keeps both layouts importable.
"""

from pathlib import Path

_here = Path(__file__).resolve().parent
if not (_here / "dialects").is_dir() and (_here.parent / "dialects").is_dir():
    __path__.append(str(_here.parent))

__version__ = "0.1.0"
