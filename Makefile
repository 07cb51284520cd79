# Paddock: `make run` to try it on a laptop, `make test` to run the whole suite.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test bench lint format messages system-deps clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

$(VENV)/.runtime: requirements.txt | $(PY)
	$(PIP) install --quiet -r requirements.txt
	touch $@

$(VENV)/.dev: requirements.txt requirements-dev.txt | $(PY)
	$(PIP) install --quiet -r requirements-dev.txt
	touch $@ $(VENV)/.runtime

## Set up (SQLite, tasks inline, demo championship) and serve on http://127.0.0.1:8000
run: $(VENV)/.runtime
	$(PY) manage.py migrate --noinput -v 0
	SITE_URL=http://$(HOST):$(PORT) $(PY) manage.py load_demo
	SITE_URL=http://$(HOST):$(PORT) $(PY) manage.py runserver $(HOST):$(PORT)

## Install what the tests need (Python extras, Chromium, poppler) and run the whole suite
test: $(VENV)/.dev system-deps
	$(PY) manage.py collectstatic --noinput -v 0
	$(PY) -m pytest

# Debian's chromium (for Playwright: never `playwright install`) and poppler-utils.
system-deps:
	@if command -v chromium >/dev/null 2>&1 && command -v pdftotext >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium poppler-utils >/dev/null; \
	else echo "Please install chromium and poppler-utils (sudo apt-get install chromium poppler-utils)."; fi

## Measure (not test) a national championship's size and a hundred referees; writes bench/results.json
bench: $(VENV)/.dev
	$(PY) -m bench.run

lint: $(VENV)/.dev
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: $(VENV)/.dev
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

## Refresh the translation catalogues (needs GNU gettext); compiled .mo files are committed
messages: $(VENV)/.runtime
	$(PY) manage.py makemessages -l fr -l en --ignore=.venv --ignore=staticfiles --no-obsolete
	$(PY) manage.py compilemessages --ignore=.venv

clean:
	rm -rf $(VENV) staticfiles db.sqlite3
