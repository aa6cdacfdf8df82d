#!/usr/bin/env bash
# Builds everything (warnings in our own code fail the build) and runs the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-deps.sh

# A throwaway PostgreSQL server for the PostgresStore tests (installed with apt-get when it is
# missing), stopped and deleted when this script ends; CORESTORE_POSTGRES_URL set by the
# caller names an existing database instead.
if [ -z "${CORESTORE_POSTGRES_URL:-}" ]; then
  eval "$(scripts/postgres-cluster.sh start)"
  trap 'scripts/postgres-cluster.sh stop "$CORESTORE_POSTGRES_DIR"' EXIT
fi
export CORESTORE_POSTGRES_URL

log=$(mktemp)
swift build --build-tests 2>&1 | tee "$log"
if grep -E '^/.*/(Sources|Backends|Tests)/.*: warning:' "$log" >/dev/null; then
  echo "error: the build printed warnings from our own code (see above)." >&2
  exit 1
fi
swift test --skip-build 2>&1 | tee "$log"
# Swift Testing prints its own summary; fail loudly if it did not run.
grep -E 'Test run with [0-9]+ tests? .* passed|Executed [0-9]+ tests?, with 0 failures' "$log" >/dev/null
"$(swift build --show-bin-path)/corestore" demo >/dev/null
"$(swift build --show-bin-path)/corestore" conformance --backend sqlite --sequences 50 | tail -n 1
"$(swift build --show-bin-path)/corestore" demo --postgres "$CORESTORE_POSTGRES_URL" >/dev/null
"$(swift build --show-bin-path)/corestore" conformance --backend postgres --url "$CORESTORE_POSTGRES_URL" --group differential --sequences 50 --quiet | tail -n 1

# The DocC documentation of every public module: a warning (a broken link, a topic naming no
# symbol) fails the run.
./scripts/docs.sh 2>&1 | tee "$log" | tail -n 9
grep -q 'Generated 9 documentation archives' "$log"

# The third-party backend example, a separate package that depends on this one by path.
(cd Examples/ThirdPartyBackend && swift build --build-tests && swift test --skip-build) 2>&1 | tee "$log"
grep -E 'Test run with [0-9]+ tests? .* passed' "$log" >/dev/null

# The benchmarks, 10x smaller: CI checks that every subject runs and reads the same data
# (the run stops on a checksum mismatch), never a timing.
./scripts/bench.sh --quick --repetitions 1 >/dev/null

# The fuzz targets, briefly (libFuzzer with AddressSanitizer, from the seed corpora; a debug
# build, quick to make, with `assert`s on): any crash, memory error or failed check fails the
# run. `scripts/fuzz.sh --time N` runs them for longer, from a release build.
./scripts/fuzz.sh --debug --runs 20000

# The same suite again under ThreadSanitizer: any data race fails the run. Left out here, because
# they ran above and under the sanitizer take minutes with no threads of their own to check: the
# conformance cases on PostgreSQL, the single-threaded differential runs against the reference
# model, the process-level tests of power cuts, damaged and read-only stores and the `corestore`
# tools (their subject is what a child process leaves in its files), and the conformance cases
# on SQLite with `synchronous=FULL` and LevelDB with unsynced writes (the same code and threads
# as SQLite `NORMAL` and synced LevelDB, which do run; only a flag to the engine differs). The
# killed commits and migrations (children instrumented too), the PostgreSQL tests built around
# threads and processes (stacks sharing a store, reconnection, several processes) and the
# conformance cases on every embedded engine run under it.
TSAN_OPTIONS="halt_on_error=1" swift test --sanitize=thread --scratch-path .build-tsan \
  --skip PostgresConformanceTests --skip 'CoreStoreConformanceDifferentialTests\.' \
  --skip 'CoreStoreTortureTests\.(CommitTortureInspectorTests|DamagedStoreTests|PowerCut|ReadOnly|Store)' \
  --skip 'ConformanceTests/(sqliteFull|leveldbNormal)\(' 2>&1 | tee "$log" | grep -aE 'ThreadSanitizer|Test run with' || true
if grep -aq 'WARNING: ThreadSanitizer' "$log" || ! grep -aqE 'Test run with [0-9]+ tests? .* passed' "$log"; then
  # The race report (both stacks) or the failed tests, so that the log says what went wrong.
  sed -n '/WARNING: ThreadSanitizer/,/SUMMARY: ThreadSanitizer/p' "$log" | head -n 200 >&2
  grep -aE '✘|error:' "$log" | head -n 50 >&2 || true
  echo "error: the suite failed or found a data race under ThreadSanitizer." >&2
  exit 1
fi
echo "All tests passed (also under ThreadSanitizer); the demo ran; the documentation built; the fuzz targets found nothing."
