"""Reports of a plan: a text/JSON summary, the padding of uneven splits, the
plain-data view a picture shows, and its Graphviz and HTML renderings."""
