# Two commands for a fresh machine with Python 3.10+ and make:
#   make run    create .venv, install everything, open the app on a default lesson
#   make test   same setup, then the whole test suite
# TORCH picks the torch requirement: the default range lets users with GPUs get a
# CUDA build; CI passes TORCH=torch==2.13.0 (a CPU build from local disk).

PYTHON ?= python3
TORCH ?= torch>=2.2
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
LINKS := $(VENV)/.linked
SOURCES := $(VENV)/.sources
# The editable install is "strict": build/__editable__.*/autogradviz is a tree of
# symlinks laid out as installed (autogradviz/app, autogradviz/engine, ...), so
# tools that walk the package on disk (lint-imports, run from the repository root)
# see every module. Edits show at once; a module added or removed needs the
# tree relinked, which happens when the list of files in app/, engine/ and
# resources/ ($(SOURCES)) changes.
STRICT := --config-settings editable_mode=strict

# The suite runs in two processes, a test file each at a time (module fixtures
# stay whole): most of its time is spent waiting on worker processes and Qt.
TEST_PROCESSES ?= 2

.PHONY: run test setup bench cuda-check translations clean FORCE

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet "$(TORCH)"
	$(PY) -m pip install --quiet -e ".[test]" $(STRICT)
	touch $(STAMP)

$(SOURCES): FORCE
	@mkdir -p $(VENV)
	@find app engine resources -type f -not -path '*/__pycache__/*' -not -name '*.pyc' | LC_ALL=C sort > $@.new
	@if cmp -s $@.new $@; then rm -f $@.new; else mv $@.new $@; fi

$(LINKS): $(STAMP) $(SOURCES)
	$(PY) -m pip install --quiet --no-deps -e . $(STRICT)
	touch $(LINKS)

setup: $(LINKS)

run: $(LINKS)
	$(VENV)/bin/autogradviz

test: $(LINKS)
	$(VENV)/bin/ruff check app engine
	$(VENV)/bin/mypy
	QT_QPA_PLATFORM=$${QT_QPA_PLATFORM:-offscreen} $(PY) -m pytest -q -p no:cacheprovider -n $(TEST_PROCESSES) --dist loadfile

BENCH_STAMP := $(VENV)/.bench

$(BENCH_STAMP): pyproject.toml $(STAMP)
	$(PY) -m pip install --quiet -e ".[bench]" $(STRICT)
	touch $(BENCH_STAMP)

bench: $(LINKS) $(BENCH_STAMP)
	$(PY) benchmarks/run_all.py

# Every cuda-marked test plus `autogradviz trace --device cuda` of the CUDA lessons
# (tests/cuda_check.py). Without a CUDA device: "skipped: no CUDA device", exit 0.
# CHECK_PY=python3 uses a Python that already has torch and autogradviz (a GPU
# server with no network, where .venv cannot be built), instead of .venv.
cuda-check: $(if $(CHECK_PY),,$(LINKS))
	QT_QPA_PLATFORM=$${QT_QPA_PLATFORM:-offscreen} $(or $(CHECK_PY),$(PY)) tests/cuda_check.py

translations: $(LINKS)
	$(VENV)/bin/pyside6-lrelease resources/translations/autogradviz_zh_CN.ts -qm resources/translations/autogradviz_zh_CN.qm

clean:
	rm -rf $(VENV) build *.egg-info
