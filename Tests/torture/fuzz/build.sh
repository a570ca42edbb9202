#!/usr/bin/env bash
# Builds the three libFuzzer binaries (json, http, cbor) into .build/fuzz/ with
# `swiftc -sanitize=fuzzer,address`. Each compiles its harness together with the sources of
# the one module it tests (they import nothing but Glibc), so no SwiftPM build with
# sanitizer flags is needed. Skips a binary that is newer than its sources.
set -euo pipefail
cd "$(dirname "$0")/../../.."
OUT=.build/fuzz
mkdir -p "$OUT"
build() {  # name harness sources...
    local name=$1 harness=$2; shift 2
    local binary="$OUT/$name-fuzz"
    if [ -x "$binary" ] && [ -z "$(find "$harness" "$@" -newer "$binary" 2>/dev/null | head -n1)" ]; then
        return
    fi
    echo "fuzz: building $binary" >&2
    swiftc -sanitize=fuzzer,address -parse-as-library -O -g -module-name "Fuzz${name}" \
        "$harness" "$@" -o "$binary" 2> >(grep -v "Cannot export local symbol" >&2)
}
build json Tests/torture/fuzz/json_fuzz.swift Sources/JSON/*.swift
build http Tests/torture/fuzz/http_fuzz.swift Sources/HTTP/Parser/*.swift
build cbor Tests/torture/fuzz/cbor_fuzz.swift Sources/AppIntegrity/CBOR/*.swift
