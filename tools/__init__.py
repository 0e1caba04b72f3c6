"""Command-line tools of sbpc."""
