#!/usr/bin/env bash
# The peak memory and time of `corestore copy` on stores of growing size (release build),
# through every backend (lmdb → sqlite → leveldb → lmdb): a peak that does not grow with the
# store shows that copying streams. Sizes default to 100,000 and 1,000,000 objects.
#
#   scripts/bench-copy.sh                  # 100000,1000000
#   scripts/bench-copy.sh 10000,100000     # quicker
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-deps.sh
cd Benchmarks
rm -f .build/release.yaml .build/*/release/description.json
swift build -c release --product corestore-bench >&2
swift build -c release --product corestore >&2
bin=$(swift build -c release --show-bin-path)
exec "$bin/corestore-bench" --copy-memory "$bin/corestore" --copy-objects "${1:-100000,1000000}"
