#!/usr/bin/env bash
# The cost of a Task per request on a serial executor that the loop drains
# (bench/executor/executor_bench.swift), optimized with swiftc as a release build is, into
# .build/executor-bench. Not a row of bench.py: it starts no server. Issue 25's plan
# (docs/architecture.md, "Next: the store on PostgreSQL") quotes its figures.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .build
swiftc -O -wmo -parse-as-library -swift-version 6 -module-name ExecutorBench bench/executor/executor_bench.swift -o .build/executor-bench
exec .build/executor-bench
