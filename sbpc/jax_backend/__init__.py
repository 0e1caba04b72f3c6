"""The JAX back end: a boxed ``Program`` as a module of ``jax.shard_map`` code.

``emit`` writes the module; ``ops`` is the interface every op emitter has
and the registry behind ``op_expressions``.  The emitters live in one module
per op family and register on import; the package imports them all here, so
any use of ``sbpc.jax_backend`` sees every emitter (and no emitter module
imports another family).
"""

from sbpc.jax_backend import (  # noqa: F401 (registers the op emitters)
    bits,
    contraction,
    elementwise,
    layout,
    manual,
    pipeline_ops,
    window_ops,
)
