"""Code <-> graph: the editor's line and the graph's nodes follow each other."""
