"""The public surface: everything in ``__all__`` resolves, and nothing public is left out."""

from __future__ import annotations

import subprocess
import sys

import spacy_span_eval


def test_every_name_in_all_resolves_to_what_it_names():
    for name in spacy_span_eval.__all__:
        value = getattr(spacy_span_eval, name)  # lazy names import their module here
        if name == "__version__":
            assert isinstance(value, str) and value[0].isdigit(), value
        else:  # a class or function of that name, not a placeholder
            assert value.__name__ == name and value.__module__.startswith("spacy_span_eval."), name


def test_all_lists_every_public_name_the_package_defines():
    public = {
        name
        for name in vars(spacy_span_eval)
        if not name.startswith("_") and not isinstance(getattr(spacy_span_eval, name), type(sys))
    }
    assert public - {"annotations"} <= set(spacy_span_eval.__all__)


def test_importing_the_engine_does_not_import_spacy():
    code = "import sys, spacy_span_eval; assert 'spacy' not in sys.modules, 'spacy imported'"
    subprocess.run([sys.executable, "-c", code], check=True)
