# Both entry points set themselves up: a fresh machine needs only python3 (>= 3.11).
VENV ?= .venv
PYTHON ?= python3
BIN := $(VENV)/bin
# Simulated devices for everything that runs JAX on the CPU.
export XLA_FLAGS ?= --xla_force_host_platform_device_count=8

.PHONY: setup run test lint format bench-xla fuzz

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test,bench]'
	touch $@

setup: $(VENV)/.installed

# The main job: the furthest the pipeline reaches today (see README).
run: setup
	$(BIN)/python examples/main_job.py

# Every test: lit + FileCheck regression tests, then pytest.
test: setup
	$(BIN)/lit -sv test
	$(BIN)/pytest -q

# The fuzzer (test/fuzz/harness.py): 2,000 mutated inputs through sbpc-opt,
# counts per outcome; fails on any traceback, internal error or hang.
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
