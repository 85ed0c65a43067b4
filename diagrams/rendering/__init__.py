"""Rendering is a pipeline of pure functions: project state -> networkx graph -> filter ->
layout -> JSON, SVG or Mermaid. No ORM and no request in here."""
