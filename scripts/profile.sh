#!/usr/bin/env bash
# Counts the instructions one CoreStore benchmark workload executes, with callgrind (repeatable,
# unlike timings). Usage: scripts/profile.sh W2 [sqlite|lmdb|leveldb|memory] [--full]
# Runs the workloads of a fresh store up to the named one (10,000 rows, or 100,000 with --full)
# and collects only inside the named workload's call. Prints the totals and the costliest
# functions; the whole profile stays in the printed .out file for callgrind_annotate.
set -euo pipefail
cd "$(dirname "$0")/.."
workload=${1:?usage: scripts/profile.sh W1..W9|W11 [backend] [--full]}
backend=${2:-sqlite}
size=--quick
[ "${3:-}" = "--full" ] && size=
case "${workload^^}" in
    W1) method='6insertyySayAA8BenchRowVGKF' ;;
    W2) method='8fetchAllAA8ChecksumVyKF' ;;
    W3) method='5fetch3ageAA8ChecksumVSi_tKF' ;;
    W4) method='14fetchTopScores2in5limitAA8ChecksumVSNySdG_SitKF' ;;
    W5) method='9aggregateAA8ChecksumVyKF' ;;
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
out=$(mktemp /tmp/corestore-profile.XXXXXX.out)
# The subject's method (kept out of line for this), entered once per call.
valgrind --tool=callgrind --callgrind-out-file="$out" \
    "--toggle-collect=${symbol}" \
    "$bench" $size --repetitions 1 --backend "$backend" --subject CoreStore --through "${workload^^}" >/dev/null 2>"$out.log"
grep -E 'Collected' "$out.log" | sed 's/^==[0-9]*== //'
callgrind_annotate "$out" 2>/dev/null | sed -n '/^Ir/,$p' | sed -n 1,40p | { command -v swift >/dev/null && swift demangle --simplified || cat; } | cut -c1-200
echo "profile: $out"
