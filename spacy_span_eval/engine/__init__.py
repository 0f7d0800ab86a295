"""The engine: spans, columns and batches, strategies, tallies, ledgers and results.

It never imports spaCy and never reads files: anything that yields documents or columnar
batches can be scored. Everything above it (readers, adapters, jobs, renderers, CLI) imports
it; it imports nothing of theirs.
"""
