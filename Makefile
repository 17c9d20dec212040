# `make run` serves the portal and `make test` runs the suite; both set themselves up. In the
# production mode, `make worker` (several) and `make beat` (one) run beside `make run`.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PORT ?= 8000
BIN := $(VENV)/bin

.PHONY: run test chromium worker beat clean

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
# REDIS_URL set it serves the production mode with one web process per core (WEB_CONCURRENCY to
# change it: sync views share one thread per process) and expects `make worker` processes beside it.
run: $(VENV)/.runtime
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py collectstatic --noinput --verbosity 0
	@if [ -z "$$DATABASE_URL$$REDIS_URL" ]; then $(BIN)/python manage.py demo_account; fi
	@echo "Serving on http://127.0.0.1:$(PORT)/"
	@if [ -z "$$DATABASE_URL$$REDIS_URL" ]; then \
	  exec $(BIN)/uvicorn nwbportal.asgi:application --host 127.0.0.1 --port $(PORT) --no-access-log \
	    --timeout-graceful-shutdown 20; \
	else \
	  exec $(BIN)/uvicorn nwbportal.asgi:application --host 127.0.0.1 --port $(PORT) --no-access-log \
	    --timeout-graceful-shutdown 20 --workers $${WEB_CONCURRENCY:-$$(nproc)}; \
	fi

# Production mode only: conversion workers (run several), and one scheduler for job recovery.
# A worker that stops on an error is started again after 5 s (one stopped by Ctrl-C or SIGTERM is not).
worker: $(VENV)/.runtime
	@if [ -z "$$REDIS_URL" ]; then echo "make worker needs DATABASE_URL and REDIS_URL (the embedded mode runs its worker inside make run)"; exit 1; fi
	@until $(BIN)/celery -A nwbportal worker --loglevel INFO --without-gossip --without-mingle; do \
	  echo "nwbportal: the worker stopped with status $$?; starting it again in 5 s" >&2; sleep 5; \
	done

beat: $(VENV)/.runtime
	@if [ -z "$$REDIS_URL" ]; then echo "make beat needs DATABASE_URL and REDIS_URL"; exit 1; fi
	mkdir -p var
	$(BIN)/celery -A nwbportal beat --loglevel INFO --schedule var/celerybeat-schedule

# The browser tests drive Debian's Chromium (never a browser Playwright downloads). Installed here
# when missing and we may (root with apt-get); otherwise those tests skip and say why (a failure on CI).
chromium:
	@if [ ! -x /usr/bin/chromium ] && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "Installing Debian's chromium for the browser tests"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null \
	    || echo "Could not install chromium: the browser tests will be skipped"; \
	fi

test: $(VENV)/.dev chromium
	$(BIN)/python manage.py makemigrations --check --dry-run
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	@# The suite's servers speak plain HTTP on loopback: no redirect to HTTPS there (the production
	@# default, and `check --deploy` with it, are tested in a process of their own).
	SECURE_SSL_REDIRECT=$${SECURE_SSL_REDIRECT:-false} $(BIN)/pytest $(PYTEST_ARGS)

clean:
	rm -rf $(VENV) var .pytest_cache .ruff_cache .mypy_cache
