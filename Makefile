# make run  — set up .venv if needed, then simulate the bundled example (the seed's three tenants)
# make test — set up .venv if needed, then run every test
# make fuzz — the fuzz suite (docs/reliability.md); FUZZ_ARGS="--smoke" or "--mutants 500 --seed 2"
PYTHON ?= python3
VENV := .venv
STAMP := $(VENV)/.installed-stamp

.PHONY: run test lint bench fuzz clean
FUZZ_ARGS ?=

$(STAMP): pyproject.toml
	test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install --quiet --upgrade pip
	$(VENV)/bin/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

run: $(STAMP)
	$(VENV)/bin/fairshare run examples/seed-three-tenants/simulation.yaml -o out/seed-three-tenants

test: $(STAMP)
	$(VENV)/bin/python -m pytest

lint: $(STAMP)
	$(VENV)/bin/ruff check src tests bench fuzz
	$(VENV)/bin/mypy src/

bench: $(STAMP)
	$(VENV)/bin/python bench/fair_shares.py
	$(VENV)/bin/python bench/allocate.py
	$(VENV)/bin/python bench/preempt.py
	$(VENV)/bin/python bench/update.py
	$(VENV)/bin/python bench/simulate.py
	$(VENV)/bin/python bench/sweep.py

fuzz: $(STAMP)
	$(VENV)/bin/python -m fuzz $(FUZZ_ARGS)

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis out
