#!/usr/bin/env bash
# Builds the benchmark package (Benchmarks/, release mode) and runs it. Arguments go to
# `corestore-bench`: --quick (10x smaller), --json, --repetitions N,
# --backend sqlite,lmdb,leveldb,memory, --subject CoreStore,raw,GRDB, --directory DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-deps.sh
cd Benchmarks
# SwiftPM (6.3) reuses its build plan for the path dependency on the main package and misses
# source files added there since; dropping the plan makes it scan the sources again (seconds).
rm -f .build/release.yaml .build/*/release/description.json
swift build -c release --product corestore-bench >&2
exec "$(swift build -c release --show-bin-path)/corestore-bench" "$@"
