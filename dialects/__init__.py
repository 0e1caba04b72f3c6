"""xDSL dialects of sbpc: ``sbp`` (layouts, casts, collectives), and the
``stablehlo`` and ``chlo`` subsets JAX emits."""
