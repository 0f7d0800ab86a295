"""Jobs: evaluate, gate, report, compare, convert and the demo as plain functions that read,
score and return values. They never print and never render; renderers and the CLI do."""
