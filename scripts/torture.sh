#!/usr/bin/env bash
# The long crash tests: builds `corestore` in release mode and, on every durable backend, runs
# `corestore torture commits` (a process committing transfers is killed with SIGKILL at random
# moments; no acknowledged commit may be lost, none torn), `corestore torture migrations`
# (migrations killed at random moments; every store must be intact at V1 or at V2) and
# `corestore torture power` (a committing process's file operations replayed as power cuts at
# random moments would leave them, with .full and with .normal durability).
#
#   scripts/torture.sh                          # all three; sqlite, lmdb and leveldb; 500 kills, 1000 cuts
#   scripts/torture.sh --only commits --backend lmdb --kills 100
#   scripts/torture.sh --only power --cuts 5000
#   scripts/torture.sh --only migrations --rows 5000 --seed 42   # other options go to the subcommand
#   scripts/torture.sh --skip-build             # use the release build already there
#
# Prints one summary line per backend and test, and exits non-zero if any lost or tore a store.
set -euo pipefail
cd "$(dirname "$0")/.."

backends=(sqlite lmdb leveldb)
kills=500
cuts=1000
tests=(commits migrations power)
passthrough=()
skip_build=0
while [ $# -gt 0 ]; do
  case "$1" in
    --backend) IFS=',' read -r -a backends <<< "$2"; shift 2 ;;
    --kills) kills="$2"; shift 2 ;;
    --cuts) cuts="$2"; shift 2 ;;
    --skip-build) skip_build=1; shift ;;
    --only) tests=("$2"); shift 2 ;;
    -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) passthrough+=("$1"); shift ;;
  esac
done

source scripts/ensure-deps.sh
if [ "$skip_build" != 1 ]; then
  swift build -c release --product corestore >&2
  swift build -c release --product PowerCutRecorder >&2
fi
corestore="$(swift build -c release --show-bin-path)/corestore"

status=0
for test in "${tests[@]}"; do
  for backend in "${backends[@]}"; do
    if [ "$test" = power ]; then
      for durability in full normal; do
        "$corestore" torture power --backend "$backend" --durability "$durability" --cuts "$cuts" ${passthrough[@]+"${passthrough[@]}"} || status=1
      done
    else
      "$corestore" torture "$test" --backend "$backend" --kills "$kills" ${passthrough[@]+"${passthrough[@]}"} || status=1
    fi
  done
done
exit $status
