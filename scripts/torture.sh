#!/usr/bin/env bash
# The long crash test of migrations: builds `corestore` in release mode and runs
# `corestore torture migrations` on every durable backend, killing each migration with SIGKILL
# at a random moment and checking that every store is intact at V1 or at V2.
#
#   scripts/torture.sh                          # sqlite, lmdb and leveldb, 500 kills each
#   scripts/torture.sh --backend lmdb --kills 100
#   scripts/torture.sh --rows 5000 --seed 42    # other options go to `corestore torture migrations`
#   scripts/torture.sh --skip-build             # use the release build already there
#
# Prints one summary line per backend and exits non-zero if any backend lost or tore a store.
set -euo pipefail
cd "$(dirname "$0")/.."

backends=(sqlite lmdb leveldb)
kills=500
passthrough=()
skip_build=0
while [ $# -gt 0 ]; do
  case "$1" in
    --backend) IFS=',' read -r -a backends <<< "$2"; shift 2 ;;
    --kills) kills="$2"; shift 2 ;;
    --skip-build) skip_build=1; shift ;;
    -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) passthrough+=("$1"); shift ;;
  esac
done

source scripts/ensure-deps.sh
[ "$skip_build" = 1 ] || swift build -c release --product corestore >&2
corestore="$(swift build -c release --show-bin-path)/corestore"

status=0
for backend in "${backends[@]}"; do
  "$corestore" torture migrations --backend "$backend" --kills "$kills" ${passthrough[@]+"${passthrough[@]}"} || status=1
done
exit $status
