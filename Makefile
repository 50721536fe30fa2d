# picotorch: two commands on a fresh machine.
#   make lab    create .venv, install the course, open JupyterLab on notebooks/00_tour.ipynb
#   make test   create .venv, install test dependencies (torch==2.13.0 CPU for comparisons), run everything
# Also: make exercises | make update [FORCE=1] | make reset ID=2.1 | make grade [CHAPTER=2] [TIMEOUT=10]
#       make doctor | make bench | make lint | make clean

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
STAMP_LAB  := $(VENV)/.installed-lab
STAMP_TEST := $(VENV)/.installed-test
# The learner's copy of the exercises (untracked): generated when missing, never overwritten.
LEARNER    := exercises/picotorch
SANITIZE   := tests/nbval_sanitize.cfg
XDIST      ?= -n 2 --dist loadscope
IMPL       ?= exercises
PORT       ?= 8888
JUPYTER_PORT ?= $(PORT)

# JupyterLab: no browser where there is no screen (CI, ssh); --allow-root where we are root.
NO_BROWSER := $(if $(or $(CI),$(and $(if $(DISPLAY),,1),$(if $(filter Darwin,$(shell uname -s)),,1))),--no-browser)
ALLOW_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root)

# Every tool below comes from the venv (jupyter kernels, mpiexec, dot checks...).
export PATH := $(CURDIR)/$(VENV)/bin:$(PATH)

.PHONY: lab test lint exercises update reset grade doctor bench clean distclean dot venv

venv: $(PY)

$(PY):
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
	  { echo "picotorch needs Python >= 3.11; set PYTHON=/path/to/python3.11 (found: $$($(PYTHON) --version 2>&1))"; exit 1; }
	$(PYTHON) -m venv $(VENV)

# The lab extra is the learner's whole setup: JupyterLab plus what check, grade and nbval run.
$(STAMP_LAB): pyproject.toml | $(PY)
	$(PIP) install -q -e '.[lab]'
	$(PY) -m picotorch_course install-switch
	@[ -d $(LEARNER) ] || $(PY) -m picotorch_course exercises
	touch $@

$(LEARNER): | $(STAMP_LAB)
	$(PY) -m picotorch_course exercises

# The test stamp covers the lab extras too, so `make lab` after `make test` installs nothing.
$(STAMP_TEST): pyproject.toml | $(PY)
	$(PIP) install -q -e '.[test,lab,compare,mpi]'
	$(PY) -m picotorch_course install-switch
	touch $@ $(STAMP_LAB)

# graphviz's `dot` renders the graph pictures; the Python package alone cannot.
dot:
	@if command -v dot >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "installing graphviz (dot) with apt-get"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq graphviz >/dev/null; \
	else \
	  echo "NOTE: graphviz 'dot' is missing; graph pictures cannot be drawn. Install it:"; \
	  echo "      sudo apt-get install graphviz   (Debian/Ubuntu)   or   brew install graphviz   (macOS)"; \
	fi

lab: $(STAMP_LAB) $(LEARNER) dot
	$(VENV)/bin/jupyter lab --ServerApp.root_dir="$(CURDIR)" --ip=127.0.0.1 --port=$(JUPYTER_PORT) \
	  $(NO_BROWSER) $(ALLOW_ROOT) notebooks/00_tour.ipynb

test: $(STAMP_TEST) dot
	@start=$$(date +%s); set -e; export PICOTORCH_IMPL=reference; \
	echo "== ruff"; $(PY) -m ruff check .; \
	echo "== generated code is up to date (picotorchgen)"; $(PY) -m picotorchgen --check; \
	echo "== exercise generator (into a temporary folder; your exercises/ is not read)"; \
	$(PY) -m picotorch_course exercises --check; \
	echo "== tests"; $(PY) -m pytest -q $(XDIST) tests; \
	echo "== notebooks (nbval)"; \
	$(PY) -m pytest -q $(XDIST) --nbval --nbval-sanitize-with $(SANITIZE) notebooks/*.ipynb; \
	echo "== exercise proof"; $(PY) -m picotorch_course prove; \
	echo "make test: all passed in $$(( $$(date +%s) - start ))s"

lint: $(STAMP_TEST)
	$(PY) -m ruff check .

# Write exercises/picotorch, or bring a course update into it: your solutions are kept (see README).
exercises update: $(STAMP_LAB)
	$(PY) -m picotorch_course $@ $(if $(FORCE),--force)

reset: $(STAMP_LAB)
	@[ -n "$(ID)" ] || { echo "usage: make reset ID=2.1   (puts exercise 2.1's stub back, after a backup)"; exit 2; }
	$(PY) -m picotorch_course reset $(ID)

doctor: $(STAMP_LAB)
	$(PY) -m picotorch_course doctor

# TIMEOUT: seconds per test (a hanging solution costs its own exercise only).
grade: $(STAMP_LAB) $(LEARNER)
	$(PY) -m picotorch_course grade $(if $(CHAPTER),--chapter $(CHAPTER)) --impl $(IMPL) \
	  $(if $(TIMEOUT),--timeout $(TIMEOUT)) --json grade.json --junit grade.xml

bench: $(STAMP_TEST)
	@set -e; found=0; for f in bench/*.py; do \
	  [ -f "$$f" ] || continue; case "$$(basename $$f)" in _*) continue;; esac; \
	  found=1; echo "== $$f"; PICOTORCH_IMPL=reference $(PY) "$$f"; done; \
	[ $$found = 1 ] || echo "no benchmarks in bench/"

clean:
	rm -rf .pytest_cache .ruff_cache build dist grade.json grade.xml $(STAMP_LAB) $(STAMP_TEST)
	find . -path ./$(VENV) -prune -o \( -name __pycache__ -o -name '*.egg-info' \) -type d -print \
	  | xargs rm -rf

# Your exercises/ stays: it is your work (delete it yourself to start over).
distclean: clean
	rm -rf $(VENV) .venv-lab-test
