"""xDSL module passes of sbpc (thin adapters over the algorithms in ``sbpc``)."""
