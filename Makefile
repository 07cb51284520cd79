# Paddock: `make run` to try it on a laptop, `make test` to run the whole suite, `make venue`
# for the tournament day itself.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
HOST ?= 127.0.0.1
PORT ?= 8000
SITE_URL ?= http://$(HOST):$(PORT)
# make venue: the day's data folder (database, secret key, backups/, poster.pdf, media/: the
# photos of the signed sheets).
DATA ?= venue

# The laptop setup: DEBUG on (the settings' default is production), demo logins allowed.
# HOST=<an address of this machine> serves it there too (a try on a phone; the day itself
# is `make venue`).
# Each host name once (HOST is 127.0.0.1 unless given).
comma := ,
space := $(subst ,, )
DEV_HOSTS := $(subst $(space),$(comma),$(strip $(HOST) $(filter-out $(HOST),127.0.0.1 localhost [::1] testserver)))
DEV := DEBUG=true SITE_URL=$(SITE_URL) ALLOWED_HOSTS=$(DEV_HOSTS)
# A variable's value as one shell word, exactly as typed on make's command line: not
# expanded by make (a "$" stays a "$"), quoted for the shell (a Wi-Fi named `x"; rm -rf ~`
# is a name, not a command).
quoted = '$(subst ','\'',$(value $(1)))'
# The tournament day: production settings (DEBUG off), a key generated once into the data
# folder, SQLite there too unless DATABASE_URL is set.
VENUE := PADDOCK_DATA_DIR=$(call quoted,DATA) SECRET_KEY_FILE=$(call quoted,DATA)/secret_key
# make test's workers (pytest-xdist): one per core and one more, since a test often waits
# on a browser, a subprocess or the database (measured on 2 cores, same code: 3 workers
# 4.9 to 5.5 min, 4 workers 5.8); at most 16, one Redis database each.
# TEST_WORKERS=1 for one.
# worksteal: the longest tests are spread as they run. Not loadfile nor loadscope: the API
# fuzz's items (schemathesis) share one node id, and those modes would run one of each.
TEST_WORKERS ?= $(shell $(PYTHON) -c "import os; print(min((os.cpu_count() or 1) + 1, 16))")
# Every package comes from a lock file: dependencies of dependencies included, each at its
# version and checked against its hashes; wheels only, so that nothing unpinned is fetched
# to build one. The requirements*.txt files are their inputs: after editing one, `make lock`.
PIP_INSTALL := $(PIP) install --quiet --require-hashes --only-binary :all:
# The test tools are installed by uv (from the same lock, same checks): about 5 s where pip
# took 25 on a fresh clone. uv itself comes from its own small lock, installed by pip.
UV_INSTALL := $(VENV)/bin/uv pip install --quiet --python $(PY) --require-hashes --only-binary :all:
UV_COMPILE := $(VENV)/bin/uv pip compile --quiet --generate-hashes --universal \
	--python-version 3.11 --custom-compile-command "make lock"

.PHONY: run venue export push backup restore test lock bench lint format messages system-deps clean guide-images

$(PY):
	$(PYTHON) -m venv $(VENV)

$(VENV)/.runtime: requirements.lock | $(PY)
	$(PIP_INSTALL) -r requirements.lock
	touch $@

$(VENV)/.dev: requirements.lock requirements-dev.lock requirements-uv.lock | $(PY)
	$(PIP_INSTALL) -r requirements-uv.lock
	$(UV_INSTALL) -r requirements-dev.lock
	touch $@ $(VENV)/.runtime

## Set up (SQLite, tasks inline, demo championship) and serve on http://127.0.0.1:8000
run: $(VENV)/.runtime
	$(DEV) $(PY) manage.py migrate --noinput -v 0
	$(DEV) $(PY) manage.py load_demo
	@$(if $(value EMAIL_HOST),,echo "Mails (no EMAIL_HOST): written to $(CURDIR)/mails/ (each one says so below when it is written)")
	$(DEV) $(PY) manage.py runserver $(HOST):$(PORT)

## The tournament day: serve the hall's phones from this laptop (gunicorn, DEBUG off, backups).
## WIFI="Hall Wi-Fi" (and WIFI_PASSWORD=...) print it on the poster; EVENT=<slug> picks the event.
venue: $(VENV)/.runtime
	$(VENUE) $(PY) manage.py venue --port $(PORT) \
		$(if $(value WIFI),--wifi $(call quoted,WIFI)) \
		$(if $(value WIFI_PASSWORD),--wifi-password $(call quoted,WIFI_PASSWORD)) \
		$(if $(value EVENT),--event $(call quoted,EVENT)) \
		$(if $(value BUNDLE),--bundle $(call quoted,BUNDLE)) \
		$(if $(filter 1 yes true on,$(value ORGANISERS_ON_WIFI)),--organisers-on-wifi)

