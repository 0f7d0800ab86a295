"""``python -m spacy_span_eval``: the same CLI as the ``spacy-span-eval`` script."""

from .cli import main

if __name__ == "__main__":
    main()
