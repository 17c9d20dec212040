# `make run` serves the portal and `make test` runs the suite; both set themselves up. In the
# production mode, `make worker` (several) and `make beat` (one) run beside `make run`.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PORT ?= 8000
BIN := $(VENV)/bin

.PHONY: run test worker beat clean

$(BIN)/python:
	$(PYTHON) -c 'import sys; assert sys.version_info[:2] == (3, 11), "nwbportal needs Python 3.11, found " + sys.version'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(VENV)/.runtime: requirements.txt | $(BIN)/python
	$(BIN)/pip install --quiet -r requirements.txt
	touch $@

$(VENV)/.dev: requirements.txt requirements-dev.txt $(VENV)/.runtime
	$(BIN)/pip install --quiet -r requirements-dev.txt
	touch $@

# Embedded by default (SQLite, in-process worker, in-memory channel layer); with DATABASE_URL and
# REDIS_URL set it serves the production mode and expects `make worker` processes beside it.
run: $(VENV)/.runtime
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py collectstatic --noinput --verbosity 0
	@if [ -z "$$DATABASE_URL$$REDIS_URL" ]; then $(BIN)/python manage.py demo_account; fi
	@echo "Serving on http://127.0.0.1:$(PORT)/"
	$(BIN)/uvicorn nwbportal.asgi:application --host 127.0.0.1 --port $(PORT) --no-access-log

# Production mode only: conversion workers (run several), and one scheduler for job recovery.
worker: $(VENV)/.runtime
	@if [ -z "$$REDIS_URL" ]; then echo "make worker needs DATABASE_URL and REDIS_URL (the embedded mode runs its worker inside make run)"; exit 1; fi
	$(BIN)/celery -A nwbportal worker --loglevel INFO

beat: $(VENV)/.runtime
	@if [ -z "$$REDIS_URL" ]; then echo "make beat needs DATABASE_URL and REDIS_URL"; exit 1; fi
	mkdir -p var
	$(BIN)/celery -A nwbportal beat --loglevel INFO --schedule var/celerybeat-schedule

test: $(VENV)/.dev
	$(BIN)/python manage.py makemigrations --check --dry-run
	$(BIN)/ruff check .
	$(BIN)/pytest $(PYTEST_ARGS)

clean:
	rm -rf $(VENV) var .pytest_cache .ruff_cache