## The day's way back to the hosted server, once it is over: make export EVENT=<slug> writes
## venue/<slug>.back.json (OUT=<file or folder> elsewhere), whole or not at all; upload it on
## the hosted desk's "The day on a laptop" page.
export: $(VENV)/.runtime
	@test -n $(call quoted,EVENT) || { echo "Which event? make export EVENT=<slug> (the slug is in the event's address: /e/<slug>/)"; exit 2; }
	$(VENUE) $(PY) manage.py export_event $(call quoted,EVENT) --output $(if $(value OUT),$(call quoted,OUT),$(call quoted,DATA))

## Or, with internet on the laptop, send it straight: make push EVENT=<slug> TO=https://<hosted
## server> TOKEN=<an organiser's API token there>
push: $(VENV)/.runtime
	@test -n $(call quoted,EVENT) -a -n $(call quoted,TO) -a -n $(call quoted,TOKEN) || { echo "make push EVENT=<slug> TO=https://<hosted server> TOKEN=<an organiser's API token there>"; exit 2; }
	@$(VENUE) $(PY) manage.py push_event $(call quoted,EVENT) --to $(call quoted,TO) --token $(call quoted,TOKEN)

## A backup of the venue's whole database now (make venue takes one every 5 minutes)
backup: $(VENV)/.runtime
	$(VENUE) $(PY) manage.py backup

## Restore a backup into the venue's database: make restore FILE=venue/backups/<file>
## (into an empty data folder; REPLACE=1 replaces the current database, kept aside first)
restore: $(VENV)/.runtime
	@test -n $(call quoted,FILE) || { echo "Which backup? make restore FILE="$(call quoted,DATA)"/backups/<file>"; exit 2; }
	$(VENUE) $(PY) manage.py restore $(call quoted,FILE) $(if $(REPLACE),--replace)

## Install what the tests need (Python extras, Chromium, poppler) and run the whole suite
# The 30 slowest tests are listed at the end: the suite's budget is 9 minutes on a clean clone.
# Compiled modules are kept (even where PYTHONDONTWRITEBYTECODE says otherwise): the suite
# starts dozens of Python processes (workers, manage.py, gunicorn), each compiling the
# project again without them.
test: export PYTHONDONTWRITEBYTECODE =
test: $(VENV)/.dev system-deps
	$(DEV) $(PY) manage.py collectstatic --noinput -v 0
	$(PY) -m compileall -q -j 0 tournament qualifying races standings paddock
	$(PY) -m pytest -n $(TEST_WORKERS) --dist worksteal --durations=30 $(PYTEST_ARGS)

## Rewrite the lock files from requirements.txt and requirements-dev.txt (the dev lock keeps
## the runtime lock's versions; uv's own lock keeps the dev lock's). UV_FLAGS=--upgrade also
## raises unpinned sub-dependencies.
lock: $(VENV)/.dev
	$(UV_COMPILE) $(UV_FLAGS) requirements.txt -o requirements.lock
	$(UV_COMPILE) $(UV_FLAGS) requirements-dev.txt -c requirements.lock -o requirements-dev.lock
	$(UV_COMPILE) requirements-uv.txt -c requirements-dev.lock -o requirements-uv.lock

# Debian's chromium (for Playwright: never `playwright install`) and poppler-utils; and, when it
# can be installed, Chromium's headless shell, which the tests drive (the whole browser else:
# the same tests, about 40 % more of their CPU). The guide's screenshots use the browser.
APT_INSTALL = DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends
system-deps:
	@if command -v chromium >/dev/null 2>&1 && command -v pdftotext >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then \
		apt-get update -qq && $(APT_INSTALL) chromium poppler-utils >/dev/null; \
	else echo "Please install chromium and poppler-utils (sudo apt-get install chromium poppler-utils)."; fi
	@command -v chromium-headless-shell >/dev/null 2>&1 \
	|| { [ "$$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1 \
		&& { $(APT_INSTALL) chromium-headless-shell >/dev/null 2>&1 \
			|| { apt-get update -qq && $(APT_INSTALL) chromium-headless-shell >/dev/null 2>&1; }; }; } \
	|| echo "chromium-headless-shell is not installed: the browser tests drive chromium itself (slower)."

## The guide's screenshots (/guide/), taken from the demo in Chromium at 390 and 1366 px, in French
## and English, written to static/guide/<language>/ (not run by the tests; commit what it writes)
guide-images: $(VENV)/.dev system-deps
	$(PY) -m paddock.guide.images

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
	$(DEV) $(PY) manage.py makemessages -l fr -l en --ignore=.venv --ignore=staticfiles --no-obsolete
	$(DEV) $(PY) manage.py compilemessages --ignore=.venv

# Never the venue's data folder: it holds a day's results and their backups.
clean:
	rm -rf $(VENV) staticfiles db.sqlite3
