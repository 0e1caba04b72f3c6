# Both entry points set themselves up: a fresh machine needs only python3 (>= 3.11).
VENV ?= .venv
PYTHON ?= python3
BIN := $(VENV)/bin
# Simulated devices for everything that runs JAX on the CPU.
export XLA_FLAGS ?= --xla_force_host_platform_device_count=8

.PHONY: setup test-setup run test lint format bench-xla plan-picture fuzz

# A Debian package when its program is missing: installed as root with
# apt-get, else a note saying what to install (only the report needs them).
define need
	@command -v $(1) >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing $(2) ($(3))"; { apt-get update -qq && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(2); } \
	      >>$(VENV)/install.log 2>&1 || { tail -n 20 $(VENV)/install.log; exit 1; }; \
	  else echo "note: $(1) not found: install the $(2) package for $(3)" >&2; fi; }
endef

# The installers' own chatter (setuptools' notes on editable installs, pip's
# progress) goes to $(VENV)/install.log; a failure shows its tail.
$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	@echo "installing sbpc and its pinned dependencies into $(VENV) (log: $(VENV)/install.log)"
	@{ $(BIN)/pip install --upgrade pip && $(BIN)/pip install -e '.[test,bench]'; } \
	  >$(VENV)/install.log 2>&1 || { tail -n 40 $(VENV)/install.log; exit 1; }
	@touch $@

setup: $(VENV)/.installed
	$(call need,dot,graphviz,the HTML and dot plan reports)

# The tests also render the HTML plan report in a headless browser.
test-setup: setup
	$(call need,chromium,chromium,the plan report's browser test)

# The main job: the furthest the pipeline reaches today (see README).
run: setup
	$(BIN)/python examples/main_job.py

# Every test: lit + FileCheck regression tests, then pytest on every core.
test: test-setup
	$(BIN)/lit -sv test
	$(BIN)/pytest -q -n auto

# The fuzzer (test/fuzz/harness.py): 2,000 mutated inputs through sbpc-opt and
# sbpc.jax.distribute, counts per outcome; fails on any traceback, internal
# error, hang, leaked warning, wrong number or broken output file.
FUZZ_COUNT ?= 2000
FUZZ_SEED ?= 0
fuzz: setup
	$(BIN)/python test/fuzz/harness.py --count $(FUZZ_COUNT) --seed $(FUZZ_SEED)

# sbpc against XLA's partitioner on every example: writes docs/benchmarks.md.
bench-xla: setup
	$(BIN)/python bench/vs_xla.py

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: setup
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

# docs/plan-report.png (README): sbpc-opt's HTML report of an example, as
# headless Chromium shows it.
plan-picture: test-setup
	$(BIN)/python examples/plan_picture.py docs/plan-report.png
