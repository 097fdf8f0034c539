# Ferry — the two commands a newcomer needs: `make demo` and `make test`.
SHELL := /bin/bash
.DEFAULT_GOAL := help

.PHONY: help deps build test demo bench install clean

PREFIX ?= /usr/local
DESTDIR ?=

help:
	@echo "make demo   install what is missing, start a private PostgreSQL, run workers on sample photos"
	@echo "make test   install what is missing, start a throwaway PostgreSQL, build, run every test"
	@echo "make bench  benchmarks (figures as ratios against baselines measured in the same run)"
	@echo "make install [PREFIX=/usr/local] [DESTDIR=]  release build, migrations, completions, man page"

deps:
	@scripts/install-deps.sh

build: deps
	swift build

test: deps
	@scripts/test.sh

demo: deps
	@scripts/demo.sh

bench: deps
	@scripts/bench.sh

install: deps
	@scripts/install.sh --prefix "$(PREFIX)" --destdir "$(DESTDIR)"

clean:
	rm -rf .build .ferry
