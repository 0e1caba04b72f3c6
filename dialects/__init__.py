"""xDSL dialects of sbpc: ``sbp`` (layouts, casts, collectives) and a StableHLO subset."""
