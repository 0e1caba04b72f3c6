# lit configuration for sbpc's FileCheck regression tests.
import os
import sys

import lit.formats

config.name = "sbpc"  # noqa: F821 (lit injects `config`)
config.test_format = lit.formats.ShTest(execute_external=False)  # noqa: F821
config.suffixes = [".mlir"]  # noqa: F821
config.test_source_root = os.path.dirname(__file__)  # noqa: F821
config.excludes = ["inputs", "Output"]  # noqa: F821

# Run the tools of the environment lit itself runs in (the project's venv).
bin_dir = os.path.dirname(sys.executable)
config.environment["PATH"] = bin_dir + os.pathsep + os.environ.get("PATH", "")  # noqa: F821
for var in ("PYTHONPATH", "HOME", "XLA_FLAGS", "JAX_PLATFORMS"):
    if var in os.environ:
        config.environment[var] = os.environ[var]  # noqa: F821
config.substitutions.append(("%python", sys.executable))  # noqa: F821
config.substitutions.append(  # noqa: F821
    ("%examples", os.path.join(os.path.dirname(config.test_source_root), "examples"))  # noqa: F821
)
