"""spaCy adapters: Doc/Example conversion, the registered scorers, the ``span_eval``
component and the training logger. They turn spaCy objects into engine documents and engine
results into spaCy score dicts."""
