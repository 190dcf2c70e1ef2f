# Rollhouse developer commands. `make test` and `make serve` work on a fresh clone:
# they create .venv when there is none and install the project into it.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: test serve lint typecheck bench fuzz reliability lowest lock container-test clean

# The venv installs the locked versions (requirements.lock: every dependency and extra,
# each with its hashes), then the project itself without resolving anything.
$(STAMP): pyproject.toml requirements.lock
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --require-hashes --no-deps -r requirements.lock
	$(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e .
	touch $(STAMP)

# Refresh the locks to the newest versions pyproject.toml allows (uv, from the dev extra):
# requirements.lock for the venv and CI, requirements-server.lock (the server and its
# `fast` extra, the same versions) for deploy/Dockerfile. setuptools is locked too: the
# project is built with it, without fetching anything unpinned.
UV_COMPILE = $(BIN)/uv pip compile --quiet --universal --python-version 3.11 --generate-hashes \
	--upgrade --no-strip-markers --custom-compile-command "make lock"
lock: $(STAMP)
	echo "setuptools>=77" | $(UV_COMPILE) pyproject.toml - --extra fast --extra test --extra dev \
		-o requirements.lock
	echo "setuptools>=77" | $(UV_COMPILE) pyproject.toml - --extra fast -c requirements.lock \
		-o requirements-server.lock

# The container test builds deploy/Dockerfile (minutes on a clean machine): its own target.
CONTAINER_TEST := tests/deploy/test_container.py

# axe-core for the browser tests' accessibility checks, from tests/browser's lock file
# (skipped where npm is missing: the test then skips too, or fails under CI).
AXE := tests/browser/node_modules/axe-core/axe.min.js
$(AXE): tests/browser/package-lock.json
	if command -v npm >/dev/null 2>&1; then (cd tests/browser && npm ci --no-audit --no-fund --silent) && touch $@; fi

# The suite on TEST_WORKERS processes (pytest-xdist; one file stays on one worker, so a
# file's fixtures are made once; the slow files first, in tests/conftest.py's order, so
# both workers end together): most tests wait on sockets, servers and browsers, so two
# workers on two cores take about half the time. TEST_WORKERS=0 runs it in one process.
TEST_WORKERS ?= 2
test: $(STAMP) $(AXE)
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder --ignore=$(CONTAINER_TEST) $(PYTEST_ARGS)

# deploy/Dockerfile built with buildah (its Debian base made by deploy/base-image.sh when
# missing) and run: alone, then as deploy/compose.yaml's services with a node killed.
container-test: $(STAMP)
	$(BIN)/python -m pytest -s -p no:cacheprovider $(CONTAINER_TEST)

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

# The lowest version pyproject.toml allows of every runtime, fast and test dependency
# (tests/support/lowest.py), in a venv of its own, running the suite's fast part: a
# lower bound that is not true fails here.
LOWEST       ?= .venv-lowest
LOWEST_TESTS ?= tests/engine/test_contract.py tests/engine/test_frozen.py tests/engine/test_rollie.py \
	tests/protocol/test_codec.py tests/protocol/test_errors.py tests/protocol/test_patch.py \
	tests/server/test_core.py tests/server/test_e2e.py tests/server/test_handshake.py tests/store \
	tests/server/test_people.py \
	tests/clients/test_sdk.py tests/clients/test_sdk_v1.py tests/clients/test_sdk_people.py \
	tests/clients/test_terminal.py tests/cluster/test_relay.py \
	tests/browser/test_connection.py tests/deploy/test_monitoring.py

lowest:
	rm -rf $(LOWEST)
	$(PYTHON) -m venv $(LOWEST)
	$(PYTHON) -m tests.support.lowest fast test > $(LOWEST)/constraints.txt
	$(LOWEST)/bin/python -m pip install --progress-bar off -c $(LOWEST)/constraints.txt -e '.[fast,test]'
	$(LOWEST)/bin/python -m pip freeze --exclude-editable | grep -i -E "^($$(sed 's/[=;].*//' $(LOWEST)/constraints.txt | paste -sd'|'))=="
	$(LOWEST)/bin/python -m pytest -q -p no:cacheprovider $(LOWEST_TESTS)

bench: $(STAMP)
	$(BIN)/rollhouse bench $(BENCH_ARGS)

clean:
	rm -rf $(VENV) $(LOWEST) .pytest_cache .mypy_cache .ruff_cache .hypothesis
