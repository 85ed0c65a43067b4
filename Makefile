# The two commands of the README: `make run` and `make test`. Nothing else is needed.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# `make run PORT=8001` for another port (a PORT in the environment is not taken)
PORT := 8000

.PHONY: run test lint fuzz soak screenshots clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): requirements.txt requirements-runtime.txt | $(BIN)/python
	$(BIN)/pip install --disable-pip-version-check -q -r requirements.txt
	touch $(STAMP)

run: $(STAMP)
	DEBUG=$${DEBUG:-1} $(BIN)/python manage.py migrate --noinput
	DEBUG=$${DEBUG:-1} $(BIN)/python manage.py seed_demo
	DEBUG=$${DEBUG:-1} $(BIN)/python manage.py runserver 127.0.0.1:$(PORT)

test: $(STAMP)
	$(BIN)/python -m pytest $(PYTEST_ARGS)

fuzz: $(STAMP)
	FUZZ_EXAMPLES=$${FUZZ_EXAMPLES:-200} $(BIN)/python -m pytest -q archsvc/tests/test_schema_fuzz.py

# The long form of archsvc/tests/test_load.py: SOAK_SECONDS of mixed load against gunicorn on
# PostgreSQL + Redis (127.0.0.1), checked, and its figures written into docs/benchmarks.md.
soak: $(STAMP)
	SOAK_SECONDS=$${SOAK_SECONDS:-180} $(BIN)/python bench/soak.py

# ruff, and the layers of docs/architecture.md (import-linter, contracts in .importlinter)
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports --no-cache

# The member journey in Chromium, its screenshots written over docs/screenshots/.
screenshots: $(STAMP)
	SCREENSHOTS_DIR=$(CURDIR)/docs/screenshots $(BIN)/python -m pytest -q diagrams/tests/test_member_journey_browser.py

clean:
	rm -rf $(VENV) db.sqlite3 staticfiles .pytest_cache
