# The two commands of the README: `make demo` and `make test`. Both set up .venv first.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

# The demo corpus: the shared one beside this checkout when it is there, else the bundled copy.
DEMO_CORPUS ?= $(firstword $(wildcard ../shared/data/corpus) demo/corpus)
DEMO_HOME   ?= .tanda/demo
DEMO_QUESTION ?= Berapa realisasi pendapatan daerah Surabaya tahun 2023?

.PHONY: demo test lint bench openapi clean

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "tanda needs Python >= 3.11")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	@touch $(STAMP)

## demo: set up, ingest the demo corpus, ask one question, print the annotated answer
demo: $(STAMP)
	TANDA_HOME=$(DEMO_HOME) $(BIN)/tanda ingest $(DEMO_CORPUS) --tenant demo
	TANDA_HOME=$(DEMO_HOME) $(BIN)/tanda ask "$(DEMO_QUESTION)" --tenant demo

## test: set up, then run every test
test: $(STAMP)
	$(BIN)/python -m pytest

## lint: ruff (lint + format check) and mypy (strict)
lint: $(STAMP)
	$(BIN)/ruff check shared tests bench functions
	$(BIN)/ruff format --check shared tests bench functions
	$(BIN)/mypy

## bench: run the benchmarks and write bench/results/*.json
bench: $(STAMP)
	$(BIN)/python bench/compose.py
	$(BIN)/python bench/coldstart.py
	$(BIN)/python bench/retrieval.py

## openapi: regenerate docs/openapi.json from the contract models
openapi: $(STAMP)
	$(BIN)/tanda openapi

clean:
	rm -rf $(VENV) .tanda .pytest_cache .mypy_cache .ruff_cache .hypothesis
