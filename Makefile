# Ferry — the two commands a newcomer needs: `make demo` and `make test`.
SHELL := /bin/bash
.DEFAULT_GOAL := help

.PHONY: help deps build check test demo bench chaos install clean

PREFIX ?= /usr/local
DESTDIR ?=

help:
	@echo "make demo   install what is missing, start a private PostgreSQL, run workers on sample photos"
	@echo "make check  build, then the fast tier only (no PostgreSQL, no process: worker in process, parsers, clients): under a minute"
	@echo "make test   install what is missing, start a throwaway PostgreSQL, build, run every test"
	@echo "make bench  benchmarks (figures as ratios against baselines measured in the same run)"
	@echo "make chaos  a 10-minute chaos soak: kill -9, restarts, faults, a zombie; then 5 minutes of failovers; then 3 minutes"
	@echo "            of partitions (root: black holes, a full disk); exact checks"
	@echo "make build  release binary, man page and shell completions, staged in .build/dist/release (needs swift)"
	@echo "make install [PREFIX=/usr/local] [DESTDIR=]  installs what make build staged (building it first if missing or"
	@echo "            older than the sources): binary, migrations, completions, man page; no swift needed once built"

deps:
	@scripts/install-deps.sh

# What make install installs, staged in .build/dist/release (scripts/build-dist.sh): make build as yourself with
# the toolchain, then sudo make install needs no swift.
build: deps
	@scripts/build-dist.sh

# The fast tier, by tag: every test tagged .fast (Tests/FerryTestSupport/Tags.swift), in whichever target it lives:
# no PostgreSQL and no child process (the worker in process against MemoryWorkerStore, the store contract, parsers,
# the dev server's responder, the provider clients against it in process). scripts/fast-tier.sh reads the tags from
# the built bundle, runs with the database variables unset and FERRY_TEST_TIER=fast (the test-support helpers then
# refuse PostgreSQL and processes), and prints how many tests ran; a test with no tier tag fails it.
check:
	swift build --build-tests
	@scripts/fast-tier.sh

test: deps
	@scripts/test.sh

demo: deps
	@scripts/demo.sh

bench: deps
	@scripts/bench.sh

# Options after CHAOS_ARGS override the soak's, e.g. make chaos CHAOS_ARGS="--seed 123456789"; FAILOVER_ARGS those of
# the failover phase that follows (pg_auto_failover: switchovers and kill -9 of the primary); PARTITION_ARGS those of
# the partition phase last (as root: PostgreSQL black-holed under one worker, the dev server under all, a full disk;
# no restarts there, so that each silent fault shows on its own).
chaos: deps
	@scripts/chaos.sh --duration 600 --uploads 300 --fetches 150 $(CHAOS_ARGS)
	@scripts/chaos.sh --failover --duration 300 --uploads 400 --max-size 24 --failovers 3 $(FAILOVER_ARGS)
	@scripts/chaos.sh --partition --duration 180 --uploads 120 --fetches 60 --max-size 24 --pg-restarts 0 --dev-server-restarts 0 $(PARTITION_ARGS)

# No deps here: installing a staged build needs nothing; scripts/install.sh installs the build packages itself when it
# has to build first.
install:
	@scripts/install.sh --prefix "$(PREFIX)" --destdir "$(DESTDIR)"

clean:
	rm -rf .build .ferry
