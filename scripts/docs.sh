#!/usr/bin/env bash
# Builds the DocC documentation of every public module (CoreStore, CoreStoreStorage,
# CoreStoreKeyValue, CoreStoreInMemory, CoreStoreSQLite, CoreStoreLMDB, CoreStoreLevelDB,
# CoreStorePostgres, CoreStoreConformance) with swift-docc-plugin; a warning (an unresolved link, a topic that
# names no symbol, a malformed article) fails the build.
#
#   scripts/docs.sh                 archives in .build/plugins/Swift-DocC/outputs/
#   scripts/docs.sh --site DIR      a static website in DIR (one folder per module)
#
# The catalogs are the `*.docc` folders beside each module's sources; their articles are links
# to the guides in docs/, so the guides are written once.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-deps.sh

targets=(CoreStore CoreStoreStorage CoreStoreKeyValue CoreStoreInMemory CoreStoreSQLite CoreStoreLMDB CoreStoreLevelDB CoreStorePostgres CoreStoreConformance)
target_args=()
for target in "${targets[@]}"; do target_args+=(--target "$target"); done

if [[ "${1:-}" == "--site" ]]; then
  site="${2:?--site needs a directory}"
  for target in "${targets[@]}"; do
    mkdir -p "$site/$target"
    swift package --allow-writing-to-directory "$site" generate-documentation --target "$target" \
      --warnings-as-errors --disable-indexing --transform-for-static-hosting \
      --hosting-base-path "$target" --output-path "$site/$target"
  done
  echo "documentation site: $site (open $site/CoreStore/documentation/corestore/index.html through a web server)"
else
  swift package generate-documentation "${target_args[@]}" --warnings-as-errors
fi
