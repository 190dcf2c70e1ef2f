# Rollhouse developer commands. `make test` and `make serve` work on a fresh clone:
# they create .venv when there is none and install the project into it.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: test serve lint typecheck bench fuzz reliability clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,dev,fast]'
	touch $(STAMP)

test: $(STAMP)
	$(BIN)/python -m pytest $(PYTEST_ARGS)

serve: $(STAMP)
	$(BIN)/rollhouse serve $(SERVE_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy engine protocol server clients

fuzz: $(STAMP)
	ROLLHOUSE_FUZZ_EXAMPLES=$${ROLLHOUSE_FUZZ_EXAMPLES:-2000} $(BIN)/python -m pytest -q -p no:cacheprovider tests/server/test_fuzz.py tests/protocol/test_fuzz.py

reliability: $(STAMP)
	rm -f .reliability.jsonl
	ROLLHOUSE_RELIABILITY_REPORT=$(CURDIR)/.reliability.jsonl $(BIN)/python -m pytest -q -p no:cacheprovider tests/server/test_faults.py tests/server/test_crash.py
	$(BIN)/python -m tests.support.reliability .reliability.jsonl

bench: $(STAMP)
	$(BIN)/rollhouse bench $(BENCH_ARGS)

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
