#!/usr/bin/env bash
# Builds the libFuzzer targets of Fuzz/ (Swift with -sanitize=fuzzer,address) and runs each on
# its seed corpus (Fuzz/Corpus/<target>). Any crash, memory error or failed check stops that
# target, leaves its input in .build/fuzz-artifacts/ and makes the script exit non-zero: turn
# the input into a regression test beside the code it broke.
#
#   scripts/fuzz.sh                         # every target, 10 minutes each
#   scripts/fuzz.sh --time 3600 record-codec
#   scripts/fuzz.sh --runs 20000            # a fixed number of executions per target
#   scripts/fuzz.sh --time 7200 --timeout 120 import-values   # a long run beside other work
#   scripts/fuzz.sh --debug --runs 20000    # a debug build: a third of the build time, and
#                                           # `assert`s checked too (CI)
#
# --timeout S (default 10) is how long one input may take before libFuzzer reports a hang. It is
# wall-clock time: on a machine busy with builds, a low-priority run can be starved past 10 s
# on an input that takes milliseconds, so long runs beside other work want a larger value.
#
# Targets: record-codec, tuple-key, format-predicate, import-values. Prints the executions per
# target.
set -euo pipefail
cd "$(dirname "$0")/.."

time_limit=600
runs=
timeout=10
configuration=release
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --time) time_limit="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --timeout) timeout="$2"; shift 2 ;;
    --debug) configuration=debug; shift ;;
    -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "unknown option '$1'" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=(record-codec tuple-key format-predicate import-values)

source scripts/ensure-deps.sh
root=$(pwd)
artifacts="$root/.build/fuzz-artifacts"
mkdir -p "$artifacts"
cd Fuzz
# As in bench.sh: SwiftPM 6.3 reuses its build plan for the path dependency and misses new files.
rm -f ".build/$configuration.yaml" .build/*/"$configuration"/description.json
flags=(-c "$configuration" -Xswiftc -sanitize=fuzzer,address -Xswiftc -enable-testing)
swift build "${flags[@]}" >&2
bin=$(swift build "${flags[@]}" --show-bin-path)

status=0
for target in "${targets[@]}"; do
  [ -d "Corpus/$target" ] || { echo "unknown target '$target'" >&2; exit 2; }
  work=$(mktemp -d)
  cp Corpus/"$target"/* "$work"/
  limit=(-max_total_time="$time_limit")
  [ -z "$runs" ] || limit=(-runs="$runs")
  log="$artifacts/$target.log"
  if "$bin/fuzz-$target" "$work" -max_len=4096 -rss_limit_mb=2048 -timeout="$timeout" -print_final_stats=1 \
       -artifact_prefix="$artifacts/$target-" "${limit[@]}" >"$log" 2>&1; then
    executions=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
    echo "$target: $executions executions, 0 crashes ($(date -u +%Y-%m-%d))"
  else
    status=1
    echo "$target: FAILED — see $log and the inputs in $artifacts/" >&2
    grep -E 'ERROR|Fatal error|SUMMARY|Test unit written' "$log" | head -5 >&2 || true
  fi
  rm -rf "$work"
done
exit $status
