#!/usr/bin/env bash
# The benchmarks (issue 12): `make bench` runs this after installing wrk and nginx-light and
# building the release binary. Everything is in bench/bench.py (rows, settings: see its top
# and bench/README.md); arguments name rows to run (default: all). With `--stores` first, the
# rows of SQLite and PostgreSQL side by side instead (bench/stores.py, `make bench-postgres`).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-.venv/bin/python}
[ -x "$PYTHON" ] || PYTHON=python3
# 10,000 streams and 10,000 parked waits need 20,000 sockets on each side.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
SCRIPT=bench/bench.py
if [ "${1:-}" = --stores ]; then
    SCRIPT=bench/stores.py
    shift
fi
exec "$PYTHON" "$SCRIPT" "$@"
