# Two commands set everything up on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python

# pytest-xdist workers for `make test` (CI machines have two cores); `make test JOBS=1` runs
# in one process, `JOBS=auto` uses every core.
JOBS ?= 2

.PHONY: demo quick-demo test test-fast test-transformers lint typecheck format-check mutate
.PHONY: seqeval-suite-files seqeval-suite

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e .
	touch $@

$(VENV)/.installed-test: $(VENV)/.installed
	$(PY) -m pip install -q -e ".[test,dask]"
	touch $@

# The whole loop on the embedded demo corpus: convert, train (per-epoch two-sided columns),
# evaluate, HTML report, then the gate (see project.yml).
demo: $(VENV)/.installed
	$(PY) -m weasel run all .

# Score the embedded corpus against the demo recognizer: no training, a few seconds.
quick-demo: $(VENV)/.installed
	$(VENV)/bin/spacy-span-eval demo

# Lint, formatting, types (pyproject.toml's [tool.mypy]: strict over the whole package)
# and the import contracts (docs/architecture.md).
lint: $(VENV)/.installed-test
	$(VENV)/bin/ruff check spacy_span_eval tests bench tools
	$(VENV)/bin/ruff format --check spacy_span_eval tests bench tools
	$(VENV)/bin/mypy spacy_span_eval
	$(VENV)/bin/lint-imports

# The two checks of `lint` that take longest, on their own.
typecheck: $(VENV)/.installed-test
	$(VENV)/bin/mypy spacy_span_eval

format-check: $(VENV)/.installed-test
	$(VENV)/bin/ruff format --check spacy_span_eval tests bench tools

# Whole files go to one worker (--dist loadfile), so a module's expensive fixture (a trained
# pipeline, a Dask cluster, a BTC slice) is built once; under CI=true hypothesis is
# derandomized (tests/conftest.py), so the run does not depend on how tests are split.
test: lint
	$(PY) -m pytest -n $(JOBS) --dist loadfile

# The local loop: the suite without the tests marked slow (training, the browser, CLIs as
# subprocesses) or processes (a Dask cluster, process pools, signals sent to workers, a
# process per command) and without lint; `make test` runs everything.
test-fast: $(VENV)/.installed-test
	$(PY) -m pytest -n $(JOBS) --dist loadfile -m "not slow and not processes" -q

# The tests marked transformers (spacy-transformers and torch, a large install): `make test`
# lists them as not run when the extra is missing; this target installs it and runs them.
test-transformers: $(VENV)/.installed-test
	$(PY) -m pip install -q -e ".[transformers]"
	$(PY) -m pytest -m transformers

# seqeval 1.2.2's own tests against spacy_span_eval.seqeval (docs/seqeval.md): its source
# distribution, from the package index, unpacked into build/seqeval-suite once (CI does this
# before `make test`, whose test_seqeval_dropin_suite runs the file); `make seqeval-suite` runs
# the whole file unchanged, its 20,000-run statistical test included.
SEQEVAL_SUITE := build/seqeval-suite
$(SEQEVAL_SUITE)/seqeval-1.2.2/tests/test_metrics.py: | $(VENV)/.installed
	$(PY) -m pip download -q "seqeval==1.2.2" --no-deps --no-binary :all: -d $(SEQEVAL_SUITE)
	tar -xzf $(SEQEVAL_SUITE)/seqeval-1.2.2.tar.gz -C $(SEQEVAL_SUITE)
	touch $@

seqeval-suite-files: $(SEQEVAL_SUITE)/seqeval-1.2.2/tests/test_metrics.py

seqeval-suite: $(VENV)/.installed-test seqeval-suite-files
	$(PY) tests/seqeval_dropin/seqeval_suite.py $(SEQEVAL_SUITE)/seqeval-1.2.2/tests

# Mutation testing (docs/testing.md): not part of CI. Mutants of the engine's strategies,
# ledgers, tally/result, gates, the tag schemes and the JSON rendering, run against the fast
# tests named in pyproject.toml's [tool.mutmut]; the score goes into docs/testing.md.
DATA ?= $(abspath $(CURDIR)/../shared/data)
$(VENV)/.installed-mutate: $(VENV)/.installed-test
	$(PY) -m pip install -q -e ".[mutate]"
	touch $@

# From scratch each time: mutmut 3.8 keeps earlier verdicts (a survivor is not tried on tests
# added since unless it is named on the command line), so a second run in the same mutants/
# can miss kills.
mutate: $(VENV)/.installed-mutate
	rm -rf mutants
	CI=true SPACY_SPAN_EVAL_DATA=$(DATA) $(VENV)/bin/mutmut run --max-children $(JOBS)
	$(VENV)/bin/mutmut results
	$(PY) tools/mutation_table.py
