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

.PHONY: run test setup bench translations clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet "$(TORCH)"
	$(PY) -m pip install --quiet -e ".[test]"
	touch $(STAMP)

setup: $(STAMP)

run: $(STAMP)
	$(VENV)/bin/autogradviz

test: $(STAMP)
	QT_QPA_PLATFORM=$${QT_QPA_PLATFORM:-offscreen} $(PY) -m pytest -q -p no:cacheprovider

bench: $(STAMP)
	$(PY) benchmarks/run_all.py

translations: $(STAMP)
	$(VENV)/bin/pyside6-lrelease resources/translations/autogradviz_zh_CN.ts -qm resources/translations/autogradviz_zh_CN.qm

clean:
	rm -rf $(VENV) build *.egg-info
