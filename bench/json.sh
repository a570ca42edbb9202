#!/usr/bin/env bash
# The JSON parser's cost per shape of a 1 MiB body (bench/json/json_bench.swift), optimized
# with swiftc like the fuzz harnesses (whole-module, as a release build is), into .build/json-bench. Not a row of bench.py: it
# starts no server and measures one function. JSON_BENCH_RUNS (11), JSON_BENCH_ONLY (a part
# of a shape's name).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .build
swiftc -O -wmo -parse-as-library -module-name JSONBench bench/json/json_bench.swift Sources/JSON/*.swift -o .build/json-bench
exec .build/json-bench
