# The two commands of the README: `make demo` and `make test`. Both set up .venv first.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

# The demo corpus: the shared one beside this checkout when it is there, else the bundled copy.
DEMO_CORPUS ?= $(firstword $(wildcard ../shared/data/corpus) demo/corpus)
DEMO_HOME   ?= .tanda/demo
DEMO_QUESTION ?= Berapa realisasi pendapatan daerah Surabaya tahun 2023?

.PHONY: demo test test-deep sam-smoke policy lint bench openapi clean

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

## test: set up, then run every test, the SAM build and artifact smoke test included (SAM_SMOKE=1);
## property tests run hypothesis's fast profile (tests/conftest.py)
test: $(STAMP)
	SAM_SMOKE=1 $(BIN)/python -m pytest

## test-deep: `make test` with the thorough hypothesis profile: many more generated cases per
## property test (nightly; docs/testing.md)
test-deep: $(STAMP)
	HYPOTHESIS_PROFILE=thorough SAM_SMOKE=1 $(BIN)/python -m pytest

## sam-smoke: only `sam validate --lint`, `sam build` (arm64 + this host) and the artifact smoke
## test (docs/deploy.md); the SAM CLI and Python 3.12 tools go under .tanda/sam/
sam-smoke: $(STAMP)
	SAM_SMOKE=1 $(BIN)/python -m pytest tests/infra -m sam

## policy: checkov over template.yaml (issue 27): nothing failed, every skip in the template with
## its reason (docs/operations.md "Policy scan"); checkov goes under .tanda/checkov/
policy: $(STAMP)
	SAM_SMOKE=1 $(BIN)/python -m pytest tests/infra -m policy

## lint: ruff (lint + format check), mypy (strict) and the import contracts (DESIGN §2)
lint: $(STAMP)
	$(BIN)/ruff check shared tests bench functions
	$(BIN)/ruff format --check shared tests bench functions
	$(BIN)/mypy
	$(BIN)/lint-imports

## bench: run the benchmarks and write bench/results/*.json
bench: $(STAMP)
	$(BIN)/python bench/compose.py
	$(BIN)/python bench/coldstart.py
	$(BIN)/python bench/retrieval.py
	$(BIN)/python bench/judge.py
	$(BIN)/python bench/tatqa_numbers.py
	$(BIN)/python bench/proof.py

## openapi: regenerate docs/openapi.json from the contract models
openapi: $(STAMP)
	$(BIN)/tanda openapi

clean:
	rm -rf $(VENV) .tanda .aws-sam .pytest_cache .mypy_cache .ruff_cache .hypothesis
