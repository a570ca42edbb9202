# Relaydeck Server: build, run and test on Debian 12 with the Swift toolchain on PATH.
#
#   make run     install what is missing, build, serve on LISTEN (default 127.0.0.1:8080)
#   make test    install what is missing, unit tests, release build, end-to-end tests
#   make bench   the benchmark against nginx (bench/run.sh); never part of `make test`
#
# apt packages are installed only when `dpkg -s` says they are missing (apt-get update runs
# once, and only then); sudo is used when not root. Python test tools live in .venv.

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := build

PYTHON ?= python3
VENV := .venv
BINARY := .build/release/relaydeckd
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

APT_PACKAGES := libsqlite3-dev libssl-dev libnghttp2-dev curl systemd
BENCH_APT_PACKAGES := nginx-light wrk

# $(call apt_ensure,packages...): install those that dpkg does not report as installed.
define apt_ensure
	missing=""; \
	for p in $(1); do \
	  status=$$(dpkg -s "$$p" 2>/dev/null | sed -n 's/^Status: //p'); \
	  [ "$$status" = "install ok installed" ] || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update -q; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$missing; \
	fi
endef

.PHONY: deps bench-deps build run test unit-test e2e bench clean

deps:
	@pkgs="$(APT_PACKAGES)"; \
	if ! $(PYTHON) -c 'import ensurepip, venv' 2>/dev/null; then pkgs="$$pkgs python3-venv"; fi; \
	$(call apt_ensure,$$pkgs)
	@if ! $(VENV)/bin/python -c 'import pytest' 2>/dev/null; then \
	  rm -rf $(VENV); \
	  $(PYTHON) -m venv $(VENV); \
	  $(VENV)/bin/python -m pip install -q --disable-pip-version-check 'pytest>=7,<10'; \
	fi

bench-deps: deps
	@$(call apt_ensure,$(BENCH_APT_PACKAGES))

build:
	swift build -c release --static-swift-stdlib --product relaydeckd

run: deps build
	exec $(BINARY)

unit-test:
	swift test

e2e:
	$(VENV)/bin/python -m pytest Tests/e2e -q

test: deps
	$(MAKE) unit-test
	$(MAKE) build
	$(MAKE) e2e

bench: bench-deps build
	bench/run.sh

clean:
	rm -rf .build $(VENV) bench/results
