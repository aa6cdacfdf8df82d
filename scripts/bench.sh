#!/usr/bin/env bash
# Builds the benchmark package (Benchmarks/, release mode) and runs it. Arguments go to
# `corestore-bench`: --quick (10x smaller), --json, --repetitions N,
# --backend sqlite,lmdb,leveldb,memory,postgres, --subject CoreStore,raw,GRDB, --directory DIR,
# --postgres-url URL.
#
# PostgreSQL needs a server: CORESTORE_POSTGRES_URL (or --postgres-url). Without one, the
# default backend list leaves postgres out; `--backend …postgres…` without one starts a
# throwaway server (scripts/postgres-cluster.sh) for the run and stops it afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-deps.sh

# Whether postgres was asked for by name, and whether a server was given on the command line.
wants_postgres=no
has_url_option=no
previous=""
for argument in "$@"; do
  case "$previous" in
    --backend) [[ ",$argument," == *",postgres,"* ]] && wants_postgres=yes ;;
    --postgres-url) has_url_option=yes ;;
  esac
  previous="$argument"
done

cd Benchmarks
# SwiftPM (6.3) reuses its build plan for the path dependency on the main package and misses
# source files added there since; dropping the plan makes it scan the sources again (seconds).
rm -f .build/release.yaml .build/*/release/description.json
swift build -c release --product corestore-bench >&2
bench="$(swift build -c release --show-bin-path)/corestore-bench"

if [ "$wants_postgres" = yes ] && [ "$has_url_option" = no ] && [ -z "${CORESTORE_POSTGRES_URL:-}" ]; then
  echo "No CORESTORE_POSTGRES_URL: starting a throwaway PostgreSQL server for this run" >&2
  cluster_env=$(bash ../scripts/postgres-cluster.sh start)
  eval "$cluster_env"
  trap 'bash ../scripts/postgres-cluster.sh stop "$CORESTORE_POSTGRES_DIR"' EXIT
  # Not `exec`: the trap has to run when the benchmark ends.
  "$bench" "$@"
else
  exec "$bench" "$@"
fi
