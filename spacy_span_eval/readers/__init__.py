"""Readers: files (and trained pipelines) to a stream of batches the engine scores.

The jobs call :func:`.source.open_pair` and get a :class:`.source.PairSource`. Formats are
entries of the registry in :mod:`.formats`. Every reader yields one :class:`.base.Record` per
document without loading the whole file (a DocBin excepted: it is one blob).

Import from the modules themselves: this package imports nothing, so the CLI's ``--help``
reads the format names without loading numpy, and no format's reader loads before its files.
"""
