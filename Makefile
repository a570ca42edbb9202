# Relaydeck Server: build, run and test on Debian 12 with the Swift toolchain on PATH.
#
#   make run     install what is missing, build, serve on LISTEN (default 127.0.0.1:8080)
#   make test    install what is missing, unit tests, release build, end-to-end, browser and
#                short torture tests
#   make test-e2e-postgres  the end-to-end suite again with every server on PostgreSQL (a
#                cluster of the run's own, Tests/e2e/store_mode.py); .ci/run runs it after `make test`
#   make browser-test  the web console in Debian's chromium through Playwright (Tests/browser)
#   make bench   every benchmark row (bench/run.sh); never part of `make test`
#   make bench-scale  only the rows of how cost grows (issue 20)
#   make bench-postgres  SQLite, PostgreSQL and two nodes on PostgreSQL side by side (issue 25)
#   make torture the reliability suite in its long form (Tests/torture, TORTURE=full: about
#                20 minutes); `make test` runs its short form (torture-short, a few minutes)
#   make release the static binary, stripped: dist/relaydeckd
#   make deb     dist/relaydeck_<version>_<arch>.deb (ARCH=amd64|arm64, default: this machine's)
#   make package-test  the package's tests (lintian, an install into a debootstrap root)
#
# scripts/ensure-deps installs what is missing and nothing else: the apt packages below (with
# sudo when not root; apt-get update once, and only then) and the Python test tools in .venv.
# When it cannot, it stops with one line that says what is missing and how to install it.

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := build

PYTHON ?= python3
VENV := .venv
BINARY := .build/release/relaydeckd
# A fully static binary: the Swift runtime, glibc and the C libraries inside, nothing to
# install beside it. The trailing -lm: SQLite's archive calls libm, and the static link
# resolves archives in order. Linked by the toolchain's lld with the functions of the start and
# the common requests first, together (packaging/relaydeckd.order, made by bench/order_file.py):
# the kernel maps code 64 KiB around each page touched, so scattered, they made most of the code
# resident (BENCHMARKS.md, round 4). `swift test` keeps a plain dynamic build of its own.
ORDER_FILE := $(CURDIR)/packaging/relaydeckd.order
RELEASE_FLAGS := -c release --product relaydeckd -Xswiftc -static-executable -Xlinker -lm \
	-Xswiftc -use-ld=lld -Xlinker --symbol-ordering-file=$(ORDER_FILE) -Xlinker --no-warn-symbol-ordering

# man-db and groff-base: the man page is rendered, and systemd-analyze verify opens man: links.
APT_PACKAGES := libsqlite3-dev libssl-dev libnghttp2-dev curl systemd openssl man-db groff-base
BENCH_APT_PACKAGES := nginx-light wrk
# The browser tests drive Debian's chromium (Playwright's own browser download is not used).
BROWSER_APT_PACKAGES := chromium
# The PostgreSQL client's tests start servers of their own from Debian's binaries
# (Tests/TestSupport/PostgresCluster.swift): initdb and postgres, in a temporary folder.
TEST_APT_PACKAGES := postgresql

.PHONY: deps test-deps bench-deps package-deps build release deb run test setup-test unit-test e2e e2e-postgres test-e2e-postgres browser-test torture-short torture package-test bench bench-scale bench-postgres-deps bench-postgres clean

# The packaging scripts take the architecture as a parameter; the binary must be built on a
# machine of that architecture (packaging/build-deb checks its ELF header).
ARCH ?= $(shell dpkg --print-architecture)
DIST := dist
PACKAGE_APT_PACKAGES := lintian debootstrap

deps:
	@PYTHON=$(PYTHON) scripts/ensure-deps --venv $(VENV) $(APT_PACKAGES)

# One call, so that apt-get update runs once even when both lists miss something.
test-deps:
	@PYTHON=$(PYTHON) scripts/ensure-deps --venv $(VENV) $(APT_PACKAGES) $(TEST_APT_PACKAGES) $(BROWSER_APT_PACKAGES)

bench-deps:
	@PYTHON=$(PYTHON) scripts/ensure-deps --venv $(VENV) $(APT_PACKAGES) $(BENCH_APT_PACKAGES)

bench-postgres-deps:
	@PYTHON=$(PYTHON) scripts/ensure-deps --venv $(VENV) $(APT_PACKAGES) $(BENCH_APT_PACKAGES) $(TEST_APT_PACKAGES)

# The package manager does not know the order file is an input of the link: a binary older
# than it is removed, so a new order file is linked in.
build:
	@if [ -e $(BINARY) ] && [ $(ORDER_FILE) -nt $(BINARY) ]; then rm -f $(BINARY) .build/*/release/relaydeckd; fi
	swift build $(RELEASE_FLAGS)

release: build
	packaging/release $(BINARY) $(DIST)/relaydeckd

deb: release
	packaging/build-deb --arch $(ARCH) --binary $(DIST)/relaydeckd --out $(DIST)

package-deps:
	@PYTHON=$(PYTHON) scripts/ensure-deps --venv $(VENV) $(APT_PACKAGES) $(PACKAGE_APT_PACKAGES)

# The .deb checked with dpkg-deb and lintian, installed into a fresh Debian root made with
# debootstrap (a few minutes, and network to its Debian mirror), purged again. Not in `make test`.
package-test: package-deps deb
	RELAYDECK_DEB=$(DIST)/relaydeck_$$(packaging/version)_$(ARCH).deb $(VENV)/bin/python -m pytest Tests/package -q

run: deps build
	exec $(BINARY)

# The set-up script against stand-in programs: no package is installed, nothing is built.
setup-test:
	$(VENV)/bin/python -m pytest Tests/setup -q

unit-test:
	swift test

e2e:
	$(VENV)/bin/python -m pytest Tests/e2e -q

# The same suite with every server it starts serving from PostgreSQL (issue 25): one cluster of
# the run's own from Debian's binaries (TEST_APT_PACKAGES), a database per store.
e2e-postgres:
	RELAYDECK_E2E_STORE=postgres $(VENV)/bin/python -m pytest Tests/e2e -q

test-e2e-postgres: test-deps build
	$(MAKE) e2e-postgres

browser-test:
	$(VENV)/bin/python -m pytest Tests/browser -q

# The reliability suite (crash, store faults, fuzzers, malformed HTTP, soak, security).
torture-short:
	$(VENV)/bin/python -m pytest Tests/torture -q

torture: deps build
	TORTURE=full $(VENV)/bin/python -m pytest Tests/torture -q

test: test-deps
	$(MAKE) setup-test
	$(MAKE) unit-test
	$(MAKE) build
	$(MAKE) e2e
	$(MAKE) browser-test
	$(MAKE) torture-short

bench: bench-deps build
	PYTHON=$(VENV)/bin/python bench/run.sh

# The rows of "how cost grows" alone (a store of 1,000,000 tasks, a large purge, 10,000
# streams, the WAL): about ten minutes of the half hour `make bench` takes (bench/README.md).
bench-scale: bench-deps build
	PYTHON=$(VENV)/bin/python bench/run.sh growth purge streams wal

# The rows that mean something across stores, each on SQLite, on PostgreSQL and on two nodes
# sharing one PostgreSQL database (bench/stores.py): a cluster of the run's own from Debian's
# binaries (TEST_APT_PACKAGES), durable, on loopback, stopped at the end. RELAYDECKD=<binary>
# runs another build.
bench-postgres: bench-postgres-deps build
	PYTHON=$(VENV)/bin/python bench/run.sh --stores

clean:
	rm -rf .build $(VENV) bench/results $(DIST)
