#!/usr/bin/env bash
# Builds CoreStore and runs `corestore demo`. Extra arguments go to the demo.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-deps.sh
swift build --product corestore
exec "$(swift build --show-bin-path)/corestore" demo "$@"
