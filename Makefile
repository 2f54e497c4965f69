# make run  — set up .venv if needed, then simulate the bundled example (the seed's three tenants) and write its report
# make test — set up .venv if needed, then run every test
# make test-postgres — the history store's and the state store's tests on a PostgreSQL they start (initdb + pg_ctl)
# make test-kerberos — fairshare watch --spnego against a Kerberos realm it starts (krb5-kdc)
# make test-restart — serve killed 50 times under load, restarted on its state store
# make test-ray — serve's Ray executor on a local multi-node Ray cluster it starts (the [ray] extra)
# make fuzz — the fuzz suite (docs/reliability.md); FUZZ_ARGS="--smoke" or "--mutants 500 --seed 2"
# make test-browser — the report in Debian's chromium (apt-get install chromium chromium-driver)
# make test-rm — Hadoop 3.4's own ResourceManager in-process (rmharness/, JDK 17 + Maven), watched by fairshare watch
# make oracle — fairshare against Hadoop's own FairScheduler (needs a JDK 17 and Maven;
#               docs/fidelity.md): ORACLE_N=10000 for more random scenarios, ORACLE_ARGS=--smoke
PYTHON ?= python3
VENV := .venv
STAMP := $(VENV)/.installed-stamp

.PHONY: run test test-browser test-rm lint bench fuzz oracle clean
FUZZ_ARGS ?=
ORACLE_N ?= 1000
ORACLE_ARGS ?=

$(STAMP): pyproject.toml
	test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install --quiet --upgrade pip
	$(VENV)/bin/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

run: $(STAMP)
	$(VENV)/bin/fairshare simulate examples/seed-three-tenants/simulation.yaml -o out/seed-three-tenants --report

test: $(STAMP)
	$(VENV)/bin/python -m pytest

# Playwright drives /usr/bin/chromium (never `playwright install`); not part of `make test`,
# which must run where there is no browser
test-browser: $(STAMP)
	$(VENV)/bin/python -m pip install --quiet -e '.[test,browser]'
	$(VENV)/bin/python -m pytest browser_tests

# postgres_tests/conftest.py makes a throw-away cluster in a temporary folder, on 127.0.0.1,
# and stops it by its pid; not part of `make test`, which must run where there is no PostgreSQL
.PHONY: test-postgres
test-postgres: $(STAMP)
	$(VENV)/bin/python -m pytest postgres_tests

# kerberos_tests/conftest.py runs a throw-away MIT Kerberos realm (krb5-kdc, on 127.0.0.1) for
# the SPNEGO tests; httpx-gssapi's gssapi builds against libkrb5-dev
.PHONY: test-kerberos
test-kerberos: $(STAMP)
	$(VENV)/bin/python -m pip install --quiet -e '.[test,kerberos]'
	$(VENV)/bin/python -m pytest kerberos_tests

# ray_tests/conftest.py starts one ray.cluster_utils.Cluster (a head and two workers, every Ray
# server on 127.0.0.1) for the session and shuts it down by its processes' ids; not part of
# `make test`, which must run where Ray is not installed
.PHONY: test-ray
test-ray: $(STAMP)
	$(VENV)/bin/python -m pip install --quiet -e '.[test,ray]'
	$(VENV)/bin/python -m pytest ray_tests

# tests/server/test_fault_injection.py at full size: fairshare serve killed (kill -9) 50 times
# under load and restarted on its state store (make test runs 3 kills)
.PHONY: test-restart
test-restart: $(STAMP)
	FAIRSHARE_KILLS=50 $(VENV)/bin/python -m pytest tests/server/test_fault_injection.py

lint: $(STAMP)
	$(VENV)/bin/ruff check src tests bench fuzz browser_tests oracle rm_tests rmharness/capture.py postgres_tests kerberos_tests ray_tests
	$(VENV)/bin/mypy src/

bench: $(STAMP)
	$(VENV)/bin/python bench/fair_shares.py
	$(VENV)/bin/python bench/allocate.py
	$(VENV)/bin/python bench/preempt.py
	$(VENV)/bin/python bench/update.py
	$(VENV)/bin/python bench/simulate.py
	$(VENV)/bin/python bench/sweep.py
	$(VENV)/bin/python bench/report.py
	$(VENV)/bin/python bench/watch.py
	$(VENV)/bin/python bench/serve_load.py

fuzz: $(STAMP)
	$(VENV)/bin/python -m fuzz $(FUZZ_ARGS)

# builds rmharness with Maven if needed (offline first), then runs a real RM per test module
test-rm: $(STAMP)
	$(VENV)/bin/python -m pip install --quiet -e '.[test,browser]'
	$(VENV)/bin/python -m pytest rm_tests

# builds oracle/driver with Maven (offline once its dependencies are downloaded), then compares
oracle: $(STAMP)
	ORACLE_N=$(ORACLE_N) $(VENV)/bin/python -m oracle $(ORACLE_ARGS)

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis out oracle/driver/target rmharness/target
