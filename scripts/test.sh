#!/usr/bin/env bash
# Builds everything (warnings in our own code fail the build) and runs the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-deps.sh

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
echo "All tests passed; the demo ran."
