#!/usr/bin/env bash
# Counts the instructions one CoreStore benchmark workload executes, with callgrind (repeatable,
# unlike timings). Usage: scripts/profile.sh W2 [sqlite|lmdb|leveldb|memory|postgres] [--full]
# Runs the workloads of a fresh store up to the named one (10,000 rows, or 100,000 with --full),
# twice, and collects only inside the named workload's calls. The first call also pays what a
# process pays once (the Swift runtime instantiating generic type metadata and looking up
# conformances the first time each call site runs: about half a million instructions, most of
# a small workload's count); the second call is what the benchmark's median times. Prints both
# totals and the second call's costliest functions; its whole profile stays in the printed
# .out file for callgrind_annotate.
#
# postgres uses the server at CORESTORE_POSTGRES_URL, or starts a throwaway one for the run.
set -euo pipefail
cd "$(dirname "$0")/.."
workload=${1:?usage: scripts/profile.sh W1..W9|W11|W15 [sqlite|lmdb|leveldb|memory|postgres] [--full]}
backend=${2:-sqlite}
size=--quick
[ "${3:-}" = "--full" ] && size=
case "${workload^^}" in
    W1) method='6insertyySayAA8BenchRowVGKF' ;;
    W2) method='8fetchAllAA8ChecksumVyKF' ;;
    W3) method='5fetch3ageAA8ChecksumVSi_tKF' ;;
    W4) method='14fetchTopScores2in5limitAA8ChecksumVSNySdG_SitKF' ;;
    W5) method='9aggregateAA8ChecksumVyKF' ;;
    W15) method='23countPerAgeAndHighestIDAA8ChecksumVyKF' ;;
    W6) method='6update3idsySnys5Int64VG_tKF' ;;
    W7) method='6delete3idsySnys5Int64VG_tKF' ;;
    W8) method='16monitoredUpdatesySays8DurationVGSays5Int64V2id_Sd5scoretGKF' ;;
    W9) method='10insertEachyySayAA8BenchRowVGKF' ;;
    W11) method='12importUniqueyySayAA8BenchRowVGKF' ;;
    *) echo "unknown workload '$workload'" >&2; exit 2 ;;
esac
command -v valgrind >/dev/null || { apt-get update -qq && apt-get install -y -qq valgrind; }
source scripts/ensure-deps.sh
cd Benchmarks
# SwiftPM (6.3) reuses its build plan for the path dependency on the main package and misses
# source files added there since; dropping the plan makes it scan the sources again (seconds).
rm -f .build/release.yaml .build/*/release/description.json
swift build -c release --product corestore-bench >&2
bench="$(swift build -c release --show-bin-path)/corestore-bench"
symbol="\$s15corestore_bench16CoreStoreSubjectC${method}"
# Where the compiler merged the method with a look-alike, the body is the merged copy.
if nm "$bench" | grep -F "${symbol}Tm" >/dev/null; then symbol="${symbol}Tm"; fi
server=()
if [ "$backend" = postgres ]; then
  if [ -z "${CORESTORE_POSTGRES_URL:-}" ]; then
    echo "No CORESTORE_POSTGRES_URL: starting a throwaway PostgreSQL server for this run" >&2
    eval "$(bash ../scripts/postgres-cluster.sh start)"
    trap 'bash ../scripts/postgres-cluster.sh stop "$CORESTORE_POSTGRES_DIR"' EXIT
  fi
  server=(--postgres-url "$CORESTORE_POSTGRES_URL")
fi
base=$(mktemp /tmp/corestore-profile.XXXXXX)
rm -f "$base"
# The subject's method (kept out of line for this), entered once per call; a profile is written
# when each call returns: $base.1 the first, $base.2 the second.
valgrind --tool=callgrind --callgrind-out-file="$base" \
    "--toggle-collect=${symbol}" "--dump-after=${symbol}" --compress-strings=no \
    "$bench" $size --repetitions 2 --backend "$backend" "${server[@]}" --subject CoreStore \
    --through "${workload^^}" >/dev/null 2>"$base.log"
total() { sed -n 's/^summary: //p' "$1"; }
[ -f "$base.2" ] || { echo "callgrind wrote no profile of a second call; see $base.log" >&2; exit 1; }
echo "instructions: first call $(total "$base.1"), second call $(total "$base.2")"
# A profile written as a call returns also names the calls still under way (main and the
# frames above the method) with the whole cost: left out here, with no threshold to cut at.
callgrind_annotate --threshold=100 "$base.2" 2>/dev/null | sed -n '/^Ir/,$p' | grep -v -E '\(100\.0%\)  .*:' | sed -n 1,40p | { command -v swift >/dev/null && swift demangle --simplified || cat; } | cut -c1-200
echo "profile of the second call: $base.2 (the first: $base.1)"
