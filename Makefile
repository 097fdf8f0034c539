# Ferry — the two commands a newcomer needs: `make demo` and `make test`.
SHELL := /bin/bash
.DEFAULT_GOAL := help

.PHONY: help deps build check test demo bench chaos install clean

PREFIX ?= /usr/local
DESTDIR ?=

help:
	@echo "make demo   install what is missing, start a private PostgreSQL, run workers on sample photos"
	@echo "make check  build, then the in-process tier only (worker against MemoryWorkerStore, store contract): seconds, no PostgreSQL"
	@echo "make test   install what is missing, start a throwaway PostgreSQL, build, run every test"
	@echo "make bench  benchmarks (figures as ratios against baselines measured in the same run)"
	@echo "make chaos  a 10-minute chaos soak: kill -9, restarts, faults, a zombie; then 5 minutes of failovers; exact checks"
	@echo "make install [PREFIX=/usr/local] [DESTDIR=]  release build, migrations, completions, man page"

deps:
	@scripts/install-deps.sh

build: deps
	swift build

# The fast tier: tests tagged .fast in Tests/FerryInProcessTests. The PostgreSQL half of the store contract runs
# under make test (it is skipped here even with FERRY_TEST_DATABASE_URL set).
check:
	swift build --build-tests
	swift test --skip-build --filter FerryInProcessTests --skip PostgresStoreContractTests

test: deps
	@scripts/test.sh

demo: deps
	@scripts/demo.sh

bench: deps
	@scripts/bench.sh

# Options after CHAOS_ARGS override the soak's, e.g. make chaos CHAOS_ARGS="--seed 123456789"; FAILOVER_ARGS those of
# the failover phase that follows (pg_auto_failover: switchovers and kill -9 of the primary).
chaos: deps
	@scripts/chaos.sh --duration 600 --uploads 300 --fetches 150 $(CHAOS_ARGS)
	@scripts/chaos.sh --failover --duration 300 --uploads 400 --max-size 24 --failovers 3 $(FAILOVER_ARGS)

install: deps
	@scripts/install.sh --prefix "$(PREFIX)" --destdir "$(DESTDIR)"

clean:
	rm -rf .build .ferry
